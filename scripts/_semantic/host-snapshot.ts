// The parts of export_host_runtime_snapshot, each read-only: service versions (the installed
// release, each bundle against its hash, the running API), the stack contract, the control
// database (schema version, schema integrity, evidence chains, inbox), the memory lane (lane
// posture at the activation stage), the rollback window (install-state.json of an installed
// prefix) and the legacy-retirement readback (the memory-to-graph migration gate).

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { userVersion, verifyAllChains } from '../../src/kernel/index.ts';
import { ACTIVATION_STAGES, CONTROL_SCHEMA_VERSION, checkSchemaIntegrity, lanePosture, unavailable } from '../../src/semantic/index.ts';
import type { ActivationStage } from '../../src/semantic/index.ts';
import { isObject, listOf, objectOf, readOptionalJsonFile, sha256Hex } from './json-file.ts';
import { distPath, metadataFiles, stackExecutables, stackServices } from './install-root.ts';
import { openReadOnlyQuietly } from './read-only-database.ts';
import type { InstallRoot } from './install-root.ts';

export const INSTALL_STATE_PATH = 'install-state.json';
export const DATABASE_FILE = 'semantic.sqlite';

/** The installed release and every bundle of the stack contract against the metadata's hash. */
export function serviceVersions(root: InstallRoot): { readback: Record<string, unknown>; reasons: string[] } {
  if (root.metadata === undefined) return { readback: { installed: unavailable('dist/package-metadata.json is missing: nothing built or installed') }, reasons: [] };
  const files = metadataFiles(root.metadata.doc);
  const reasons: string[] = [];
  const bundles = [...new Set(stackExecutables(root.stack.doc).map((e) => e.bundle))].sort().map((bundle) => {
    const expected = files.get(bundle.replace(/^dist\//, '')) ?? null;
    const file = distPath(root.root, bundle.replace(/^dist\//, ''));
    const actual = existsSync(file) ? sha256Hex(readFileSync(file)) : null;
    const intact = expected !== null && actual === expected;
    if (!intact) reasons.push(`bundle "${bundle}" ${actual === null ? 'is missing' : expected === null ? 'is not listed by the package metadata' : 'does not match its package-metadata hash'}`);
    return { bundle, sha256: actual, intact };
  });
  const meta = objectOf(root.metadata.doc);
  return { readback: { installed: { status: 'available', version: meta['version'], revision: meta['revision'] }, bundles }, reasons };
}

/** Services, executables, listeners and volumes of the stack contract, with its hash. */
export function stackReadback(root: InstallRoot): Record<string, unknown> {
  return {
    file: root.stack.path,
    sha256: root.stack.sha256,
    services: stackServices(root.stack.doc).map((service) => ({
      service: service['service'],
      executables: stackExecutables(root.stack.doc).filter((e) => e.service === service['service']).map(({ name, role, bundle, args, listeners }) => ({ name, role, bundle, args, listeners })),
      volumes: listOf(service['volumes']),
    })),
  };
}

/** The control database, opened read-only: schema version, integrity, evidence chains, inbox counts. */
export function databaseReadback(dataDir: string): { readback: Record<string, unknown>; reasons: string[] } {
  const path = join(dataDir, DATABASE_FILE);
  if (!existsSync(path)) return { readback: { file: path, ...unavailable('the control database does not exist yet') }, reasons: [] };
  const sqlite = openReadOnlyQuietly(path);
  try {
    const version = userVersion(sqlite);
    const integrity = checkSchemaIntegrity(sqlite);
    const chains = verifyAllChains(sqlite);
    const has = (table: string) => sqlite.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(table) !== undefined;
    const count = (sql: string) => Number(sqlite.prepare(sql).get()?.['n'] ?? 0);
    const inbox = has('ingest_inbox') && has('ingest_outcomes')
      ? {
        records: count('SELECT count(*) AS n FROM ingest_inbox'),
        undecided: count('SELECT count(*) AS n FROM ingest_inbox WHERE seq > (SELECT coalesce(max(inbox_seq), 0) FROM ingest_outcomes)'),
        quarantined: count("SELECT count(*) AS n FROM ingest_outcomes WHERE state = 'QUARANTINED'"),
      }
      : unavailable('the inbox tables do not exist');
    const reasons = [
      ...(integrity.status === 'pass' ? [] : [`schema integrity fails: ${integrity.reasons.slice(0, 3).join('; ')}`]),
      ...chains.filter((c) => !c.ok).map((c) => `evidence chain "${c.table}" is broken at seq ${c.seq ?? '(none)'}: ${c.reason}`),
    ];
    return {
      readback: {
        file: path,
        status: 'available',
        user_version: version,
        expected_user_version: CONTROL_SCHEMA_VERSION,
        schema_integrity: { status: integrity.status, observed_schema_sha256: integrity.observed_schema_sha256, reasons: integrity.reasons },
        evidence_chains: chains,
        inbox,
      },
      reasons,
    };
  } finally {
    sqlite.close();
  }
}

/** The memory lane at the configured activation stage (SEMANTIC_ACTIVATION_STAGE, SEMANTIC_VECTOR_STORE_URL). */
export function configuredMemoryLane(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const raw = env['SEMANTIC_ACTIVATION_STAGE'] ?? 'S0';
  if (!(ACTIVATION_STAGES as readonly string[]).includes(raw)) return { source: 'configuration', ...unavailable(`SEMANTIC_ACTIVATION_STAGE "${raw}" is not an activation stage`) };
  const stage = raw as ActivationStage;
  return { source: 'configuration', stage, lanes: lanePosture(stage, { vectorStoreConfigured: (env['SEMANTIC_VECTOR_STORE_URL'] ?? '') !== '' }) };
}

/** The rollback window of an installed prefix: the current release and the retained earlier ones, each checked against its metadata. */
export function rollbackWindow(root: string): { readback: Record<string, unknown>; reasons: string[] } {
  const state = readOptionalJsonFile(root, INSTALL_STATE_PATH);
  if (state === undefined) return { readback: { ...unavailable(`${INSTALL_STATE_PATH} is missing: not a prefix installed by install_memory.sh`) }, reasons: [] };
  const doc = objectOf(state.doc);
  const reasons: string[] = [];
  const retained = listOf(doc['rollback']).filter(isObject).map((entry) => {
    const dir = join(root, String(entry['path']));
    const metadata = readOptionalJsonFile(dir, 'dist/package-metadata.json');
    const files = metadata === undefined ? new Map<string, string>() : metadataFiles(metadata.doc);
    const intact = metadata !== undefined && [...files].every(([path, sha256]) => existsSync(join(dir, 'dist', path)) && sha256Hex(readFileSync(join(dir, 'dist', path))) === sha256);
    if (!intact) reasons.push(`retained release "${String(entry['version'])}" under "${String(entry['path'])}" is not intact`);
    return { version: entry['version'], revision: entry['revision'] ?? null, path: entry['path'], retained_at: entry['retained_at'] ?? null, intact };
  });
  return { readback: { status: 'available', current: doc['current'] ?? null, retention: doc['retention'] ?? null, rollback: retained }, reasons };
}

/** Whether legacy memory is retired: the memory-to-graph migration entry of ts01_consumer_matrix and the governance runtime claims. */
export function legacyRetirement(root: string): Record<string, unknown> {
  const cdc = readOptionalJsonFile(root, 'contracts/api/semantic_cdc_v1.json');
  const entry = listOf(objectOf(objectOf(cdc?.doc)['ts01_consumer_matrix'])['consumers']).map(objectOf).find((c) => c['consumer'] === 'memory-to-graph-migration');
  if (entry === undefined) return { ...unavailable('ts01_consumer_matrix has no memory-to-graph-migration entry') };
  const claims = readOptionalJsonFile(root, 'contracts/governance/memory_runtime_claims_v1.json');
  const catalog = objectOf(objectOf(objectOf(claims?.doc)['content'])['catalog']);
  const admitted = entry['status'] === 'admitted' && entry['claims_green'] === true;
  return {
    status: 'available',
    state: admitted ? 'migration_admitted' : 'legacy_memory_retained',
    retired: false,
    gate: { consumer: entry['consumer'], status: entry['status'], claims_green: entry['claims_green'], description: entry['description'] },
    governance_runtime_claims: claims === undefined
      ? unavailable('contracts/governance/memory_runtime_claims_v1.json is missing')
      : { claims: listOf(catalog['claims']).length, gated_entries: listOf(catalog['gated_entries']) },
  };
}
