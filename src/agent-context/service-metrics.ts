// The families /metrics exports: service (requests by route and code, auth refusals), persistence
// (rows per evidence table, appends, database size), runtime (process start, uptime, memory),
// drift (checks and findings), outbox (events published), control agent (mode, commands) and
// governance (upstream calls by outcome, authority decisions, last success). Base units only.

import { getHeapStatistics } from 'node:v8';
import { createMetricsRegistry } from './metrics.ts';
import type { Counter, MetricsRegistry } from './metrics.ts';
import type { ControlState } from './state.ts';

export interface ServiceMetrics {
  registry: MetricsRegistry;
  requests: Counter;
  authRefusals: Counter;
  appends: Counter;
  outboxEvents: Counter;
  controlCommands: Counter;
  governanceRequests: Counter;
  authorityDecisions: Counter;
  driftChecks: Counter;
  /** Set by each drift computation; unknown (no sample) until the first. */
  setDriftFindings(count: number): void;
}

export function createServiceMetrics(options: {
  version: string;
  /** Rows per evidence table (kept between commits). */
  rows: () => { table: string; rows: number }[];
  /** Database size in bytes (kept between commits). */
  bytes: () => number;
  control: () => ControlState;
  governanceLastSuccess: () => number | undefined;
  now: () => number;
  startedAt: number;
}): ServiceMetrics {
  const registry = createMetricsRegistry();
  const p = 'agent_context_';
  registry.gauge(`${p}build_info`, 'Always 1; the version label is the running version truth', () => [{ labels: { version: options.version }, value: 1 }]);
  const requests = registry.counter(`${p}http_requests_total`, 'Every answer (a handler\'s or the service\'s own 401, 404, 405, 413, 415, 422, 500), by method, route pattern (unmatched: no route), status code and status class');
  const authRefusals = registry.counter(`${p}auth_refusals_total`, 'Internal-route requests refused before the handler, by reason', [{ reason: 'token_missing' }, { reason: 'token_invalid' }]);
  registry.gauge(`${p}evidence_rows`, 'Rows in each evidence table of the database', () => options.rows().map((t) => ({ labels: { table: t.table }, value: t.rows })));
  const appends = registry.counter(`${p}evidence_appends_total`, 'Evidence rows this process appended, by table');
  registry.gauge(`${p}database_size_bytes`, 'Size of the evidence database (page count times page size)', () => [{ value: options.bytes() }]);
  registry.gauge('process_start_time_seconds', 'Start time of the process since the Unix epoch', () => [{ value: Math.floor(options.startedAt / 1000) }]);
  registry.gauge(`${p}uptime_seconds`, 'Seconds since the process started', () => [{ value: Math.max(0, (options.now() - options.startedAt) / 1000) }]);
  registry.gauge('process_resident_memory_bytes', 'Resident set size of the process', () => [{ value: process.memoryUsage.rss() }]);
  registry.gauge(`${p}heap_used_bytes`, 'V8 heap in use', () => [{ value: getHeapStatistics().used_heap_size }]);
  const driftChecks = registry.counter(`${p}drift_checks_total`, 'Drift summaries computed, by outcome', [{ outcome: 'computed' }, { outcome: 'unavailable' }]);
  let driftFindings: number | undefined;
  registry.gauge(`${p}drift_findings`, 'Findings of the last drift summary (declaration of the governance manifest against what runs)', () => (driftFindings === undefined ? [] : [{ value: driftFindings }]));
  const outboxEvents = registry.counter(`${p}outbox_events_total`, 'Events this process appended to the outbox, by event name');
  registry.gauge(`${p}control_agent_paused`, '1 while the control agent is paused, else 0', () => [{ value: options.control().mode === 'paused' ? 1 : 0 }]);
  const controlCommands = registry.counter(`${p}control_agent_commands_total`, 'Control-agent commands recorded, by command', [{ command: 'pause' }, { command: 'resume' }]);
  const governanceRequests = registry.counter(`${p}governance_requests_total`, 'Calls to the governance service, by route and outcome');
  const authorityDecisions = registry.counter(`${p}authority_decisions_total`, 'Authority decisions on writes, by verdict and reason');
  registry.gauge(`${p}governance_last_success_timestamp_seconds`, 'When a governance call last succeeded, since the Unix epoch', () => {
    const at = options.governanceLastSuccess();
    return at === undefined ? [] : [{ value: at }];
  });
  return {
    registry, requests, authRefusals, appends, outboxEvents, controlCommands, governanceRequests, authorityDecisions, driftChecks,
    setDriftFindings: (count) => void (driftFindings = count),
  };
}
