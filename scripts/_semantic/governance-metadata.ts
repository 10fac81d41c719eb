// The governance metadata for consumers, derived (never hand-written) from an install root: per
// service its identity, capabilities, executables with listeners and bundle hashes, endpoints from
// its OpenAPI contract, contract files with hashes, dependencies, consumed surfaces and consumer
// matrices; plus the release the bundles were built as. Deterministic: no clock, sorted members.

import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isObject, listOf, objectOf, sha256Hex } from './json-file.ts';
import { manifestServices, metadataFiles, stackExecutables } from './install-root.ts';
import type { InstallRoot } from './install-root.ts';
import { listOperations } from './openapi-operations.ts';

export const METADATA_KIND = 'airlock_governance_metadata';

export interface DerivedMetadata {
  doc: Record<string, unknown>;
  /** Inconsistencies found while deriving (a listed contract file that is missing or not JSON). */
  reasons: string[];
}

function contractEntry(root: string, path: string, reasons: string[], service: string): Record<string, unknown> {
  const file = join(root, path);
  if (!existsSync(file)) {
    reasons.push(`contract "${path}" of "${service}" is listed by the manifest but missing`);
    return { path, sha256: null };
  }
  if (statSync(file).isDirectory()) return { path, kind: 'directory' };
  const bytes = readFileSync(file);
  return { path, sha256: sha256Hex(bytes) };
}

/** Consumer matrices (members named *_consumer_matrix) of the service's contract files. */
function consumerMatrices(root: string, contracts: readonly string[], reasons: string[]): Record<string, unknown> {
  const matrices: Record<string, unknown> = {};
  for (const path of contracts.filter((p) => p.endsWith('.json') && existsSync(join(root, p)) && statSync(join(root, p)).isFile())) {
    let doc: unknown;
    try {
      doc = JSON.parse(readFileSync(join(root, path), 'utf8'));
    } catch (error) {
      reasons.push(`contract "${path}" is not JSON: ${(error as Error).message}`);
      continue;
    }
    for (const [key, value] of Object.entries(objectOf(doc))) {
      if (!key.endsWith('_consumer_matrix')) continue;
      matrices[key] = {
        contract: path,
        consumers: listOf(objectOf(value)['consumers']).map(objectOf).map((c) => ({
          consumer: c['consumer'], status: c['status'], claims_green: c['claims_green'], surfaces: listOf(c['surfaces']),
        })),
      };
    }
  }
  return matrices;
}

/** Derives the metadata document of `root`. */
export function deriveGovernanceMetadata(root: InstallRoot): DerivedMetadata {
  const reasons: string[] = [];
  const bundles = root.metadata === undefined ? new Map<string, string>() : metadataFiles(root.metadata.doc);
  const release = root.metadata === undefined
    ? { status: 'unavailable', reason: 'dist/package-metadata.json is missing: nothing built or installed' }
    : { status: 'available', version: objectOf(root.metadata.doc)['version'], revision: objectOf(root.metadata.doc)['revision'] };
  const services = manifestServices(root.manifest.doc).map((entry) => {
    const service = String(entry['service']);
    const contracts = listOf(entry['contracts']).map(String).sort();
    const openapi = root.openapi.get(service);
    return {
      service,
      seed: entry['seed'],
      identity: entry['identity'],
      capabilities: listOf(entry['capabilities']),
      executables: stackExecutables(root.stack.doc).filter((e) => e.service === service).map((e) => ({
        name: e.name,
        role: e.role,
        bundle: e.bundle,
        bundle_sha256: bundles.get(e.bundle.replace(/^dist\//, '')) ?? null,
        args: e.args,
        listeners: e.listeners,
      })),
      endpoints: openapi === undefined ? [] : listOperations(openapi.doc).map((op) => ({
        method: op.method,
        path: op.path,
        operation_id: op.operationId ?? null,
        security: op.security,
        summary: typeof op.operation['summary'] === 'string' ? op.operation['summary'] : null,
      })),
      contracts: contracts.map((path) => contractEntry(root.root, path, reasons, service)),
      consumer_matrices: consumerMatrices(root.root, contracts, reasons),
      dependencies: listOf(entry['dependencies']),
      consumed_surfaces: listOf(entry['consumed_surfaces']),
    };
  });
  const derivedFrom: Record<string, string | null> = {
    [root.manifest.path]: root.manifest.sha256,
    [root.stack.path]: root.stack.sha256,
    ...Object.fromEntries([...root.openapi.values()].map((f) => [f.path, f.sha256])),
    'dist/package-metadata.json': root.metadata?.sha256 ?? null,
  };
  const doc = { metadata: METADATA_KIND, version: 1, derived_from: derivedFrom, release, services };
  return { doc, reasons };
}

/**
 * The tab-separated view for shell consumers, one row per line:
 * `executable <service> <name> <role> <bundle> <args or -> <ENV=host:port,... or ->` and
 * `consumer <service> <id> <status>`.
 */
export function metadataTsv(doc: Record<string, unknown>): string {
  const lines: string[] = [];
  for (const service of listOf(doc['services']).map(objectOf)) {
    for (const e of listOf(service['executables']).map(objectOf)) {
      const listeners = listOf(e['listeners']).map(objectOf).map((l) => `${String(l['env'])}=${String(l['host'])}:${String(l['port'])}`).join(',');
      // "-" stands for an empty field: shells split on tabs and would merge two in a row.
      lines.push(['executable', service['service'], e['name'], e['role'], e['bundle'], listOf(e['args']).join(' ') || '-', listeners || '-'].map(String).join('\t'));
    }
    for (const matrix of Object.values(objectOf(service['consumer_matrices']))) {
      for (const c of listOf(objectOf(matrix)['consumers']).filter(isObject)) lines.push(['consumer', service['service'], c['consumer'], c['status']].map(String).join('\t'));
    }
  }
  return lines.map((line) => `${line}\n`).join('');
}
