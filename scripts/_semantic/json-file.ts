// Reading the JSON files of an install root (a checkout or an installed prefix): each read keeps
// the file's SHA-256 so that reports and exports can say exactly which bytes they were derived
// from. A missing or unparsable file is an environment error (exit 2), named with its path.

import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AirlockError } from '../../src/kernel/index.ts';

export interface JsonFile {
  /** Path relative to the root, as reports name it. */
  path: string;
  doc: unknown;
  sha256: string;
}

/** True for a JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Lower-case hex SHA-256 of bytes or UTF-8 text. */
export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Reads `<root>/<path>` as JSON; throws AirlockError('environment') naming the file otherwise. */
export function readJsonFile(root: string, path: string): JsonFile {
  return { ...readJsonAt(join(root, path)), path };
}

/** Reads the JSON file an option names (absolute or relative to the working directory); `what` names it in errors. */
export function readJsonAt(file: string, what = ''): JsonFile {
  const named = `${what}${what ? ' ' : ''}"${file}"`;
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new AirlockError('environment', `Cannot read ${named}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
  }
  try {
    return { path: file, doc: JSON.parse(bytes.toString('utf8')) as unknown, sha256: sha256Hex(bytes) };
  } catch (error) {
    throw new AirlockError('environment', `Cannot read ${named}: not JSON: ${(error as Error).message}`, { cause: error });
  }
}

/** Like readJsonFile, but a missing file is `undefined` (optional inputs such as a build's metadata). */
export function readOptionalJsonFile(root: string, path: string): JsonFile | undefined {
  return existsSync(join(root, path)) ? readJsonFile(root, path) : undefined;
}

/** Members of `value` as an object, or an empty object when it is not one. */
export function objectOf(value: unknown): Record<string, unknown> {
  return isObject(value) ? value : {};
}

/** `value` as a list, or an empty list when it is not one. */
export function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
