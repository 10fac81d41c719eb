// Loads the OpenAPI 3.x export that drives a sweep, from a file or from the target's
// /api/v1/openapi.json, and keeps the SHA-256 of its exact bytes for the evidence file.

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { AirlockError } from '../../src/kernel/index.ts';
import { sendGet } from './send.ts';
import type { SendGet } from './send.ts';

export const EXPORT_PATH = '/api/v1/openapi.json';

export interface LoadedExport {
  /** The file path or URL it came from. */
  source: string;
  sha256: string;
  document: Record<string, unknown>;
}

export interface LoadExportOptions {
  baseUrl: string;
  /** A local export; when absent the export is fetched from the base URL. */
  file?: string;
  timeoutMs: number;
  send?: SendGet;
}

/** Loads and checks the export; throws AirlockError('environment') when it cannot be used. */
export async function loadExport(options: LoadExportOptions): Promise<LoadedExport> {
  const { source, bytes } = options.file !== undefined ? await readExportFile(options.file) : await fetchExport(options);
  let document: unknown;
  try {
    document = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new AirlockError('environment', `Cannot use the OpenAPI export "${source}": not JSON: ${(error as Error).message}`);
  }
  const problem = exportProblem(document);
  if (problem) throw new AirlockError('environment', `Cannot use the OpenAPI export "${source}": ${problem}`);
  return { source, sha256: createHash('sha256').update(bytes).digest('hex'), document: document as Record<string, unknown> };
}

/** Why `document` is not an OpenAPI 3.x document with paths, or undefined when it is. */
export function exportProblem(document: unknown): string | undefined {
  if (document === null || typeof document !== 'object' || Array.isArray(document)) return 'not a JSON object';
  const version = (document as Record<string, unknown>)['openapi'];
  if (typeof version !== 'string' || !/^3\.\d+\.\d+/.test(version)) return `"openapi" is ${JSON.stringify(version ?? null)}, expected 3.x.y`;
  const paths = (document as Record<string, unknown>)['paths'];
  if (paths === null || typeof paths !== 'object' || Array.isArray(paths)) return '"paths" is not an object';
  return undefined;
}

async function readExportFile(file: string): Promise<{ source: string; bytes: Buffer }> {
  try {
    return { source: file, bytes: await readFile(file) };
  } catch (error) {
    throw new AirlockError('environment', `Cannot read the OpenAPI export "${file}": ${(error as Error).message}`, { cause: error });
  }
}

async function fetchExport(options: LoadExportOptions): Promise<{ source: string; bytes: Buffer }> {
  const source = `${options.baseUrl.replace(/\/+$/, '')}${EXPORT_PATH}`;
  const outcome = await (options.send ?? sendGet)(source, { timeoutMs: options.timeoutMs, keepBody: true });
  if (!outcome.ok) throw new AirlockError('environment', `Cannot fetch the OpenAPI export "${source}": ${outcome.code}: ${outcome.message}`);
  if (outcome.status !== 200) throw new AirlockError('environment', `Cannot fetch the OpenAPI export "${source}": status ${outcome.status}`);
  return { source, bytes: outcome.body ?? Buffer.alloc(0) };
}
