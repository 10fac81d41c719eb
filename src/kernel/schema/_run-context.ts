// What a compiled check receives at validation time, and the helpers every keyword uses to
// report a failure in one voice: `Value at "/items/2/name" must be a string, got number`.

import type { Annotations } from './_annotations.ts';
import { formatPointer } from './_pointer.ts';
import { ErrorRecord, LocationMark, type Check, type Describe, type ErrorLog, type FoundError, type RunContext } from './_schema-types.ts';
import type { ValidationError } from './types.ts';

export type { Check, Describe, ErrorLog, FoundError, RunContext, Walk } from './_schema-types.ts';

/**
 * Records a failure of `keyword` (standing at `schemaPath`) at the current instance location,
 * plus `extra` when the failure is about one member or item. Nothing is formatted here: the
 * record keeps the message as `describe` with the value it reads, and the location as the
 * context's path (none inside a walk, whose parents mark the location afterwards: locate()).
 * Both become text only when someone reads the result's errors (describeError).
 */
export function report(ctx: RunContext, schemaPath: string, keyword: string, describe: Describe, data: unknown, extra?: string | number): void {
  const { path } = ctx;
  ctx.errors.push(new ErrorRecord(schemaPath, keyword, describe, data, extra, path.length === 0 ? null : path.slice()));
}

/**
 * Says that the entries from position `from` of the log on are about the member or item `token`
 * of the value where the caller stands (a walk's failing member). Nothing when there are none.
 */
export function locate(ctx: RunContext, from: number, token: string | number): void {
  const { errors } = ctx;
  const end = errors.length;
  if (end > from) errors.push(new LocationMark(end - from, token));
}

/** The records of `log` (see ErrorLog), in order, each location mark's token put before the paths of the records it covers. */
export function foundErrors(log: ErrorLog): FoundError[] {
  const found: FoundError[] = [];
  const starts: number[] = [];
  for (let i = 0; i < log.length; i++) {
    const entry = log[i];
    if (entry instanceof LocationMark) {
      // Marks come inner first (a member's mark after its own members'), so each goes in front.
      const from = i - entry.span;
      for (let r = found.length - 1; r >= 0 && (starts[r] as number) >= from; r--) (found[r] as FoundError).path.unshift(entry.token);
      continue;
    }
    const { schemaPath, keyword, describe, data, extra, path } = entry as ErrorRecord;
    starts.push(i);
    found.push({ schemaPath, keyword, describe, data, extra, path: path === null ? [] : [...path] });
  }
  return found;
}

/** A recorded failure as the ValidationError callers read. */
export function describeError(found: FoundError): ValidationError {
  const instancePath = formatPointer(found.path) + (found.extra === undefined ? '' : formatPointer([found.extra]));
  // `Value at "/a/0"`, or `Value at the root`: the subject of every message.
  const subject = instancePath === '' ? 'Value at the root' : `Value at "${instancePath}"`;
  return { instancePath, schemaPath: found.schemaPath, keyword: found.keyword, message: found.describe(subject, found.data) };
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
