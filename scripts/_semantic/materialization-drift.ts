// The comparisons of check_runtime_materialization_drift. Each difference names its subject and
// what each of the two layers says: the stack contract, the governance manifest, the OpenAPI
// contracts, the installed bundles (dist/package-metadata.json hashes against the files), the
// contracts this build carries, and (live) the running semantic API.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildGovernanceManifest, buildOpenApi, buildStackContract, canonicalJson } from '../../src/kernel/index.ts';
import {
  ASYNCAPI_CONTRACT, CDC_CONTRACT, EXPECTED_CONTROL_SCHEMA, FIXTURES_CONTRACT, INGEST_RECORD_SCHEMA, ISOLATION_DOMAINS_CONTRACT, SEMANTIC_MANIFEST,
} from '../../src/semantic/index.ts';
import type { HttpClient } from './http-client.ts';
import { listOf, objectOf, readOptionalJsonFile, sha256Hex } from './json-file.ts';
import { distPath, manifestServices, metadataFiles, stackExecutables, stackServices } from './install-root.ts';
import type { InstallRoot } from './install-root.ts';
import { listOperations, surfaceKey } from './openapi-operations.ts';

export interface Side {
  layer: string;
  says: string;
}

export interface Difference {
  subject: string;
  a: Side;
  b: Side;
}

export function describeDifference(d: Difference): string {
  return `${d.subject}: ${d.a.layer} says ${d.a.says}; ${d.b.layer} says ${d.b.says}`;
}

const STACK = 'stack-contract';
const MANIFEST = 'governance-manifest';
const METADATA = 'package-metadata';

function setDifferences(subject: (item: string) => string, a: [string, readonly string[]], b: [string, readonly string[]], says: [string, string] = ['present', 'absent']): Difference[] {
  const [aLayer, aItems] = a;
  const [bLayer, bItems] = b;
  return [
    ...aItems.filter((x) => !bItems.includes(x)).map((x) => ({ subject: subject(x), a: { layer: aLayer, says: says[0] }, b: { layer: bLayer, says: says[1] } })),
    ...bItems.filter((x) => !aItems.includes(x)).map((x) => ({ subject: subject(x), a: { layer: aLayer, says: says[1] }, b: { layer: bLayer, says: says[0] } })),
  ];
}

/** Stack contract against governance manifest: the same services, each with the same executables. */
export function stackAgainstManifest(root: InstallRoot): Difference[] {
  const stack = stackServices(root.stack.doc);
  const manifest = manifestServices(root.manifest.doc);
  const differences = setDifferences((s) => `service "${s}"`, [STACK, stack.map((s) => String(s['service']))], [MANIFEST, manifest.map((s) => String(s['service']))]);
  for (const entry of manifest) {
    const service = String(entry['service']);
    // A name appears once per role in the stack contract; the comparison is by name.
    const fromStack = [...new Set(stackExecutables(root.stack.doc).filter((e) => e.service === service).map((e) => e.name))].sort();
    if (!stack.some((s) => s['service'] === service)) continue;
    const fromManifest = [...new Set(listOf(entry['executables']).map(String))].sort();
    if (fromStack.join(',') !== fromManifest.join(',')) {
      differences.push({ subject: `executables of "${service}"`, a: { layer: STACK, says: fromStack.join(', ') || '(none)' }, b: { layer: MANIFEST, says: fromManifest.join(', ') || '(none)' } });
    }
  }
  return differences;
}

/** Manifest against the contract files it lists, and its exposed surfaces against each OpenAPI contract. */
export function manifestAgainstContracts(root: InstallRoot): Difference[] {
  const differences: Difference[] = [];
  for (const entry of manifestServices(root.manifest.doc)) {
    const service = String(entry['service']);
    for (const path of listOf(entry['contracts']).map(String)) {
      if (!existsSync(join(root.root, path))) differences.push({ subject: `contract "${path}" of "${service}"`, a: { layer: MANIFEST, says: 'listed' }, b: { layer: 'files', says: 'missing' } });
    }
    const openapi = root.openapi.get(service);
    if (openapi === undefined) continue;
    const exposed = [...new Set(listOf(entry['exposed_surfaces']).map(objectOf).map((s) => surfaceKey(String(s['method']), String(s['path']))))];
    const defined = [...new Set(listOperations(openapi.doc).map((op) => surfaceKey(op.method, op.path)))];
    // A route family (`/prefix/*`) is one manifest surface; the export lists its members instead.
    const families = exposed.filter((key) => key.endsWith('/*'));
    const inFamily = (key: string) => families.some((family) => key.startsWith(family.slice(0, -1)) && !key.slice(family.length - 1).includes('/'));
    const emptyFamilies = families.filter((family) => !defined.some((key) => key.startsWith(family.slice(0, -1))));
    differences.push(...emptyFamilies.map((family) => ({ subject: `surface ${family} of "${service}"`, a: { layer: MANIFEST, says: 'exposed' }, b: { layer: openapi.path, says: 'no member' } })));
    differences.push(...setDifferences((s) => `surface ${s} of "${service}"`, [MANIFEST, exposed.filter((key) => !families.includes(key))], [openapi.path, defined.filter((key) => !inFamily(key))], ['exposed', 'absent']));
  }
  return differences;
}

