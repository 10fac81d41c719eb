// Health and readiness documents. /healthz says the process answers. /readyz reports each
// dependency in `checks`: it fails while the control database is unmigrated or its schema check
// fails, and warns for what degrades a surface without stopping the service (no worker run yet,
// no allowlist, no consumer tokens, no runtime-owner artifact, an unreachable upstream).

import { health, replicationHealthCheck } from '../kernel/index.ts';
import type { HealthCheck, ReplicationStatus, Reply } from '../kernel/index.ts';
import type { ApiConfig, UpstreamName } from './config.ts';
import type { ControlStateReader } from './control-state.ts';
import { readRuntimeOwnerArtifact } from './runtime-owner-artifact.ts';
import type { UpstreamProbe } from './upstream-probe.ts';

export interface ReadinessOptions {
  config: ApiConfig;
  version: string;
  reader: ControlStateReader;
  probes: Readonly<Record<UpstreamName, UpstreamProbe>>;
  /** Evidence replication of the control database, when it is on (docs/replication.md). */
  replication?: () => ReplicationStatus | undefined;
}

export function healthReply(version: string): Reply {
  return health({ version, checks: { process: [{ status: 'pass' }] } });
}

/** The readiness document; 503 when any check fails. */
export async function readinessReply(options: ReadinessOptions): Promise<Reply> {
  const { config, reader } = options;
  const state = reader.current();
  const integrity = state.integrity;
  const migrated = integrity.user_version === integrity.expected_user_version;
  const artifact = readRuntimeOwnerArtifact(config.runtimeOwnerArtifact);
  const [model, vector, governance] = await Promise.all([options.probes.model_runtime(), options.probes.vector_store(), options.probes.governance()]);
  const checks: Record<string, HealthCheck[]> = {
    'control_database:migration': [migrated
      ? { status: 'pass', observedValue: integrity.user_version }
      : { status: 'fail', observedValue: integrity.user_version, output: `user_version ${integrity.user_version}, expected ${integrity.expected_user_version}: not migrated` }],
    'control_database:schema_integrity': [integrity.status === 'pass'
      ? { status: 'pass' }
      : { status: 'fail', output: integrity.reasons.slice(0, 3).join('; ') }],
    'reconciliation_worker:snapshot': [state.snapshot
      ? { status: 'pass', time: state.snapshot.recorded_at }
      : { status: 'warn', output: 'no reconciliation run recorded yet' }],
    'projection_verification:allowlist': [config.caseAllowlist.length > 0
      ? { status: 'pass', observedValue: config.caseAllowlist.length }
      : { status: 'warn', output: 'SEMANTIC_PROJECTION_CASE_ALLOWLIST is absent: projection verification answers 503' }],
    'consumers:tokens': [config.consumerTokens.length > 0
      ? { status: 'pass', observedValue: config.consumerTokens.length }
      : { status: 'warn', output: 'SEMANTIC_CONSUMER_TOKENS_FILE names no consumer: status and context readback answer 401' }],
    'runtime_owner_artifact:readable': [artifact.ok ? { status: 'pass' } : { status: 'warn', output: artifact.reason }],
    'model_runtime:readyz': [model],
    'vector_store:readyz': [vector],
    'governance:health': [governance],
  };
  const replication = options.replication?.();
  if (replication !== undefined) checks['evidence:replication'] = [replicationHealthCheck(replication)];
  return health({ version: options.version, checks });
}
