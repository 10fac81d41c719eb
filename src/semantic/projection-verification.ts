// S0 projection-verification runs. The request names a correlation id, a source-event id and an
// admitted ts02: case ref; the server derives the fixture tenant and namespace and returns the
// seven receipts (state, idempotency, reconciliation, replay/rebuild, latency, cleanup,
// residual-scan). Nothing is projected or executed. The run ledger remembers each correlation
// id with its request hash (mirrored as evidence, projection_verification_ledger, so a restore
// keeps it): the same id with another body is refused.

import type { JsonSchema, Store } from '../kernel/index.ts';
import { CASE_REF_PREFIX } from './config.ts';
import type { ActivationStage } from './config.ts';
import { deriveId, digestOf } from './digest.ts';
import { projectionEventLog, replayAndRebuild } from './projection-replay.ts';
import { recordEvent } from './event-outbox.ts';
import { PROJECTION_LEDGER_TABLE } from './control-evidence.ts';
import { unavailable } from './runtime-owner-artifact.ts';

export interface ProjectionRequest {
  correlation_id: string;
  source_event_id: string;
  case_ref: string;
}

const ID = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$';

export const PROJECTION_REQUEST_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['correlation_id', 'source_event_id', 'case_ref'],
  properties: {
    correlation_id: { type: 'string', pattern: ID, description: 'Caller correlation id; reusing it with another body is refused (422)' },
    source_event_id: { type: 'string', pattern: ID, description: 'The source event the run verifies' },
    case_ref: { type: 'string', pattern: `^${CASE_REF_PREFIX}[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`, description: 'An admitted case ref (prefix ts02:, listed by SEMANTIC_PROJECTION_CASE_ALLOWLIST)' },
  },
};

export const PROJECTION_RECEIPTS = ['state', 'idempotency', 'reconciliation', 'replay_rebuild', 'latency', 'cleanup', 'residual_scan'] as const;

/** The deterministic body of a run: the same request and stage give the same body. */
export function projectionRunBody(request: ProjectionRequest, stage: ActivationStage): Record<string, unknown> {
  const runId = projectionRunId(request);
  const caseKey = digestOf(['ts02-case', request.case_ref]).slice(0, 16);
  const tenant = `ts02-fixture-tenant-${caseKey}`;
  const namespace = `semantic.s0.projection.${caseKey}`;
  const receipt = (name: (typeof PROJECTION_RECEIPTS)[number], content: Record<string, unknown>) => ({
    receipt_id: deriveId('rcpt', [runId, name]),
    synthetic: true,
    executed: false,
    ...content,
  });
  const replay = replayAndRebuild(projectionEventLog(namespace, request.source_event_id));
  // Zero by construction, not by counting: an S0 run creates and scans nothing, and says so.
  const notCounted = (reason: string) => ({ value: 0, basis: 'synthetic', reason });
  // The replay and rebuild run for real, but over a log this run generates in order, so they
  // agree by construction: the verdict asserts, it does not observe a projection.
  const replayBasis = { basis: 'synthetic', reason: "replay and rebuild fold the run's generated event log, which is in order by construction; no projection was replayed or rebuilt" };
  return {
    run_id: runId,
    stage,
    receipt_stage: 'S0',
    synthetic: true,
    executed: false,
    composed_result_executed: false,
    promotes_runtime_evidence: false,
    request,
    derived: { fixture_tenant: tenant, namespace },
    receipts: {
      state: receipt('state', { source_event_id: request.source_event_id, expected_state: 'projected', asserted_state: 'projected', outcome: 'consistent' }),
      idempotency: receipt('idempotency', {
        idempotency_key: deriveId('idem', [namespace, request.source_event_id]),
        duplicate_delivery_effect: 'none',
        outcome: 'idempotent',
      }),
      reconciliation: receipt('reconciliation', {
        namespace,
        drift_items: { value: replay.drift_items, ...replayBasis },
        outcome: replay.drift_items === 0 ? 'reconciled_asserted' : 'drift_found',
      }),
      replay_rebuild: receipt('replay_rebuild', {
        events: replay.events,
        keys: replay.keys,
        replay_digest: replay.replay_digest,
        rebuild_digest: replay.rebuild_digest,
        ...replayBasis,
        outcome: replay.outcome === 'equivalent' ? 'equivalent_asserted' : 'divergent',
      }),
      // An S0 run measures nothing: latency stays unavailable rather than zero.
      latency: receipt('latency', { p95_ms: unavailable('S0 synthetic run: no runtime latency is measured'), outcome: 'not_measured' }),
      cleanup: receipt('cleanup', {
        namespace,
        artifacts_created: notCounted('an S0 run writes no projection artifact; nothing was counted'),
        outcome: 'nothing_to_clean',
      }),
      residual_scan: receipt('residual_scan', {
        namespace,
        scope: ['graph', 'vector', 'cache'],
        residual_entries_asserted: notCounted('asserted by the S0 policy, not scanned: no graph, vector store or cache was read'),
        outcome: 'zero_residual_asserted',
      }),
    },
  };
}

/** The run id: a digest of the canonical request. */
export function projectionRunId(request: ProjectionRequest): string {
  return deriveId('pvr', [request.correlation_id, request.source_event_id, request.case_ref]);
}

export type LedgerOutcome = 'recorded' | 'replayed' | 'conflict';

/**
 * Records the run under its correlation id, atomically with its outbox event; a second request
 * with the same id is a replay when the body matches and a conflict when it does not.
 */
export function recordProjectionRun(store: Store, request: ProjectionRequest, options: { stage: ActivationStage; at: string }): Promise<LedgerOutcome> {
  const requestSha = digestOf(request);
  const runId = projectionRunId(request);
  return store.write((sqlite, tx) => {
    const known = sqlite.prepare('SELECT request_sha256 FROM projection_verification_runs WHERE correlation_id = ?').get(request.correlation_id);
    if (known !== undefined) return known['request_sha256'] === requestSha ? 'replayed' : 'conflict';
    sqlite.prepare('INSERT INTO projection_verification_runs (correlation_id, request_sha256, run_id, recorded_at) VALUES (?, ?, ?, ?)')
      .run(request.correlation_id, requestSha, runId, options.at);
    tx.append(PROJECTION_LEDGER_TABLE, { correlation_id: request.correlation_id, payload: { request_sha256: requestSha, run_id: runId, recorded_at: options.at } });
    recordEvent(sqlite, 'semantic.projection_verification.recorded', {
      tx,
      key: [runId],
      at: options.at,
      data: { run_id: runId, correlation_id: request.correlation_id, case_ref: request.case_ref, stage: options.stage, synthetic: true, executed: false },
    });
    return 'recorded';
  });
}
