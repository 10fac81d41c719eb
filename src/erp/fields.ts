// Reading fields of a parsed JSON payload with errors that name the field and what was expected
// (each a ValidationError, 417). Used by the intake normalizers.

import { describeType } from './frappe/args.ts';
import { frappeThrow } from './frappe/envelope.ts';

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The payload as an object, or a ValidationError. */
export function asObject(value: unknown, field: string): Json {
  if (!isObject(value)) frappeThrow(`Field "${field}" must be an object, got ${describeType(value)}`);
  return value;
}

export function optionalObject(parent: Json, key: string, path: string): Json | undefined {
  const value = parent[key];
  if (value === undefined || value === null) return undefined;
  return asObject(value, `${path}${key}`);
}

export function requiredString(parent: Json, key: string, path: string, maxLength = 255): string {
  const value = parent[key];
  if (value === undefined || value === null || value === '') frappeThrow(`Missing field "${path}${key}"`);
  return checkString(value, `${path}${key}`, maxLength);
}

export function optionalString(parent: Json, key: string, path: string, maxLength = 255): string | undefined {
  const value = parent[key];
  if (value === undefined || value === null || value === '') return undefined;
  return checkString(value, `${path}${key}`, maxLength);
}

function checkString(value: unknown, field: string, maxLength: number): string {
  if (typeof value !== 'string') frappeThrow(`Field "${field}" must be a string, got ${describeType(value)}`);
  if (value.length > maxLength) frappeThrow(`Field "${field}" is longer than ${maxLength} characters`);
  return value;
}

/** Refuses keys a payload section does not define, naming them. */
export function refuseExtra(object: Json, known: readonly string[], path: string): void {
  const extra = Object.keys(object).filter((key) => !known.includes(key));
  if (extra.length > 0) frappeThrow(`Unknown field${extra.length > 1 ? 's' : ''} ${extra.map((k) => `"${path}${k}"`).join(', ')}: allowed are ${known.join(', ')}`);
}
