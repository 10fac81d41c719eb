// The workspace candidate envelope: the required tenant, company, source, privacy, ACL and
// governance-admission references, flat or nested under `candidate` (both may be sent; a field
// given twice with two values is a conflict). Its canonical owner-backed route ref is derived from
// those six references alone, so every lane names the same candidate the same way.

import { createHash } from 'node:crypto';
import { canonicalJson } from '../../kernel/index.ts';
import { asObject, refuseExtra } from '../fields.ts';
import type { Json } from '../fields.ts';
import { frappeThrow } from '../frappe/envelope.ts';

export const REQUIRED_REFS = ['tenant_ref', 'company_ref', 'source_ref', 'privacy_ref', 'acl_ref', 'governance_admission_ref'] as const;
const OPTIONAL = ['title', 'summary', 'owner_readback_route_ref', 'readback_ref'] as const;
const REF = /^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,199}$/;

export type CandidateRefs = Record<(typeof REQUIRED_REFS)[number], string>;

export interface Candidate {
  refs: CandidateRefs;
  title: string | null;
  summary: string | null;
  /** The read lane's claimed owner readback ref, when sent. */
  claimedReadbackRef: string | null;
  /** sha256 of the canonical refs, hex (the identity of the review task). */
  key: string;
  routeRef: string;
}

function pick(flat: Json, nested: Json | undefined, field: string): unknown {
  const outer = flat[field];
  const inner = nested?.[field];
  if (outer !== undefined && inner !== undefined && JSON.stringify(outer) !== JSON.stringify(inner)) {
    frappeThrow(`Conflicting field "${field}": the envelope and "candidate" give two values`);
  }
  return outer ?? inner;
}

export function normalizeCandidate(body: unknown): Candidate {
  const envelope = asObject(body, 'envelope');
  const nested = envelope['candidate'] === undefined ? undefined : asObject(envelope['candidate'], 'candidate');
  refuseExtra(envelope, ['candidate', ...REQUIRED_REFS, ...OPTIONAL], '');
  if (nested) refuseExtra(nested, [...REQUIRED_REFS, ...OPTIONAL], 'candidate.');
  const missing = REQUIRED_REFS.filter((field) => pick(envelope, nested, field) === undefined);
  if (missing.length > 0) frappeThrow(`Missing required field${missing.length > 1 ? 's' : ''} ${missing.map((f) => `"${f}"`).join(', ')}: send them flat or under "candidate"`);
  const refs = Object.fromEntries(REQUIRED_REFS.map((field) => {
    const value = pick(envelope, nested, field);
    if (typeof value !== 'string' || !REF.test(value)) frappeThrow(`Field "${field}" must be a reference (1 to 200 letters, digits or ._:/@-), got ${JSON.stringify(value)}`);
    return [field, value];
  })) as CandidateRefs;
  const text = (field: string, max: number): string | null => {
    const value = pick(envelope, nested, field);
    if (value === undefined || value === null) return null;
    if (typeof value !== 'string' || value.length > max) frappeThrow(`Field "${field}" must be a string of at most ${max} characters`);
    return value;
  };
  const routeRef = text('owner_readback_route_ref', 300);
  const readbackRef = text('readback_ref', 300);
  if (routeRef !== null && readbackRef !== null && routeRef !== readbackRef) frappeThrow('Conflicting fields "owner_readback_route_ref" and "readback_ref": send one');
  const key = createHash('sha256').update(canonicalJson(refs)).digest('hex');
  return { refs, title: text('title', 140), summary: text('summary', 2000), claimedReadbackRef: routeRef ?? readbackRef, key, routeRef: canonicalRouteRef(key) };
}

/** The owner-backed route ref of a candidate: where its owner readback lives. */
export function canonicalRouteRef(key: string): string {
  return `erp://workspace-binding/candidates/${key.slice(0, 32)}`;
}
