// The admission decision for one inbox record: isolation_domain_ref first (missing or unknown:
// QUARANTINED, with no permissive default), then the record's shape against its contract
// (contracts/semantic_ingest_record_v1.json). Only an admitted record becomes a graph merge.

import RECORD_SCHEMA from '../../contracts/semantic_ingest_record_v1.json' with { type: 'json' };
import { isObject } from './_json.ts';
import { compileSchema } from './_schema.ts';
import { isIsolationDomain } from './isolation-domains.ts';
import { tenantHash } from './tenant-hash.ts';

export const INGEST_RECORD_SCHEMA: unknown = RECORD_SCHEMA;

export type QuarantineReason = 'record_malformed' | 'isolation_domain_ref_missing' | 'isolation_domain_ref_unknown' | 'record_invalid' | 'record_id_conflict';

export interface NodeMerge {
  kind: 'node';
  recordId: string;
  tenantHash: string;
  domain: string;
  nodeId: string;
  label: string;
  properties: string;
}

export interface EdgeMerge {
  kind: 'edge';
  recordId: string;
  tenantHash: string;
  domain: string;
  edgeId: string;
  from: string;
  to: string;
  relation: string;
  properties: string;
}

export type IngestDecision =
  | { state: 'MERGED'; merge: NodeMerge | EdgeMerge }
  | { state: 'QUARANTINED'; reason: QuarantineReason; detail: string; recordId: string | null };

const validator = compileSchema(RECORD_SCHEMA);

/**
 * Decides one inbox record from its stored text.
 *
 * @example
 * decideIngestRecord('{"record_id":"r1","tenant_id":"t","kind":"node","node_id":"n","label":"A"}');
 * // { state: 'QUARANTINED', reason: 'isolation_domain_ref_missing', ... }
 */
export function decideIngestRecord(text: string): IngestDecision {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return quarantine('record_malformed', `record is not JSON: ${(error as Error).message}`, null);
  }
  if (!isObject(value)) return quarantine('record_malformed', 'record is not a JSON object', null);
  const recordId = typeof value['record_id'] === 'string' ? value['record_id'].slice(0, 128) : null;
  const domain = value['isolation_domain_ref'];
  if (domain === undefined || domain === null || domain === '') {
    return quarantine('isolation_domain_ref_missing', 'record declares no isolation_domain_ref', recordId);
  }
  if (!isIsolationDomain(domain)) {
    return quarantine('isolation_domain_ref_unknown', 'isolation_domain_ref is not listed by the isolation-domains contract', recordId);
  }
  const { valid, errors } = validator.validate(value);
  if (!valid) return quarantine('record_invalid', errors.slice(0, 3).map((e) => e.message).join('; '), recordId);
  const unfaithful = findUnfaithfulValue(value, '');
  if (unfaithful !== undefined) return quarantine('record_invalid', `value at "${unfaithful}" cannot be kept as given (ill-formed Unicode, or a number outside the exact range)`, recordId);
  const record = value as Record<string, string> & { properties?: Record<string, unknown> };
  const common = {
    recordId: record['record_id']!,
    tenantHash: tenantHash(record['tenant_id']!),
    domain,
    properties: JSON.stringify(record.properties ?? {}),
  };
  if (record['kind'] === 'node') {
    return { state: 'MERGED', merge: { kind: 'node', ...common, nodeId: record['node_id']!, label: record['label']! } };
  }
  return { state: 'MERGED', merge: { kind: 'edge', ...common, edgeId: record['edge_id']!, from: record['from']!, to: record['to']!, relation: record['relation']! } };
}

export function quarantine(reason: QuarantineReason, detail: string, recordId: string | null): IngestDecision {
  return { state: 'QUARANTINED', reason, detail, recordId };
}

/**
 * Pointer of the first value that storage would change: a string or key that is not well-formed
 * Unicode (hashing and UTF-8 would merge it with others), or a number that JSON.parse could not
 * keep exactly (non-finite, or an integer beyond 2^53).
 */
export function findUnfaithfulValue(value: unknown, pointer: string): string | undefined {
  if (typeof value === 'string') return value.isWellFormed() ? undefined : pointer;
  if (typeof value === 'number') return Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value)) ? undefined : pointer;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const here = `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    if (!key.isWellFormed()) return here;
    const found = findUnfaithfulValue(item, here);
    if (found !== undefined) return found;
  }
  return undefined;
}
