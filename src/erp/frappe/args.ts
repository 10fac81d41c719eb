// A method's arguments as Frappe's form_dict gathers them: the query string, then the body
// (JSON object, or application/x-www-form-urlencoded where a value that is JSON text for an
// object or list is parsed, as whitelisted Frappe methods do). Checks types here, once, so a
// handler reads plain values.

import { mediaTypeOf, parseJsonBody } from '../../kernel/index.ts';
import type { RequestContext } from '../../kernel/index.ts';
import { frappeThrow } from './envelope.ts';

export type Args = Record<string, unknown>;

/** The merged arguments of a request (body values win over query values of the same name). */
export function requestArgs(context: RequestContext): Args {
  const args: Args = {};
  for (const [key, value] of context.query) args[key] = parseFormValue(value);
  const raw = context.rawBody;
  if (raw === undefined || raw.length === 0) return args;
  const type = mediaTypeOf(context.headers['content-type']);
  if (type === 'application/x-www-form-urlencoded') {
    const text = raw.toString('utf8');
    if (!text.isWellFormed() || text.includes('\uFFFD')) frappeThrow('The form body is not valid UTF-8: send UTF-8 text');
    for (const [key, value] of new URLSearchParams(text)) args[key] = parseFormValue(value);
    return args;
  }
  const body = parseJsonBody(raw);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) frappeThrow('The JSON body must be an object of named arguments');
  return { ...args, ...(body as Args) };
}

function parseFormValue(value: string): unknown {
  const first = value.trimStart()[0];
  if (first !== '{' && first !== '[') return value;
  try {
    return JSON.parse(value);
  } catch {
    // Frappe keeps text that merely looks like JSON as the string it is.
    return value;
  }
}

/** A required, non-empty string argument. */
export function requireString(args: Args, name: string, maxLength = 140): string {
  const value = args[name];
  if (value === undefined || value === null || value === '') frappeThrow(`Missing argument "${name}": send it in the body or the query`);
  if (typeof value !== 'string') frappeThrow(`Argument "${name}" must be a string, got ${describeType(value)}`);
  if (value.length > maxLength) frappeThrow(`Argument "${name}" is longer than ${maxLength} characters`);
  return value;
}

/** Frappe's cint-style flag: 1/0, true/false, "1"/"0", "true"/"false"; absent is false. */
export function optionalFlag(args: Args, name: string): boolean {
  const value = args[name];
  if (value === undefined || value === null || value === '') return false;
  if (value === true || value === 1 || value === '1' || value === 'true') return true;
  if (value === false || value === 0 || value === '0' || value === 'false') return false;
  frappeThrow(`Argument "${name}" must be 1 or 0 (or true or false), got ${JSON.stringify(value)}`);
}

/** Refuses arguments a method does not take (Frappe would raise TypeError: unexpected keyword). */
export function refuseUnknown(args: Args, known: readonly string[]): void {
  // Frappe's client libraries add `cmd` to form posts; it names the method, not an argument.
  const extra = Object.keys(args).filter((key) => !known.includes(key) && key !== 'cmd');
  if (extra.length > 0) frappeThrow(`Unexpected argument${extra.length > 1 ? 's' : ''} ${extra.map((k) => `"${k}"`).join(', ')}: this method takes ${known.join(', ')}`);
}

export function describeType(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
