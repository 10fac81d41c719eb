// Reads a JSON file that the service depends on (a manifest, the stack contract, another
// service's contract) into data: present and parsed, or absent or broken with the reason.

import { existsSync, readFileSync } from 'node:fs';

export type JsonFile<T = unknown> =
  | { ok: true; path: string; document: T }
  | { ok: false; path: string; reason: 'missing' | 'invalid'; detail: string };

export function readJsonFile<T = unknown>(path: string, check?: (value: unknown) => string | undefined): JsonFile<T> {
  if (!existsSync(path)) return { ok: false, path, reason: 'missing', detail: `file "${path}" does not exist` };
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    return { ok: false, path, reason: 'invalid', detail: `file "${path}" is not JSON: ${(error as Error).message}` };
  }
  const problem = check?.(document);
  if (problem !== undefined) return { ok: false, path, reason: 'invalid', detail: `file "${path}": ${problem}` };
  return { ok: true, path, document: document as T };
}