/** Installed bundles against the package metadata and the stack contract. */
export function bundlesAgainstMetadata(root: InstallRoot): Difference[] {
  if (root.metadata === undefined) {
    return [{ subject: 'installed bundles', a: { layer: STACK, says: `${stackExecutables(root.stack.doc).length} executables` }, b: { layer: METADATA, says: 'missing (dist/package-metadata.json: nothing built or installed)' } }];
  }
  const differences: Difference[] = [];
  const files = metadataFiles(root.metadata.doc);
  for (const bundle of new Set(stackExecutables(root.stack.doc).map((e) => e.bundle))) {
    const path = bundle.replace(/^dist\//, '');
    if (!files.has(path)) differences.push({ subject: `bundle "${bundle}"`, a: { layer: STACK, says: 'declared' }, b: { layer: METADATA, says: 'not listed' } });
  }
  for (const [path, sha256] of files) {
    const file = distPath(root.root, path);
    const actual = existsSync(file) ? sha256Hex(readFileSync(file)) : undefined;
    if (actual !== sha256) differences.push({ subject: `file "dist/${path}"`, a: { layer: METADATA, says: `sha256 ${sha256.slice(0, 16)}…` }, b: { layer: 'installed file', says: actual === undefined ? 'missing' : `sha256 ${actual.slice(0, 16)}…` } });
  }
  const binDir = distPath(root.root, 'bin');
  for (const name of existsSync(binDir) ? readdirSync(binDir).sort() : []) {
    if (!files.has(`bin/${name}`)) differences.push({ subject: `file "dist/bin/${name}"`, a: { layer: METADATA, says: 'not listed' }, b: { layer: 'installed file', says: 'present' } });
  }
  return differences;
}

/** What this build carries (compiled-in contracts, the semantic manifest's generated sections) against the files under the root. */
export function buildAgainstFiles(root: InstallRoot, buildVersion: string): Difference[] {
  const layer = `this build (${buildVersion})`;
  const carried: [string, unknown][] = [
    ['contracts/api/semantic_cdc_v1.json', CDC_CONTRACT],
    ['contracts/api/semantic_asyncapi_v1.json', ASYNCAPI_CONTRACT],
    ['contracts/api/semantic_openapi_v1.json', buildOpenApi(SEMANTIC_MANIFEST)],
    ['contracts/semantic_isolation_domains_v1.json', ISOLATION_DOMAINS_CONTRACT],
    ['contracts/semantic_fixtures_v1.json', FIXTURES_CONTRACT],
    ['contracts/semantic_control_schema_v1.json', EXPECTED_CONTROL_SCHEMA],
    ['contracts/semantic_ingest_record_v1.json', INGEST_RECORD_SCHEMA],
  ];
  const digest = (value: unknown) => sha256Hex(canonicalJson(value));
  const differences: Difference[] = [];
  for (const [path, value] of carried) {
    const file = readOptionalJsonFile(root.root, path);
    const [mine, theirs] = [digest(value), file === undefined ? undefined : digest(file.doc)];
    if (mine !== theirs) differences.push({ subject: `contract "${path}"`, a: { layer, says: `canonical sha256 ${mine.slice(0, 16)}…` }, b: { layer: 'files', says: theirs === undefined ? 'missing' : `canonical sha256 ${theirs.slice(0, 16)}…` } });
  }
  const sections: [string, unknown, unknown][] = [
    [MANIFEST, objectOf(listOf(buildGovernanceManifest([SEMANTIC_MANIFEST])['services'])[0]), manifestServices(root.manifest.doc).find((s) => s['service'] === 'semantic')],
    [STACK, objectOf(listOf(buildStackContract([SEMANTIC_MANIFEST])['services'])[0]), stackServices(root.stack.doc).find((s) => s['service'] === 'semantic')],
  ];
  for (const [name, mine, theirs] of sections) {
    if (theirs === undefined || digest(mine) !== digest(theirs)) {
      differences.push({ subject: `the semantic section of ${name}`, a: { layer, says: `canonical sha256 ${digest(mine).slice(0, 16)}…` }, b: { layer: name, says: theirs === undefined ? 'missing' : `canonical sha256 ${digest(theirs).slice(0, 16)}…` } });
    }
  }
  return differences;
}

/** The running semantic API against the installed build and its OpenAPI contract. */
export async function liveAgainstRoot(root: InstallRoot, client: HttpClient): Promise<Difference[]> {
  const differences: Difference[] = [];
  const live = `running service (${client.baseUrl})`;
  const health = await client.send('GET', '/healthz', { headers: { accept: 'application/health+json' } });
  const version = objectOf(health.json)['version'];
  const installed = root.metadata === undefined ? undefined : objectOf(root.metadata.doc)['version'];
  if (health.status !== 200 || typeof version !== 'string') differences.push({ subject: 'GET /healthz', a: { layer: 'contract', says: '200 with a version' }, b: { layer: live, says: `${health.status}` } });
  else if (installed !== undefined && version !== installed) differences.push({ subject: 'version', a: { layer: METADATA, says: String(installed) }, b: { layer: live, says: version } });
  const openapi = root.openapi.get('semantic');
  for (const op of openapi === undefined ? [] : listOperations(openapi.doc)) {
    // No credential and no body: a served route refuses (401) or answers; only 404 and 405 mean it is not served.
    const answer = await client.send(op.method, op.path.replace(/\{[^}]*\}/g, 'x'), { headers: { accept: 'application/json' } });
    if (answer.status === 404 || answer.status === 405) differences.push({ subject: `${op.method} ${op.path}`, a: { layer: openapi!.path, says: 'defined' }, b: { layer: live, says: `${answer.status}` } });
  }
  return differences;
}
