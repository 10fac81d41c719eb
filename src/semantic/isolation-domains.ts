// The isolation domains (compartments) of the semantic graph, read from their contract file,
// which is compiled into every bundle: fifteen baseline domains plus the governed extension
// customer_relationship. The control database's CHECK constraint is built from this list.

import CONTRACT from '../../contracts/semantic_isolation_domains_v1.json' with { type: 'json' };
import { isObject } from './_json.ts';

export const ISOLATION_DOMAINS_CONTRACT: unknown = CONTRACT;

/** Every admitted isolation_domain_ref, baseline first, in contract order. */
export const ISOLATION_DOMAIN_REFS: readonly string[] = Object.freeze([
  ...CONTRACT.baseline.map((d) => d.ref),
  ...CONTRACT.governed_extensions.map((d) => d.ref),
]);

export const BASELINE_DOMAIN_COUNT = 15;
export const GOVERNED_EXTENSION = 'customer_relationship';

const REF = /^[a-z][a-z0-9_]{0,62}$/;
const ADMITTED = new Set(ISOLATION_DOMAIN_REFS);

/** True when `value` is an admitted isolation_domain_ref. */
export function isIsolationDomain(value: unknown): value is string {
  return typeof value === 'string' && ADMITTED.has(value);
}

/**
 * Checks an isolation-domains contract document: fifteen baseline domains, the governed
 * extension customer_relationship, unique SQL-safe references.
 */
export function checkIsolationDomainsContract(doc: unknown): { ok: boolean; reasons: string[] } {
  const reasons: string[] = [];
  const record = isObject(doc) ? doc : {};
  if (!isObject(doc)) reasons.push('contract is not a JSON object');
  const baseline = refsOf(record['baseline'], 'baseline', reasons);
  const extensions = refsOf(record['governed_extensions'], 'governed_extensions', reasons);
  if (baseline.length !== BASELINE_DOMAIN_COUNT) reasons.push(`baseline lists ${baseline.length} domains, expected ${BASELINE_DOMAIN_COUNT}`);
  if (!extensions.includes(GOVERNED_EXTENSION)) reasons.push(`governed_extensions does not list "${GOVERNED_EXTENSION}"`);
  if (baseline.includes(GOVERNED_EXTENSION)) reasons.push(`"${GOVERNED_EXTENSION}" is a governed extension, not a baseline domain`);
  const all = [...baseline, ...extensions];
  for (const ref of all) if (!REF.test(ref)) reasons.push(`domain "${ref}" is not a lower-case identifier`);
  const duplicates = all.filter((ref, index) => all.indexOf(ref) !== index);
  for (const ref of new Set(duplicates)) reasons.push(`domain "${ref}" is listed twice`);
  return { ok: reasons.length === 0, reasons };
}

function refsOf(list: unknown, where: string, reasons: string[]): string[] {
  if (!Array.isArray(list)) {
    reasons.push(`${where} is not a list`);
    return [];
  }
  return list.flatMap((entry, index) => {
    if (isObject(entry) && typeof entry['ref'] === 'string') return [entry['ref']];
    reasons.push(`${where}[${index}] has no string "ref"`);
    return [];
  });
}

