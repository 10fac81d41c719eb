// Measures one HTTP scenario beside the bare node:http baseline, in the same run and process
// tree, and reports the ratio, so that the figure means something on a noisy machine.

import { fileURLToPath } from 'node:url';
import { startChildServer } from './child-server.ts';
import { round3 } from './percentile.ts';
import { runLoad } from './load.ts';
import type { LoadRequest } from './load.ts';
import type { BenchRecord, ScenarioOptions } from './scenario.ts';

export const BASELINE_SERVER = fileURLToPath(new URL('../servers/baseline.ts', import.meta.url));

export interface HttpComparison {
  scenario: string;
  /** The server under test: a file that prints a listening line. */
  server: string;
  env?: Record<string, string>;
  request: LoadRequest;
  expectStatus?: number;
  /** What the baseline server answers for (it answers every request the same way). */
  baselineRequest?: LoadRequest;
}

export async function compareHttp(spec: HttpComparison, options: ScenarioOptions): Promise<BenchRecord> {
  const load = { concurrency: options.concurrency, durationMs: options.durationMs, warmupMs: options.warmupMs };
  const baselineServer = await startChildServer(BASELINE_SERVER);
  let baseline;
  try {
    baseline = await runLoad(baselineServer.url, { ...load, request: spec.baselineRequest ?? { path: '/' } });
  } finally {
    await baselineServer.stop();
  }
  const server = await startChildServer(spec.server, spec.env);
  let subject;
  try {
    subject = await runLoad(server.url, { ...load, request: spec.request, ...(spec.expectStatus !== undefined && { expectStatus: spec.expectStatus }) });
  } finally {
    await server.stop();
  }
  return {
    scenario: spec.scenario,
    rps: Math.round(subject.rps),
    baseline_rps: Math.round(baseline.rps),
    ratio: round3(subject.rps / baseline.rps),
    p50_ms: subject.p50_ms,
    p95_ms: subject.p95_ms,
    p99_ms: subject.p99_ms,
    errors: subject.errors,
    baseline_p50_ms: baseline.p50_ms,
    baseline_p99_ms: baseline.p99_ms,
    concurrency: options.concurrency,
    duration_ms: options.durationMs,
    requests: subject.requests,
    statuses: subject.statuses,
  };
}
