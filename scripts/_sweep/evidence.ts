// The sweep's evidence document: what was asked of which export, every request with its
// outcome, totals per class, and whether the run is green. Written as one JSON file.

import { FAILING_CLASSES, SWEEP_CLASSES } from './classify.ts';
import type { SweepClass } from './classify.ts';
import type { SweptRequest } from './run.ts';

export const EVIDENCE_FORMAT = 'airlock.throttled_api_sweep.v1';

export interface SweepSettings {
  rate_limit_rpm: number;
  batch_size: number;
  batch_sleep_seconds: number;
  retry_429: number;
  timeout_seconds: number;
  /** --allow-not-ready was given: readiness 503s were tolerated as not_ready. */
  allow_not_ready: boolean;
  include: string[];
  exclude: string[];
}

export interface SweepEvidence {
  format: typeof EVIDENCE_FORMAT;
  ok: boolean;
  base_url: string;
  export: { source: string; sha256: string; openapi: string; title: string | null; version: string | null };
  settings: SweepSettings;
  started_at: string;
  finished_at: string;
  elapsed_ms: number;
  operations: number;
  filtered_out: number;
  /** HTTP requests sent, retries included. */
  requests_sent: number;
  totals: Record<SweepClass, number>;
  failures: number;
  requests: SweptRequest[];
}

export interface EvidenceInput {
  baseUrl: string;
  exportInfo: { source: string; sha256: string; document: Record<string, unknown> };
  settings: SweepSettings;
  startedAt: number;
  finishedAt: number;
  filteredOut: number;
  requests: SweptRequest[];
}

export function buildEvidence(input: EvidenceInput): SweepEvidence {
  const totals = Object.fromEntries(SWEEP_CLASSES.map((c) => [c, 0])) as Record<SweepClass, number>;
  for (const request of input.requests) totals[request.class] += 1;
  const failures = input.requests.filter((r) => FAILING_CLASSES.has(r.class)).length;
  const info = (input.exportInfo.document['info'] ?? {}) as Record<string, unknown>;
  return {
    format: EVIDENCE_FORMAT,
    ok: failures === 0,
    base_url: input.baseUrl,
    export: {
      source: input.exportInfo.source,
      sha256: input.exportInfo.sha256,
      openapi: String(input.exportInfo.document['openapi']),
      title: typeof info['title'] === 'string' ? info['title'] : null,
      version: typeof info['version'] === 'string' ? info['version'] : null,
    },
    settings: input.settings,
    started_at: new Date(input.startedAt).toISOString(),
    finished_at: new Date(input.finishedAt).toISOString(),
    elapsed_ms: input.finishedAt - input.startedAt,
    operations: input.requests.length,
    filtered_out: input.filteredOut,
    requests_sent: input.requests.reduce((sum, r) => sum + r.attempts, 0),
    totals,
    failures,
    requests: input.requests,
  };
}
