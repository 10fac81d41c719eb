// The mail-admission source (a JSON file kept in the repository: which sender domains and
// mailboxes are admitted, with which scopes) and the materialized file made from it. The
// materialized bytes depend only on the source and the commit, so applying the same commit
// twice changes nothing.

export const SOURCE_VERSION = 1;
export const MATERIALIZED_FORMAT = 'airlock.mail_admission.v1';

export interface Admission {
  sender: string;
  kind: 'domain' | 'mailbox';
  scopes: string[];
  note?: string;
}

export interface MaterializedAdmission {
  format: typeof MATERIALIZED_FORMAT;
  source: { commit: string; path: string; sha256: string };
  admissions: Admission[];
}

export type SourceCheck = { ok: true; admissions: Admission[] } | { ok: false; reasons: string[] };

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const DOMAIN = new RegExp(`^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})+$`);
const LOCAL_PART = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const SCOPE = /^[a-z][a-z0-9_]*(?:[.:][a-z][a-z0-9_]*)*$/;

/** Parses and validates the source text; every problem is listed, with a JSON pointer. */
export function checkAdmissionSource(text: string): SourceCheck {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reasons: [`Source is not JSON: ${(error as Error).message}`] };
  }
  const reasons: string[] = [];
  if (!isObject(value)) return { ok: false, reasons: ['Source must be a JSON object'] };
  unknownKeys(value, ['version', 'admissions'], '', reasons);
  if (value['version'] !== SOURCE_VERSION) reasons.push(`/version: must be ${SOURCE_VERSION}, got ${JSON.stringify(value['version'] ?? null)}`);
  if (!Array.isArray(value['admissions'])) return { ok: false, reasons: [...reasons, '/admissions: must be an array'] };
  const admissions: Admission[] = [];
  const seen = new Set<string>();
  value['admissions'].forEach((entry: unknown, index: number) => {
    const at = `/admissions/${index}`;
    if (!isObject(entry)) return void reasons.push(`${at}: must be an object`);
    unknownKeys(entry, ['sender', 'scopes', 'note'], at, reasons);
    const sender = entry['sender'];
    const kind = typeof sender === 'string' ? senderKind(sender) : undefined;
    if (kind === undefined) reasons.push(`${at}/sender: must be a lowercase domain ("example.org") or mailbox ("ops@example.org"), got ${JSON.stringify(sender ?? null)}`);
    else if (seen.has(sender as string)) reasons.push(`${at}/sender: "${String(sender)}" is admitted twice`);
    else seen.add(sender as string);
    if (entry['note'] !== undefined && typeof entry['note'] !== 'string') reasons.push(`${at}/note: must be a string`);
    const scopes = entry['scopes'];
    if (!Array.isArray(scopes) || scopes.length === 0) return void reasons.push(`${at}/scopes: must be a non-empty array`);
    scopes.forEach((scope: unknown, j: number) => {
      if (typeof scope !== 'string' || !SCOPE.test(scope)) reasons.push(`${at}/scopes/${j}: must be a scope name like "mail_management.read", got ${JSON.stringify(scope)}`);
      else if (scopes.indexOf(scope) !== j) reasons.push(`${at}/scopes/${j}: "${scope}" is listed twice`);
    });
    const note = typeof entry['note'] === 'string' ? { note: entry['note'] } : {};
    if (kind !== undefined) admissions.push({ sender: sender as string, kind, scopes: [...(scopes as string[])].sort(), ...note });
  });
  if (reasons.length > 0) return { ok: false, reasons };
  return { ok: true, admissions: admissions.sort((a, b) => (a.sender < b.sender ? -1 : a.sender > b.sender ? 1 : 0)) };
}

/** The materialized file's text: sorted, two-space JSON, one trailing newline. */
export function renderMaterialized(admissions: Admission[], source: MaterializedAdmission['source']): string {
  const document: MaterializedAdmission = { format: MATERIALIZED_FORMAT, source, admissions };
  return `${JSON.stringify(document, null, 2)}\n`;
}

function senderKind(sender: string): Admission['kind'] | undefined {
  const at = sender.lastIndexOf('@');
  if (at < 0) return DOMAIN.test(sender) ? 'domain' : undefined;
  const local = sender.slice(0, at);
  return local.length <= 64 && LOCAL_PART.test(local) && DOMAIN.test(sender.slice(at + 1)) ? 'mailbox' : undefined;
}

function unknownKeys(object: Record<string, unknown>, known: string[], at: string, reasons: string[]): void {
  for (const key of Object.keys(object)) if (!known.includes(key)) reasons.push(`${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}: unknown property`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
