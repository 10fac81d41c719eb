// GET /api/v1/contracts/drift: every contradiction between the manifests, the route table, the
// contract artifacts, the committed export and the docs, listed. Empty only when there is none.
// The inputs are read at start, so the list is computed once per process.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson, json } from '../../kernel/index.ts';
import type { Reply } from '../../kernel/index.ts';
import { coverageProblems, referenceProblems, requestSchemaProblems, routeStateProblems, toolProblems } from './crossrefs.ts';
import type { DriftItem } from './crossrefs.ts';
import { docsProblems } from './docs-check.ts';
import { CAPABILITIES, OPENAPI_PATH, SERVICE_NAME } from '../identity.ts';
import { openApiDocument } from '../openapi-export.ts';
import { resolvesToRoute } from './route-ref.ts';
import type { GovernanceRuntime } from '../runtime.ts';

export const DRIFT_CHECKS = [
  'manifest entry of this service matches its route table and capabilities',
  'consumed surfaces are exposed by their owners',
  'contract files listed in the manifest exist',
  'committed OpenAPI export matches the route table',
  'every artifact and schema is valid, and every member is published or read',
  'every route and schema an artifact names resolves',
  'every route an artifact marks enabled is served, and no planned one is',
  'every write route validates against the request schema of the contracts',
  'every tool an artifact names is in the tool-action registry',
  'every document exists, carries the docs-standard headings, mentions only known routes and covers every family',
] as const;

export function computeDrift(runtime: GovernanceRuntime): DriftItem[] {
  const cached = runtime.cache.get('drift') as DriftItem[] | undefined;
  if (cached) return cached;
  const items = [
    ...manifestProblems(runtime),
    ...openApiProblems(runtime),
    ...coverageProblems(runtime),
    ...referenceProblems(runtime),
    ...routeStateProblems(runtime),
    ...requestSchemaProblems(runtime),
    ...toolProblems(runtime),
    ...docsProblems(runtime),
  ].sort((a, b) => (a.kind + a.subject + a.detail < b.kind + b.subject + b.detail ? -1 : 1));
  runtime.cache.set('drift', items);
  return items;
}

export function driftReply(runtime: GovernanceRuntime): Reply {
  const drift = computeDrift(runtime);
  return json({ drift, count: drift.length, blocking: drift.length > 0, checks: DRIFT_CHECKS });
}

function manifestProblems(runtime: GovernanceRuntime): DriftItem[] {
  const manifest = runtime.manifest;
  if (!manifest.ok) return [{ kind: `manifest_${manifest.reason}`, subject: 'governance-manifest.json', detail: manifest.detail }];
  const problems: DriftItem[] = [];
  const entry = manifest.document.services.find((s) => s.service === SERVICE_NAME);
  if (!entry) {
    problems.push({ kind: 'manifest_entry_missing', subject: SERVICE_NAME, detail: `governance-manifest.json has no "${SERVICE_NAME}" entry` });
  } else {
    const key = (s: { listener: string; method: string; path: string; auth: string }) => `${s.listener} ${s.method} ${s.path} (auth ${s.auth})`;
    const declared = new Set((entry.exposed_surfaces ?? []).map(key));
    const served = new Set(runtime.routes.map((r) => key({ listener: r.listener ?? 'main', method: r.method, path: r.path, auth: r.auth })));
    for (const surface of served) if (!declared.has(surface)) problems.push({ kind: 'surface_undeclared', subject: SERVICE_NAME, detail: `served but not in the manifest: ${surface}` });
    for (const surface of declared) if (!served.has(surface)) problems.push({ kind: 'surface_unserved', subject: SERVICE_NAME, detail: `in the manifest but not served: ${surface}` });
    const capabilities = new Set(entry.capabilities ?? []);
    for (const capability of Object.keys(CAPABILITIES)) if (!capabilities.has(capability)) problems.push({ kind: 'capability_undeclared', subject: SERVICE_NAME, detail: `capability "${capability}" has routes but is not in the manifest` });
    for (const capability of capabilities) if (!(capability in CAPABILITIES)) problems.push({ kind: 'capability_unserved', subject: SERVICE_NAME, detail: `capability "${capability}" is in the manifest but no route serves it` });
  }
  const byService = new Map(manifest.document.services.map((s) => [s.service, s]));
  for (const consumer of manifest.document.services) {
    for (const consumed of consumer.consumed_surfaces ?? []) {
      const owner = byService.get(consumed.owner);
      if (!owner || consumed.path === undefined) continue;
      const method = consumed.method ?? 'GET';
      const exposed = (owner.exposed_surfaces ?? []).filter((s) => s.method === method);
      if (!resolvesToRoute(consumed.path, exposed)) {
        problems.push({ kind: 'consumed_surface_unexposed', subject: consumer.service, detail: `consumes ${method} ${consumed.path} from "${consumed.owner}", which does not expose it` });
      }
    }
    for (const contract of consumer.contracts ?? []) {
      if (!existsSync(join(runtime.config.paths.root, contract))) problems.push({ kind: 'contract_file_missing', subject: consumer.service, detail: `lists "${contract}", which does not exist under the install root` });
    }
  }
  return problems;
}

function openApiProblems(runtime: GovernanceRuntime): DriftItem[] {
  const committed = runtime.committedOpenApi;
  if (!committed.ok) return [{ kind: `openapi_${committed.reason}`, subject: OPENAPI_PATH, detail: committed.detail }];
  const generated = openApiDocument(runtime.routes);
  if (canonicalJson(committed.document as never) === canonicalJson(generated as never)) return [];
  const paths = (doc: unknown) => ((doc as { paths?: Record<string, unknown> }).paths ?? {});
  const before = paths(committed.document);
  const after = paths(generated);
  const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .filter((path) => canonicalJson((before[path] ?? null) as never) !== canonicalJson((after[path] ?? null) as never))
    .sort();
  const detail = changed.length > 0 ? `${changed.length} paths differ, first ${changed.slice(0, 5).join(', ')}` : 'info or components differ';
  return [{ kind: 'openapi_drift', subject: OPENAPI_PATH, detail: `committed export differs from the route table: ${detail}; run npm run contracts` }];
}
