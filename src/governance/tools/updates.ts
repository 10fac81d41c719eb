// Update checks and rollout gates against the release version governance publishes (version
// truth). A host's installed version is an observation: compared and recorded, never adopted.
// A rollout gate opens only for a known product at that version, with an empty drift list and a
// ready sign-off; opening it is a recorded decision that deploys nothing.

import { json, writeReply } from '../../kernel/index.ts';
import type { Reply, RequestContext, Transaction } from '../../kernel/index.ts';
import { updateDecisions } from '../database.ts';
import { computeDrift } from '../contracts/drift.ts';
import { knownProducts } from './products.ts';
import { readBack } from '../routing/readback.ts';
import type { GovernanceRuntime } from '../runtime.ts';

/** [major, minor, patch] of a version, ignoring a leading v, pre-release and build. */
function core(version: string): [number, number, number] {
  const [major, minor, patch] = version.replace(/^v/, '').split(/[-+]/)[0]!.split('.').map(Number);
  return [major ?? 0, minor ?? 0, patch ?? 0];
}

function compare(a: string, b: string): number {
  const [x, y] = [core(a), core(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  return 0;
}

export type UpdateVerdict = 'up_to_date' | 'update_available' | 'different_build' | 'installed_ahead' | 'unknown_product';

export function updateVerdict(runtime: GovernanceRuntime, product: string, installed: string): UpdateVerdict {
  if (!knownProducts(runtime).includes(product)) return 'unknown_product';
  const release = runtime.version;
  if (installed.replace(/^v/, '') === release.replace(/^v/, '')) return 'up_to_date';
  const order = compare(installed, release);
  return order < 0 ? 'update_available' : order > 0 ? 'installed_ahead' : 'different_build';
}

export async function updateCheckReply(runtime: GovernanceRuntime, context: RequestContext): Promise<Reply> {
  const body = context.body as { product: string; installed_version: string; channel: string };
  const verdict = updateVerdict(runtime, body.product, body.installed_version);
  const work = (_sqlite: unknown, tx: Transaction) => tx.append(updateDecisions, { kind: 'check', product: body.product, payload: { ...body, release_version: runtime.version, verdict, overrides_contract: false } });
  return writeReply(context, { store: runtime.store, work, reply: (row) => json({
    product: body.product,
    installed_version: body.installed_version,
    release_version: runtime.version,
    verdict,
    update_available: verdict === 'update_available' || verdict === 'different_build',
    version_truth: '/api/v1/platform/version-truth',
    overrides_contract: false,
    evidence: { table: updateDecisions.name, seq: row.seq, sha256: row.sha256 },
  }) });
}

export async function rolloutGateReply(runtime: GovernanceRuntime, context: RequestContext): Promise<Reply> {
  const body = context.body as { product: string; target_version: string; stage: string };
  const reasons: string[] = [];
  if (!knownProducts(runtime).includes(body.product)) reasons.push(`product "${body.product}" is neither a manifest service nor a registered product`);
  if (body.target_version.replace(/^v/, '') !== runtime.version.replace(/^v/, '')) reasons.push(`target version "${body.target_version}" is not the release version "${runtime.version}"`);
  const drift = computeDrift(runtime).length;
  if (drift > 0) reasons.push(`the drift list has ${drift} ${drift === 1 ? 'entry' : 'entries'}`);
  const signoff = await readBack(runtime, '/api/v1/signoff/readiness');
  if (!signoff.ok || signoff.status !== 200) reasons.push('sign-off is not ready (/api/v1/signoff/readiness)');
  const gate = reasons.length === 0 ? 'open' : 'closed';
  const work = (_sqlite: unknown, tx: Transaction) => tx.append(updateDecisions, { kind: 'rollout_gate', product: body.product, payload: { ...body, release_version: runtime.version, gate, reasons } });
  return writeReply(context, { store: runtime.store, work, reply: (row) => json({
    product: body.product,
    target_version: body.target_version,
    stage: body.stage,
    gate,
    reasons,
    release_version: runtime.version,
    authority: 'an open gate is a recorded decision: it deploys nothing and grants no write',
    evidence: { table: updateDecisions.name, seq: row.seq, sha256: row.sha256 },
  }) });
}
