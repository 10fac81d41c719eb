// The shared dev secrets file of `npm start` (var/dev-secrets.json, mode 0600): one entry per
// service, each a map of generated secrets that later starts keep. Other services' entries are
// never touched. A file that is not a JSON object is refused without quoting it (it holds secrets).

import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeFileAtomic } from './write-file-atomic.ts';

export const DEV_SECRETS_FILE = 'dev-secrets.json';

/**
 * The service's dev secrets, generating (and saving) each missing one with `generate(name)`.
 *
 * @example
 * const { path, secrets } = ensureDevSecrets('var', 'erp', ['api_key'], () => randomBytes(24).toString('base64url'));
 */
export function ensureDevSecrets<N extends string>(varDir: string, service: string, names: readonly N[], generate: (name: N) => string): { path: string; secrets: Record<N, string> } {
  const dir = resolve(varDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, DEV_SECRETS_FILE);
  let all: unknown = {};
  if (existsSync(path)) {
    try {
      all = JSON.parse(readFileSync(path, 'utf8'));
    } catch {
      // The parser's message would quote the file, secrets and all.
      throw new TypeError(`Dev secrets file "${path}" is not JSON: remove it to regenerate`);
    }
  }
  if (typeof all !== 'object' || all === null || Array.isArray(all)) throw new TypeError(`Dev secrets file "${path}" does not hold a JSON object: remove it to regenerate`);
  const record = all as Record<string, unknown>;
  const current = (record[service] ?? {}) as Record<string, unknown>;
  const secrets = Object.fromEntries(names.map((name) => [name, typeof current[name] === 'string' ? current[name] : generate(name)])) as Record<N, string>;
  writeFileAtomic(path, `${JSON.stringify({ ...record, [service]: secrets }, null, 2)}\n`, { mode: 0o600 });
  return { path, secrets };
}
