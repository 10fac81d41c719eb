// The materialized mail-admission file (written by `materialize_mail_admission --apply` from a
// commit of main: which sender domains and mailboxes are admitted, with which scopes), served by
// the admission readback as it was materialized, signed as one list so a mail service can verify
// it with the JWKS. The file is read when the readback is read, so an apply is served at once;
// absent or unusable, it admits no sender and the readback says why.

import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import type { GovernanceRuntime } from '../runtime.ts';
import { signCompactJws } from './jws.ts';

export const MATERIALIZED_FORMAT = 'airlock.mail_admission.v1';
/** A materialized file larger than this is not one the materializer wrote. */
const MAX_FILE_BYTES = 1024 * 1024;

export interface MaterializedSender {
  sender: string;
  kind: 'domain' | 'mailbox';
  scopes: string[];
  note?: string;
}

export type MaterializedReadback =
  | { state: 'materialized'; file: string; sha256: string; source: { commit: string; path: string; sha256: string }; admissions: MaterializedSender[]; count: number; token: string }
  | { state: 'not_materialized' | 'invalid'; file: string; detail: string; admissions: []; count: 0 };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What the materialized file says, checked the way the materializer writes it; every problem named. */
function parseMaterialized(text: string): { ok: true; source: { commit: string; path: string; sha256: string }; admissions: MaterializedSender[] } | { ok: false; detail: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, detail: `not JSON: ${(error as Error).message}` };
  }
  if (!isRecord(value) || value['format'] !== MATERIALIZED_FORMAT) return { ok: false, detail: `"format" is not "${MATERIALIZED_FORMAT}"` };
  const source = value['source'];
  if (!isRecord(source) || typeof source['commit'] !== 'string' || !/^[0-9a-f]{40}$/.test(source['commit']) || typeof source['path'] !== 'string' || typeof source['sha256'] !== 'string' || !/^[0-9a-f]{64}$/.test(source['sha256'])) {
    return { ok: false, detail: '"source" must name a 40-hex commit, a path and a 64-hex sha256' };
  }
  if (!Array.isArray(value['admissions'])) return { ok: false, detail: '"admissions" is not an array' };
  const admissions: MaterializedSender[] = [];
  for (const [i, entry] of value['admissions'].entries()) {
    const ok = isRecord(entry) && typeof entry['sender'] === 'string' && (entry['kind'] === 'domain' || entry['kind'] === 'mailbox')
      && Array.isArray(entry['scopes']) && entry['scopes'].length > 0 && entry['scopes'].every((s) => typeof s === 'string') && (entry['note'] === undefined || typeof entry['note'] === 'string');
    if (!ok) return { ok: false, detail: `admission ${i} is not a sender with a kind and a non-empty list of scopes` };
    admissions.push({ sender: entry['sender'] as string, kind: entry['kind'] as MaterializedSender['kind'], scopes: [...(entry['scopes'] as string[])], ...(typeof entry['note'] === 'string' && { note: entry['note'] }) });
  }
  return { ok: true, source: { commit: source['commit'], path: source['path'], sha256: source['sha256'] }, admissions };
}

/** The materialized admissions as the file holds them now, signed; or why there are none. */
export function materializedAdmissions(runtime: GovernanceRuntime, claims: { iss: string; aud: string }): MaterializedReadback {
  const path = runtime.config.mailAdmissionFile;
  const file = basename(path);
  let bytes: Buffer;
  try {
    if (statSync(path).size > MAX_FILE_BYTES) return { state: 'invalid', file, detail: `larger than ${MAX_FILE_BYTES} bytes: not a materialized file`, admissions: [], count: 0 };
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { state: 'not_materialized', file, detail: 'no materialized file: run materialize_mail_admission --apply for a commit of main', admissions: [], count: 0 };
    return { state: 'invalid', file, detail: `cannot be read (${code ?? 'error'})`, admissions: [], count: 0 };
  }
  const parsed = parseMaterialized(bytes.toString('utf8'));
  if (!parsed.ok) return { state: 'invalid', file, detail: parsed.detail, admissions: [], count: 0 };
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (!runtime.signingKey.ok) throw new TypeError('materializedAdmissions() needs a usable signing key');
  const token = signCompactJws({ ...claims, materialized_sha256: sha256, source: parsed.source, admissions: parsed.admissions }, runtime.signingKey);
  return { state: 'materialized', file, sha256, source: parsed.source, admissions: parsed.admissions, count: parsed.admissions.length, token };
}
