// Measures one HTTP scenario beside the bare node:http baseline, in the same run and process
// tree, and reports the ratio, so that the figure means something on a noisy machine.

import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { cpuMs, startChildServer } from './child-server.ts';
import type { ChildServer } from './child-server.ts';
import { percentile, round3 } from './percentile.ts';
import { runLoad } from './load.ts';
import type { LoadRequest, LoadResult } from './load.ts';
import type { BenchRecord, ScenarioOptions } from './scenario.ts';

/**
 * Idle time before each measured half: work a server (or its peers, such as nats-server) still
 * does after its own load ended must not fall into the other server's half.
 */
const SETTLE_MS = 500;

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
 * Starts baseline and subject once each and warms each up under the same load, then measures them
 * in alternating halves (baseline, subject, baseline, subject), so that neither gains from going
 * second on a machine that gets busier during the run. Both stay up; only one is loaded at a time.
 * The warm-up is what makes this steady-state throughput: a JIT-compiled server needs a few seconds
 * under load to get there (docs in README, "Benchmarks").
 */
export async function compareHttp(spec: HttpComparison, options: ScenarioOptions): Promise<BenchRecord> {
  const half = { concurrency: options.concurrency, durationMs: Math.max(1, Math.round(options.durationMs / 2)), warmupMs: 0 };
  const baselineLoad = { ...half, request: spec.baselineRequest ?? { path: '/' } };
  const subjectLoad = { ...half, request: spec.request, ...(spec.expectStatus !== undefined && { expectStatus: spec.expectStatus }) };
  const baselineServer = await startChildServer(spec.baselineServer ?? BASELINE_SERVER, spec.baselineEnv);
  let subjectServer: ChildServer | undefined;
  const baselineRuns: MeasuredRun[] = [];
  const subjectRuns: MeasuredRun[] = [];
  try {
    subjectServer = await startChildServer(spec.server, spec.env);
    await runLoad(baselineServer.url, { ...baselineLoad, durationMs: options.warmupMs });
    await runLoad(subjectServer.url, { ...subjectLoad, durationMs: options.warmupMs });
    for (let round = 0; round < 2; round++) {
      await sleep(SETTLE_MS);
      baselineRuns.push(await measure(baselineServer, baselineLoad));
      await sleep(SETTLE_MS);
      subjectRuns.push(await measure(subjectServer, subjectLoad));
    }
  } finally {
    await subjectServer?.stop();
    await baselineServer.stop();
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

async function measure(child: ChildServer, load: Parameters<typeof runLoad>[1]): Promise<MeasuredRun> {
  const before = cpuMs(child.pid);
  const result = await runLoad(child.url, load);
  const after = cpuMs(child.pid);
  return { ...result, ...(before !== undefined && after !== undefined && { cpuMs: after - before }) };
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
