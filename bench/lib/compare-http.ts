// Measures one HTTP scenario beside the bare node:http baseline, in the same run and process
// tree, and reports the ratio, so that the figure means something on a noisy machine.

import { fileURLToPath } from 'node:url';
import { cpuMs, startChildServer } from './child-server.ts';
import { percentile, round3 } from './percentile.ts';
import { runLoad } from './load.ts';
import type { LoadRequest, LoadResult } from './load.ts';
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
  /** Another baseline than bare node:http (e.g. the same server with a feature off), with its env. */
  baselineServer?: string;
  baselineEnv?: Record<string, string>;
}

/** One load run, with the server's CPU milliseconds over it when /proc could tell. */
type MeasuredRun = LoadResult & { cpuMs?: number };

/**
 * Runs baseline and subject in alternating halves (baseline, subject, baseline, subject), so that
 * neither gains from going second on a machine that warms up or gets busier during the run.
 */
export async function compareHttp(spec: HttpComparison, options: ScenarioOptions): Promise<BenchRecord> {
  const half = { concurrency: options.concurrency, durationMs: Math.max(1, Math.round(options.durationMs / 2)), warmupMs: options.warmupMs };
  const baselineRuns: MeasuredRun[] = [];
  const subjectRuns: MeasuredRun[] = [];
  for (let round = 0; round < 2; round++) {
    baselineRuns.push(await measure(spec.baselineServer ?? BASELINE_SERVER, spec.baselineEnv, { ...half, request: spec.baselineRequest ?? { path: '/' } }));
    subjectRuns.push(await measure(spec.server, spec.env, { ...half, request: spec.request, ...(spec.expectStatus !== undefined && { expectStatus: spec.expectStatus }) }));
  }
  const baseline = combine(baselineRuns);
  const subject = combine(subjectRuns);
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
    cpu_us_per_request: cpuPerRequest(subjectRuns),
    baseline_cpu_us_per_request: cpuPerRequest(baselineRuns),
  };
}

async function measure(server: string, env: Record<string, string> | undefined, load: Parameters<typeof runLoad>[1]): Promise<MeasuredRun> {
  const child = await startChildServer(server, env);
  try {
    await runLoad(child.url, { ...load, durationMs: load.warmupMs, warmupMs: 0 });
    const before = cpuMs(child.pid);
    const result = await runLoad(child.url, { ...load, warmupMs: 0 });
    const after = cpuMs(child.pid);
    return { ...result, ...(before !== undefined && after !== undefined && { cpuMs: after - before }) };
  } finally {
    await child.stop();
  }
}

/** Server CPU microseconds per request over the runs, when /proc told. */
function cpuPerRequest(runs: MeasuredRun[]): number | null {
  if (runs.some((r) => r.cpuMs === undefined)) return null;
  const requests = runs.reduce((sum, r) => sum + r.requests, 0);
  return requests === 0 ? null : round3((runs.reduce((sum, r) => sum + r.cpuMs!, 0) * 1000) / requests);
}

/** Throughput over the summed time; latency percentiles from the merged samples. */
function combine(runs: LoadResult[]): LoadResult {
  const requests = runs.reduce((sum, r) => sum + r.requests, 0);
  const seconds = runs.reduce((sum, r) => sum + r.requests / r.rps, 0);
  const samples = runs.flatMap((r) => r.samples).sort((a, b) => a - b);
  const statuses: Record<string, number> = {};
  for (const run of runs) for (const [status, count] of Object.entries(run.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
  return {
    requests,
    rps: requests / seconds,
    p50_ms: percentile(samples, 0.5),
    p95_ms: percentile(samples, 0.95),
    p99_ms: percentile(samples, 0.99),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    statuses,
    samples,
  };
}
