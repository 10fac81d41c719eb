// What a compiled check receives at validation time, and the helpers every keyword uses to
// report a failure in one voice: `Value at "/items/2/name" must be a string, got number`.

import type { Annotations } from './_annotations.ts';
import { formatPointer } from './_pointer.ts';
import type { Check, RunContext } from './_schema-types.ts';

export type { Check, RunContext } from './_schema-types.ts';

/** `Value at "/a/0"`, or `Value at the root`: the subject of every message. */
export function subject(ctx: RunContext, extra?: string | number): string {
  if (ctx.path.length === 0 && extra === undefined) return 'Value at the root';
  const pointer = formatPointer(ctx.path) + (extra === undefined ? '' : formatPointer([extra]));
  return `Value at "${pointer}"`;
}

export function report(ctx: RunContext, schemaPath: string, keyword: string, message: string, extra?: string | number): void {
  const instancePath = formatPointer(ctx.path) + (extra === undefined ? '' : formatPointer([extra]));
  ctx.errors.push({ instancePath, schemaPath, keyword, message });
}

/** Runs `check` for its verdict alone: no errors recorded, stops at the first failure. */
export function passes(check: Check, data: unknown, ctx: RunContext, ann: Annotations | null): boolean {
  const { record, all } = ctx;
  ctx.record = false;
  ctx.all = false;
  const ok = check(data, ctx, ann);
  ctx.record = record;
  ctx.all = all;
  return ok;
}

/** The JSON type name of a value, for messages. */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** A short JSON rendering of a value, for messages. */
export function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Runs every check in turn, stopping at the first failure unless `ctx.all`. */
export function checkAll(checks: readonly Check[], data: unknown, ctx: RunContext, ann: Annotations | null): boolean {
  let ok = true;
  for (const check of checks) {
    if (!check(data, ctx, ann)) {
      if (!ctx.all) return false;
      ok = false;
    }
  }
  return ok;
}
