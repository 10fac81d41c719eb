// Context readback (GET /api/v1/semantic/context/readback): only what the service owns about
// itself: provenance, current freshness, degradation derived from the schema check, and
// authority-boundary flags that are all false. It takes no input and returns no record content,
// no domain snippet and nothing the caller sent; the governance service stays the policy owner
// for whether the evidence suffices for an intent.

import type { ControlState } from './control-state.ts';

/** Every flag is false by definition: the semantic service claims none of these authorities. */
export const AUTHORITY_BOUNDARY_FLAGS = Object.freeze({
  decides_evidence_sufficiency: false,
  returns_domain_snippets: false,
  returns_caller_context: false,
  mutates_graph: false,
  promotes_runtime_evidence: false,
  admits_additional_consumers: false,
});

/** The context body for one control state. */
export function contextBody(state: ControlState, options: { version: string }): Record<string, unknown> {
  const snapshot = state.snapshot;
  const freshness = snapshot === undefined
    ? { state: 'unavailable', reason: 'no reconciliation run recorded yet', undecided_records: state.inbox.undecided }
    : {
      state: state.inbox.undecided === 0 ? 'current' : 'lagging',
      last_reconciled_at: snapshot.recorded_at,
      last_run_id: snapshot.payload.run_id,
      undecided_records: state.inbox.undecided,
    };
  const failing = state.integrity.status !== 'pass';
  return {
    provenance: {
      service: 'semantic',
      version: options.version,
      source: 'control_database',
      schema_sha256: state.integrity.observed_schema_sha256,
      user_version: state.integrity.user_version,
      readback_chain_head: state.chains.find((c) => c.table === 'projection_reconciliation_readback')?.head_sha256 ?? null,
    },
    freshness,
    degradation: {
      state: failing ? 'degraded' : 'none',
      derived_from: 'schema_integrity_receipt',
      reasons: failing ? state.integrity.reasons : [],
    },
    authority_boundary: { policy_owner: 'governance', flags: AUTHORITY_BOUNDARY_FLAGS },
  };
}
