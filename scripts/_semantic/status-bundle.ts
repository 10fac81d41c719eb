// The governance status bundle for read-only consumers: one JSON file holding the governance
// metadata, the offline checks (consumer matrix, materialization drift) and, when asked, a live
// readback of the semantic API, sealed by `content_sha256` over the canonical JSON of the rest.
// `verifyStatusBundle` recomputes the seal and compares the metadata with a fresh derivation.

import { canonicalJson, versionTruth } from '../../src/kernel/index.ts';
import type { Check } from './check-report.ts';
import { check } from './check-report.ts';
import { deriveGovernanceMetadata } from './governance-metadata.ts';
import type { HttpClient } from './http-client.ts';
import { objectOf, readOptionalJsonFile, sha256Hex } from './json-file.ts';
import type { InstallRoot } from './install-root.ts';
import { buildAgainstFiles, bundlesAgainstMetadata, describeDifference, manifestAgainstContracts, stackAgainstManifest } from './materialization-drift.ts';
import { checkSemanticCdc } from './semantic-cdc.ts';

export const BUNDLE_KIND = 'airlock_governance_status_bundle';

/** The checks a bundle carries, offline: consumer matrix and drift (bundles only when installed). */
export function offlineStatusChecks(root: InstallRoot): Check[] {
  const cdc = readOptionalJsonFile(root.root, 'contracts/api/semantic_cdc_v1.json');
  const openapi = root.openapi.get('semantic');
  const cdcReasons = cdc === undefined || openapi === undefined
    ? ['contracts/api/semantic_cdc_v1.json or the semantic OpenAPI contract is missing']
    : checkSemanticCdc({ cdc: cdc.doc, openapi: openapi.doc }).flatMap((c) => c.reasons);
  const drift = [
    ...stackAgainstManifest(root),
    ...manifestAgainstContracts(root),
    ...(root.metadata === undefined ? [] : bundlesAgainstMetadata(root)),
    ...buildAgainstFiles(root, versionTruth()),
  ];
  return [check('semantic_cdc_matrix', cdcReasons), check('materialization_drift', drift.map(describeDifference))];
}

/** A summary of the live readbacks, through an admitted consumer's token; failures become a failed check. */
export async function liveStatus(client: HttpClient, token: string): Promise<{ live: Record<string, unknown>; check: Check }> {
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
  const status = await client.send('GET', '/api/v1/semantic/runtime/status', { headers });
  const context = await client.send('GET', '/api/v1/semantic/context/readback', { headers });
  const reasons = [
    ...(status.status === 200 ? [] : [`GET /api/v1/semantic/runtime/status answered ${status.status}`]),
    ...(context.status === 200 ? [] : [`GET /api/v1/semantic/context/readback answered ${context.status}`]),
  ];
  const body = objectOf(status.json);
  const integrity = objectOf(body['schema_integrity_receipt']);
  if (status.status === 200 && integrity['status'] !== 'pass') reasons.push(`the schema-integrity receipt says ${JSON.stringify(integrity['status'] ?? null)}`);
  const snapshot = objectOf(body['reconciliation_worker_snapshot']);
  const ctx = objectOf(context.json);
  const live = {
    base_url: client.baseUrl,
    runtime_status: status.status !== 200 ? { status: 'unavailable', reason: `answered ${status.status}` } : {
      etag: status.headers.get('etag'),
      version: body['version'] ?? null,
      activation_stage: body['activation_stage'] ?? null,
      schema_integrity: integrity['status'] ?? null,
      reconciliation_worker_snapshot: snapshot['status'] === 'available'
        ? { status: 'available', run_id: snapshot['run_id'], recorded_at: snapshot['recorded_at'], sha256: snapshot['sha256'] }
        : { status: 'unavailable', reason: snapshot['reason'] ?? 'not reported' },
      graph_search_lane_posture: body['graph_search_lane_posture'] ?? null,
    },
    context_readback: context.status !== 200 ? { status: 'unavailable', reason: `answered ${context.status}` } : {
      freshness: ctx['freshness'] ?? null,
      degradation: ctx['degradation'] ?? null,
      authority_boundary: ctx['authority_boundary'] ?? null,
    },
  };
  return { live, check: check('live_readback', reasons) };
}

/** The canonical SHA-256 of a bundle without its seal. */
export function bundleContentSha256(bundle: Record<string, unknown>): string {
  const { content_sha256: _seal, ...content } = bundle;
  return sha256Hex(canonicalJson(content));
}

/** Seals `content` (metadata, status) into a bundle document. */
export function sealBundle(metadata: Record<string, unknown>, status: { checks: Check[]; live: Record<string, unknown> }): Record<string, unknown> {
  const content = { bundle: BUNDLE_KIND, version: 1, metadata, status: { ok: status.checks.every((c) => c.ok), ...status } };
  return { ...content, content_sha256: bundleContentSha256(content) };
}

/** Checks a bundle's seal, and that its metadata is what `root` derives now. */
export function verifyStatusBundle(bundle: unknown, root: InstallRoot): Check[] {
  const doc = objectOf(bundle);
  const seal = doc['bundle'] !== BUNDLE_KIND ? [`not a status bundle (bundle: ${JSON.stringify(doc['bundle'] ?? null)})`]
    : doc['content_sha256'] !== bundleContentSha256(doc) ? [`content_sha256 ${JSON.stringify(doc['content_sha256'] ?? null)} does not match the content (${bundleContentSha256(doc)}): the bundle was changed`]
      : [];
  const fresh = deriveGovernanceMetadata(root).doc;
  const current = canonicalJson(doc['metadata'] ?? null) === canonicalJson(fresh) ? [] : [`its metadata is not what "${root.root}" derives now: the bundle is stale`];
  return [check('content_sha256', seal), check('metadata_current', current)];
}
