// What a compiled check receives at validation time, and the helpers every keyword uses to
// report a failure in one voice: `Value at "/items/2/name" must be a string, got number`.

import type { Annotations } from './_annotations.ts';
import { formatPointer } from './_pointer.ts';
import type { Check, Describe, ErrorLog, FoundError, RunContext } from './_schema-types.ts';
import type { ValidationError } from './types.ts';

export type { Check, Describe, ErrorLog, FoundError, RunContext } from './_schema-types.ts';

/**
 * Records a failure of `keyword` (standing at `schemaPath`) at the current instance location,
 * plus `extra` when the failure is about one member or item. Nothing is formatted here: the
 * location is kept as its tokens and the message as `describe` with the value it reads, appended
 * to the context's ErrorLog, and both become text only when someone reads the result's errors
 * (describeError).
 */
export function report(ctx: RunContext, schemaPath: string, keyword: string, describe: Describe, data: unknown, extra?: string | number): void {
  const { errors, path } = ctx;
  const depth = path.length;
  errors.push(schemaPath, keyword, describe, data, extra, depth);
  for (let i = 0; i < depth; i++) errors.push(path[i]);
}

/** The records of `log` (see ErrorLog), in order. */
export function foundErrors(log: ErrorLog): FoundError[] {
  const found: FoundError[] = [];
  for (let i = 0; i < log.length; ) {
    const depth = log[i + 5] as number;
    found.push({
      schemaPath: log[i] as string,
      keyword: log[i + 1] as string,
      describe: log[i + 2] as Describe,
      data: log[i + 3],
      extra: log[i + 4] as string | number | undefined,
      path: log.slice(i + 6, i + 6 + depth) as (string | number)[],
    });
    i += 6 + depth;
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
