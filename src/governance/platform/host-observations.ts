// Host observations: the sidecar probes record what a host reports about a sidecar, beside the
// contract readback it agrees or disagrees with. An observation never overrides contract truth:
// GET /api/v1/sidecar/posture stays the artifact's, whatever a probe says; the contradictions are
// named in the answer and readable at GET /api/v1/tools/runtime-observations.

import { json, writeReply } from '../../kernel/index.ts';
import type { JsonValue, Reply, RequestContext } from '../../kernel/index.ts';
import { hostObservations } from '../database.ts';
import { pageOf } from '../events/outbox.ts';
import { artifactMember } from '../routing/read-route.ts';
import { readRecordPage, recordsReply } from '../routing/evidence-page.ts';
import type { GovernanceRuntime } from '../runtime.ts';

type Probe = 'sidecar_state' | 'sidecar_self_health';

/** The contract readback a probe is compared with: the sidecar posture member. */
function posture(runtime: GovernanceRuntime): { attached: boolean; projection_state: string } {
  const member = artifactMember(runtime, 'sidecar/posture')!;
  return { attached: member['attached'] === true, projection_state: member.projection_state };
}

function contradictions(probe: Probe, body: Record<string, unknown>, contract: { attached: boolean }): string[] {
  if (probe === 'sidecar_state') {
    const claimsAttached = body['state'] === 'attached' || body['state'] === 'degraded';
    return claimsAttached !== contract.attached ? [`state "${String(body['state'])}" contradicts the contract, which says a sidecar is ${contract.attached ? '' : 'not '}attached`] : [];
  }
  return contract.attached ? [] : ['an invocation self-health report contradicts the contract, which says no sidecar is attached'];
}

function probeReply(probe: Probe): (runtime: GovernanceRuntime, context: RequestContext) => Promise<Reply> {
  return async (runtime, context) => {
    const body = context.body as Record<string, unknown> & { sidecar_id: string; observed_at: string };
    const contract = posture(runtime);
    const found = contradictions(probe, body, contract);
    const age = (runtime.now() - Date.parse(body.observed_at)) / 1000;
    const fresh = age <= 300 && age >= -30;
    return writeReply(context, {
      store: runtime.store,
      work: (_sqlite, tx) => tx.append(hostObservations, {
      probe,
      subject: body.sidecar_id,
      payload: { observation: body as JsonValue, fresh, contradicts_contract: found, overrides_contract: false, recorded_by_lane: String(context.principal) },
    }),
      reply: (row) => json({
      recorded: true,
      probe,
      observation: body,
      fresh,
      contract_readback: { route: '/api/v1/sidecar/posture', ...contract },
      contradicts_contract: found,
      overrides_contract: false,
      evidence: { table: hostObservations.name, seq: row.seq, sha256: row.sha256 },
    }, { status: 201 }),
    });
  };
}

export const sidecarStateProbeReply = probeReply('sidecar_state');
export const sidecarSelfHealthProbeReply = probeReply('sidecar_self_health');

/** GET /api/v1/tools/runtime-observations: every recorded observation, in order, a page at a time (on the read pool). */
export async function runtimeObservationsReply(runtime: GovernanceRuntime, context: RequestContext): Promise<Reply> {
  const page = pageOf(context.query);
  if (!page.ok) return page.reply;
  const records = await readRecordPage(runtime.readPool, hostObservations, { afterSeq: page.afterSeq, limit: page.limit, before: ['seq', 'recorded_at', 'probe', 'subject'], after: ['sha256'] });
  const sources = (artifactMember(runtime, 'tools_runtime/runtime-contracts')?.['sources'] ?? []) as { route: string; source: string }[];
  return recordsReply({}, 'observations', records, {
    count: records.count,
    next_after_seq: records.count === page.limit ? records.lastSeq : null,
    overrides_contract: false,
    source: sources.find((c) => c.route === '/api/v1/tools/runtime-observations')?.source ?? 'runtime probes',
  });
}
