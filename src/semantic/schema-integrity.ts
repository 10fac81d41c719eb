// The schema-integrity receipt: an actual check of the control database's graph schema (its
// tables, indexes and the isolation-domain CHECK constraints) against the expected schema hash
// committed in contracts/semantic_control_schema_v1.json. A tampered, missing or unmigrated
// schema fails with reasons; the receipt is bounded and never includes row content.

import type { DatabaseSync } from 'node:sqlite';
import { userVersion } from '../kernel/index.ts';
import CONTRACT from '../../contracts/semantic_control_schema_v1.json' with { type: 'json' };
import { GRAPH_SCHEMA_TABLES } from './control-schema.ts';
import { digestOf } from './digest.ts';
import { ISOLATION_DOMAIN_REFS } from './isolation-domains.ts';

export interface ExpectedControlSchema {
  user_version: number;
  tables: readonly string[];
  indexes: readonly string[];
  schema_sha256: string;
}

export const EXPECTED_CONTROL_SCHEMA: ExpectedControlSchema = CONTRACT;

/** Most reasons a receipt lists; the count of the rest is reported instead. */
export const MAX_REASONS = 20;

export interface SchemaObject {
  type: string;
  name: string;
  tbl_name: string;
  /** The CREATE statement with runs of whitespace collapsed; null for automatic indexes. */
  sql: string | null;
}

export interface SchemaIntegrityReceipt {
  status: 'pass' | 'fail';
  check: 'control_database_graph_schema';
  user_version: number;
  expected_user_version: number;
  expected_schema_sha256: string;
  observed_schema_sha256: string;
  tables: { name: string; present: boolean }[];
  indexes: { name: string; present: boolean }[];
  isolation_domain_check: { columns: number; domains: number; matches_contract: boolean };
  reasons: string[];
}

/** Every schema object (tables, indexes, triggers) belonging to the graph tables, by name. */
export function describeGraphSchema(sqlite: DatabaseSync): { objects: SchemaObject[]; sha256: string } {
  const placeholders = GRAPH_SCHEMA_TABLES.map(() => '?').join(', ');
  const objects = sqlite
    .prepare(`SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE tbl_name IN (${placeholders}) ORDER BY name`)
    .all(...GRAPH_SCHEMA_TABLES)
    .map((row) => ({
      type: String(row['type']),
      name: String(row['name']),
      tbl_name: String(row['tbl_name']),
      sql: typeof row['sql'] === 'string' ? row['sql'].replace(/\s+/g, ' ').trim() : null,
    }));
  return { objects, sha256: digestOf(objects) };
}

/**
 * Checks the live schema against the expected one; never throws for a bad schema.
 *
 * @example
 * const receipt = checkSchemaIntegrity(store.sqlite);
 * if (receipt.status === 'fail') console.error(receipt.reasons.join('\n'));
 */
export function checkSchemaIntegrity(sqlite: DatabaseSync, expected: ExpectedControlSchema = EXPECTED_CONTROL_SCHEMA): SchemaIntegrityReceipt {
  const reasons: string[] = [];
  const version = userVersion(sqlite);
  if (version !== expected.user_version) reasons.push(`user_version is ${version}, expected ${expected.user_version}: the control database is not migrated to this code`);
  const { objects, sha256 } = describeGraphSchema(sqlite);
  const tables = expected.tables.map((name) => ({ name, present: objects.some((o) => o.type === 'table' && o.name === name) }));
  const indexes = expected.indexes.map((name) => ({ name, present: objects.some((o) => o.type === 'index' && o.name === name) }));
  for (const { name, present } of [...tables, ...indexes]) if (!present) reasons.push(`schema object "${name}" is missing`);
  for (const object of objects) {
    if (!expected.tables.includes(object.name) && !expected.indexes.includes(object.name)) reasons.push(`schema object "${object.name}" (${object.type}) is not expected`);
  }
  const domainCheck = checkDomainConstraints(objects.filter((o) => o.type === 'table'), reasons);
  if (sha256 !== expected.schema_sha256) reasons.push('schema hash differs from the expected hash: a definition or constraint was changed');
  const shown = reasons.length > MAX_REASONS ? [...reasons.slice(0, MAX_REASONS), `${reasons.length - MAX_REASONS} more reasons`] : reasons;
  return {
    status: reasons.length === 0 ? 'pass' : 'fail',
    check: 'control_database_graph_schema',
    user_version: version,
    expected_user_version: expected.user_version,
    expected_schema_sha256: expected.schema_sha256,
    observed_schema_sha256: sha256,
    tables,
    indexes,
    isolation_domain_check: domainCheck,
    reasons: shown,
  };
}

// Each graph table must restrict isolation_domain_ref to exactly the contract's domains.
function checkDomainConstraints(tables: SchemaObject[], reasons: string[]): SchemaIntegrityReceipt['isolation_domain_check'] {
  const wanted = [...ISOLATION_DOMAIN_REFS].sort().join(',');
  let columns = 0;
  let matches = true;
  for (const table of tables) {
    const lists = [...(table.sql ?? '').matchAll(/isolation_domain_ref IN \(([^)]*)\)/g)].map((m) =>
      m[1]!.split(',').map((item) => item.trim().replace(/^'|'$/g, '')).sort().join(','),
    );
    if (lists.length === 0) {
      matches = false;
      reasons.push(`table "${table.name}" has no isolation_domain_ref CHECK constraint`);
    }
    for (const list of lists) {
      columns++;
      if (list !== wanted) {
        matches = false;
        reasons.push(`table "${table.name}" restricts isolation_domain_ref to other domains than the contract lists`);
      }
    }
  }
  return { columns, domains: ISOLATION_DOMAIN_REFS.length, matches_contract: matches && columns > 0 };
}
