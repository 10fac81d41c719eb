// Evidence replication as a health check: pass while the stream keeps up; warn while rows wait
// longer than the lag threshold or the cluster is out of reach; fail when the stream refuses
// writes or replication stopped (a stream that disagrees with the local chain).

import type { HealthCheck } from '../http/reply.ts';
import type { ReplicationStatus } from './evidence-replicator.ts';

export function replicationHealthCheck(status: ReplicationStatus): HealthCheck {
  const observed = {
    observedValue: status.lag_rows,
    observedUnit: 'rows',
    mode: status.mode,
    stream: status.stream,
    lag_seconds: Math.round(status.lag_seconds * 1000) / 1000,
    replicas: status.replicas ?? null,
    server: status.server ?? null,
  };
  if (status.stopped_reason !== undefined) return { status: 'fail', ...observed, output: `replication stopped: ${status.stopped_reason}` };
  if (status.refused) return { status: 'fail', ...observed, output: `the stream refuses writes: ${status.last_error ?? 'refused'}` };
  if (status.lag_seconds > status.lag_warn_seconds) {
    return { status: 'warn', ...observed, output: `${status.lag_rows} rows not replicated, oldest ${Math.round(status.lag_seconds)} s old (threshold ${status.lag_warn_seconds} s)${status.last_error ? `: ${status.last_error}` : ''}` };
  }
  if (!status.connected || status.state === 'retrying') return { status: 'warn', ...observed, output: `evidence stream out of reach: ${status.last_error ?? 'connecting'}` };
  return { status: 'pass', ...observed };
}
