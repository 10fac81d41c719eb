// The measurements the scale harness takes at each size: read-route latency, readiness under the
// heaviest read, idle CPU, start-up time to the listening line, bytes on disk per business event,
// and verify_evidence_chain's rows per second.

import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { listEvidenceTables, openDatabaseReadOnly, verifyChainParallel } from '../../src/kernel/index.ts';
import { cpuMs } from '../lib/child-server.ts';
import { runLoad } from '../lib/load.ts';
import { round3 } from '../lib/percentile.ts';
import type { ReadRoute, ScaleProfile } from './profile.ts';

export interface RunningService {
  url: string;
  pid: number;
  /** Milliseconds from spawn to the listening line. */
  startupMs: number;
  stop(): Promise<void>;
}

/** Starts the profile's service as its own process; resolves at its listening line. */
export function startService(profile: ScaleProfile, dataDir: string, options: { bundle?: boolean } = {}): Promise<RunningService> {
  const entry = options.bundle === true ? fileURLToPath(new URL(`../../dist/bin/${profile.bundle}`, import.meta.url)) : profile.entry;
  if (!existsSync(entry)) throw new Error(`Cannot start ${profile.service}: ${entry} does not exist (run npm run build for --bundle)`);
  const started = performance.now();
  const child = spawn(process.execPath, [entry], { env: { ...process.env, ...profile.env(dataDir) }, stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const onExit = (code: number | null) => reject(new Error(`${profile.service} exited with ${code} before listening`));
    child.once('exit', onExit);
    lines.on('line', (line) => {
      if (!line.includes('"listening"')) return;
      if (profile.listener !== undefined && (JSON.parse(line) as { listener?: string }).listener !== profile.listener) return;
      const startupMs = performance.now() - started;
      child.off('exit', onExit);
      lines.close();
      resolve({
        url: (JSON.parse(line) as { url: string }).url,
        pid: child.pid!,
        startupMs,
        stop: () => new Promise<void>((done) => {
          if (child.exitCode !== null) return done();
          child.once('exit', () => done());
          child.kill('SIGTERM');
        }),
      });
    });
  });
}

export interface Latency {
  route: string;
  requests: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  statuses: Record<string, number>;
}

/** One client asking `route` back to back for `durationMs` (after a short warm-up). */
export async function timeRoute(url: string, route: ReadRoute, durationMs: number): Promise<Latency> {
  const result = await runLoad(url, { request: route.request, concurrency: 1, durationMs, warmupMs: Math.min(300, durationMs), ...(route.expectStatus !== undefined && { expectStatus: route.expectStatus }) });
  return { route: route.name, requests: result.requests, p50_ms: result.p50_ms, p95_ms: result.p95_ms, p99_ms: result.p99_ms, statuses: result.statuses };
}

/** The readiness probe, one client, while 8 clients run the heaviest read in a loop. */
export async function readinessUnderLoad(url: string, profile: ScaleProfile, durationMs: number): Promise<{ readiness: Latency; heaviest: Latency }> {
  const [readiness, heaviest] = await Promise.all([
    runLoad(url, { request: profile.readiness.request, concurrency: 1, durationMs, warmupMs: 300 }),
    runLoad(url, { request: profile.heaviest.request, concurrency: 8, durationMs: durationMs + 300, warmupMs: 0, ...(profile.heaviest.expectStatus !== undefined && { expectStatus: profile.heaviest.expectStatus }) }),
  ]);
  const latency = (route: ReadRoute, result: typeof readiness): Latency => ({ route: route.name, requests: result.requests, p50_ms: result.p50_ms, p95_ms: result.p95_ms, p99_ms: result.p99_ms, statuses: result.statuses });
  return { readiness: latency(profile.readiness, readiness), heaviest: latency(profile.heaviest, heaviest) };
}

/** CPU milliseconds the idle process used per second over `ms` (its worker polls). */
export async function idleCpuMsPerSecond(pid: number, ms: number): Promise<number | null> {
  const before = cpuMs(pid);
  await new Promise((resolve) => setTimeout(resolve, ms));
  const after = cpuMs(pid);
  return before === undefined || after === undefined ? null : round3((after - before) / (ms / 1000));
}

/** Bytes of the database with its WAL and shared memory files. */
export function databaseBytes(path: string): number {
  return ['', '-wal', '-shm'].reduce((sum, suffix) => sum + (existsSync(`${path}${suffix}`) ? statSync(`${path}${suffix}`).size : 0), 0);
}

/** verify_evidence_chain over every table, as the command runs it: rows checked per second. */
export async function verifyRate(path: string): Promise<{ rows: number; seconds: number; rows_per_second: number; ok: boolean }> {
  const sqlite = openDatabaseReadOnly(path);
  try {
    const started = performance.now();
    let rows = 0;
    let ok = true;
    for (const table of listEvidenceTables(sqlite)) {
      const result = await verifyChainParallel(sqlite, table, { path, threads: Math.min(availableParallelism(), 4) });
      if (result.ok) rows += result.rows;
      else ok = false;
    }
    const seconds = (performance.now() - started) / 1000;
    return { rows, seconds: round3(seconds), rows_per_second: Math.round(rows / seconds), ok };
  } finally {
    sqlite.close();
  }
}
