// npm run bench:scale -- [SERVICE...] [--rows N[,N...]] [--json] [--read-ms N] [--data-dir DIR] [--bundle] [--grow direct|http] [--paired N]
// Issue 24: grows each service's evidence through its real write path to each size and measures,
// at each size, every read route's latency, readiness while 8 clients run the heaviest read, CPU
// per idle second, start-up time, bytes on disk per business event and verify_evidence_chain's
// rows per second. Prints a table (or one JSON document) and says which figures grew.

import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineCommand, EXIT_OK, main, usageError, wholeNumberOption } from '../src/kernel/index.ts';
import { databaseBytes, idleCpuMsPerSecond, readinessUnderLoad, startService, timeRoute, verifyRate } from './scale/measure.ts';
import type { Latency } from './scale/measure.ts';
import type { ScaleProfile, WriteLoadResult } from './scale/profile.ts';
import { agentContextProfile } from './scale/profiles/agent-context.ts';
import { contentProfile } from './scale/profiles/content.ts';
import { erpProfile } from './scale/profiles/erp.ts';
import { governanceProfile } from './scale/profiles/governance.ts';
import { messagingProfile } from './scale/profiles/messaging.ts';
import { semanticProfile } from './scale/profiles/semantic.ts';

const PROFILES: Record<string, () => ScaleProfile> = {
  erp: erpProfile, governance: governanceProfile, content: contentProfile, semantic: semanticProfile, messaging: messagingProfile, 'agent-context': agentContextProfile,
};

export interface SizeRecord {
  service: string;
  rows: number;
  business_event: string;
  grow_seconds: number;
  startup_ms: number;
  idle_cpu_ms_per_s: number | null;
  reads: Latency[];
  readiness_under_load: Latency;
  heaviest: Latency;
  bytes_per_event: number;
  raw_bytes_per_event: number;
  verify: { rows: number; seconds: number; rows_per_second: number; ok: boolean };
  /** The profile's write load at this size (ERP: its performance gate), when it has one. */
  write_load?: WriteLoadResult & { name: string; seconds: number };
  /** --paired: each route's median p95 over the passes at the smallest size and at this one, taken in turn. */
  paired?: { passes: number; smallest_rows: number; routes: { route: string; smallest_p95_ms: number; largest_p95_ms: number }[] };
}

const command = defineCommand({
  name: 'bench:scale',
  summary: 'Grows each service\'s evidence to each size and measures its reads, readiness under load, idle CPU, start-up, bytes per event and chain verification',
  positionals: '[SERVICE...]',
  description: `Services: ${Object.keys(PROFILES).join(', ')}. Sizes are business events (--rows 10000,100000,1000000 by default; 10000000 when asked, on a disk with room).`,
  options: {
    rows: { type: 'string', default: '10000,100000,1000000', valueName: 'N[,N...]', description: 'Sizes to measure at, ascending' },
    'read-ms': { type: 'string', default: '1500', valueName: 'N', description: 'Milliseconds each read route is timed' },
    'data-dir': { type: 'string', valueName: 'DIR', description: 'Where the databases grow (default: a temporary directory, removed after)' },
    bundle: { type: 'boolean', description: 'Start the bundled executable (dist/bin, npm run build) instead of the TypeScript entry' },
    grow: { type: 'string', default: 'direct', valueName: 'direct|http', description: 'Grow through the service\'s write functions in this process (direct), or through HTTP to the running service' },
    paired: { type: 'string', default: '0', valueName: 'N', description: 'After the largest size, time every read route N more times at the smallest and at the largest size in turn (a copy of the smallest is kept): the 2x target then compares medians taken in the same minutes' },
  },
  async run({ values, positionals, json, print, printJson }) {
    const names = positionals.length > 0 ? positionals : Object.keys(PROFILES);
    const unknown = names.find((name) => !(name in PROFILES));
    if (unknown !== undefined) usageError(`Unknown service "${unknown}": choose from ${Object.keys(PROFILES).join(', ')}`);
    const sizes = values.rows.split(',').map((text) => wholeNumberOption('--rows', text.trim()));
    if (sizes.some((size, i) => i > 0 && size <= sizes[i - 1]!)) usageError(`--rows must ascend, got ${values.rows}`);
    const readMs = wholeNumberOption('--read-ms', values['read-ms']);
    if (values.grow !== 'direct' && values.grow !== 'http') usageError(`--grow must be direct or http, got "${values.grow}"`);
    const grow = values.grow;
    const passes = wholeNumberOption('--paired', values.paired, 0);
    const records: SizeRecord[] = [];
    for (const name of names) {
      const profile = PROFILES[name]!();
      const dataDir = values['data-dir'] === undefined ? mkdtempSync(join(tmpdir(), `airlock-scale-${name}-`)) : join(values['data-dir'], name);
      const smallest = `${dataDir}-smallest`;
      try {
        await profile.start?.();
        for (const rows of sizes) {
          await profile.setup?.();
          const record = await measureAt(profile, dataDir, { rows, readMs, grow, bundle: values.bundle === true });
          records.push(record);
          if (!json) print(describe(record));
          if (passes > 0 && sizes.length > 1 && rows === sizes[0]) cpSync(dataDir, smallest, { recursive: true });
        }
        if (passes > 0 && sizes.length > 1) {
          const last = records.at(-1)!;
          last.paired = await pairedReads(profile, { smallest, largest: dataDir, passes, readMs, bundle: values.bundle === true, smallestRows: sizes[0]! });
          if (!json) print(describePaired(last));
        }
      } finally {
        await profile.teardown?.();
        await profile.stop?.();
        rmSync(smallest, { recursive: true, force: true });
        if (values['data-dir'] === undefined) rmSync(dataDir, { recursive: true, force: true });
      }
    }
    const verdicts = targets(records);
    if (json) printJson({ records, targets: verdicts });
    else print(`${table(records)}\n\n${verdicts.map((v) => `${v.compared === false ? 'n/a    ' : v.met ? 'met    ' : 'NOT MET'} ${v.target}: ${v.observed}`).join('\n')}`);
    // A bench on a shared machine reports; it does not fail the build.
    return EXIT_OK;
  },
});

async function measureAt(profile: ScaleProfile, dataDir: string, options: { rows: number; readMs: number; grow: 'direct' | 'http'; bundle: boolean }): Promise<SizeRecord> {
  const { rows, readMs } = options;
  const growStarted = performance.now();
  let grown;
  mkdirSync(dataDir, { recursive: true });
  if (options.grow === 'direct' && profile.growDirect !== undefined) {
    grown = await profile.growDirect(dataDir, rows);
  } else {
    const writer = await startService(profile, dataDir);
    try {
      grown = await profile.grow(writer.url, rows);
    } finally {
      await writer.stop();
    }
  }
  const growSeconds = (performance.now() - growStarted) / 1000;
  let service;
  // Start-up is timed on a restart over the grown database, as an operator would see it.
  service = await startService(profile, dataDir, { bundle: options.bundle });
  try {
    const idle = await idleCpuMsPerSecond(service.pid, 3000);
    const reads: Latency[] = [];
    for (const route of profile.reads) reads.push(await timeRoute(service.url, route, readMs));
    const { readiness, heaviest } = await readinessUnderLoad(service.url, profile, Math.max(readMs, 3000));
    await service.stop();
    const bytes = databaseBytes(profile.database(dataDir));
    return {
      service: profile.service,
      rows,
      business_event: profile.businessEvent,
      grow_seconds: Math.round(growSeconds),
      startup_ms: Math.round(service.startupMs),
      idle_cpu_ms_per_s: idle,
      reads,
      readiness_under_load: readiness,
      heaviest,
      bytes_per_event: Math.round(bytes / grown.events),
      raw_bytes_per_event: Math.round(grown.rawBytes / grown.events),
      verify: await verifyRate(profile.database(dataDir)),
      ...(profile.writeLoad && { write_load: await writeLoadOnCopy(profile, dataDir, options.bundle) }),
    };
  } finally {
    await service.stop();
  }
}

/**
 * Times every read route at the smallest size and at the largest in turn, `passes` times, so
 * that both figures of the 2x comparison come from the same minutes of a shared machine.
 */
async function pairedReads(profile: ScaleProfile, options: { smallest: string; largest: string; passes: number; readMs: number; bundle: boolean; smallestRows: number }): Promise<NonNullable<SizeRecord['paired']>> {
  const p95s = { smallest: new Map<string, number[]>(), largest: new Map<string, number[]>() };
  for (let pass = 0; pass < options.passes; pass++) {
    for (const side of ['smallest', 'largest'] as const) {
      await profile.setup?.();
      const service = await startService(profile, options[side], { bundle: options.bundle });
      try {
        for (const route of profile.reads) {
          const latency = await timeRoute(service.url, route, options.readMs);
          p95s[side].set(route.name, [...(p95s[side].get(route.name) ?? []), latency.p95_ms]);
        }
      } finally {
        await service.stop();
      }
    }
  }
  const median = (values: number[] | undefined) => {
    const sorted = [...(values ?? [])].sort((a, b) => a - b);
    return sorted.length === 0 ? Number.NaN : sorted[Math.floor((sorted.length - 1) / 2)]!;
  };
  return {
    passes: options.passes,
    smallest_rows: options.smallestRows,
    routes: profile.reads.map((route) => ({ route: route.name, smallest_p95_ms: median(p95s.smallest.get(route.name)), largest_p95_ms: median(p95s.largest.get(route.name)) })),
  };
}

function describePaired(record: SizeRecord): string {
  const paired = record.paired!;
  return [
    `${record.service}: ${paired.passes} paired passes, median p95 at ${paired.smallest_rows} against ${record.rows}:`,
    ...paired.routes.map((r) => `  ${r.route}: ${r.smallest_p95_ms} ms against ${r.largest_p95_ms} ms`),
  ].join('\n');
}

const WRITE_LOAD_SECONDS = 20;

/**
 * The profile's write load against the service started over a copy of the grown data directory:
 * its writes must not count as grown events, nor stay for the next size.
 */
async function writeLoadOnCopy(profile: ScaleProfile, dataDir: string, bundle: boolean): Promise<NonNullable<SizeRecord['write_load']>> {
  const load = profile.writeLoad!;
  const copy = `${dataDir}-write-load`;
  rmSync(copy, { recursive: true, force: true });
  cpSync(dataDir, copy, { recursive: true });
  try {
    const service = await startService(profile, copy, { bundle });
    try {
      return { name: load.name, seconds: WRITE_LOAD_SECONDS, ...(await load.run(service.url, copy, WRITE_LOAD_SECONDS)) };
    } finally {
      await service.stop();
    }
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/** The issue's targets at the largest size of each service, against its smallest size in the same run. */
function targets(records: SizeRecord[]): { service: string; target: string; met: boolean; observed: string; compared?: false }[] {
  const out: { service: string; target: string; met: boolean; observed: string; compared?: false }[] = [];
  for (const service of [...new Set(records.map((r) => r.service))]) {
    const mine = records.filter((r) => r.service === service);
    const [first, last] = [mine[0]!, mine.at(-1)!];
    const add = (target: string, met: boolean, observed: string) => out.push({ service, target: `${service} at ${last.rows}: ${target}`, met, observed });
    if (last.paired) {
      // Both figures from the same minutes: medians of the paired passes. A route with no
      // successful answer on one side (a planning session made after the smallest size was
      // copied) has nothing to compare: named, not judged.
      for (const route of last.paired.routes) {
        if (!(route.smallest_p95_ms > 0 && route.largest_p95_ms > 0)) {
          out.push({ service, target: `${service} at ${last.rows}: ${route.route}, paired medians`, met: false, compared: false, observed: `not compared: no successful answer at ${route.smallest_p95_ms > 0 ? last.rows : first.rows}` });
          continue;
        }
        const limit = Math.min(50, 2 * route.smallest_p95_ms);
        add(`${route.route} p95 <= min(50 ms, 2 x its ${first.rows} figure), paired medians`, route.largest_p95_ms <= limit, `${route.largest_p95_ms} ms (${first.rows}: ${route.smallest_p95_ms} ms)`);
      }
    } else {
      for (const route of last.reads) {
        const base = first.reads.find((r) => r.route === route.route);
        const limit = Math.min(50, 2 * (base?.p95_ms ?? Infinity));
        add(`${route.route} p95 <= min(50 ms, 2 x its ${first.rows} figure)`, route.p95_ms <= limit, `${route.p95_ms} ms (${first.rows}: ${base?.p95_ms ?? '-'} ms)`);
      }
    }
    add('readiness p99 <= 50 ms while 8 clients run the heaviest read', last.readiness_under_load.p99_ms <= 50, `${last.readiness_under_load.p99_ms} ms`);
    add('start-up < 1 s', last.startup_ms < 1000, `${last.startup_ms} ms`);
    add(`idle CPU independent of size`, (last.idle_cpu_ms_per_s ?? 0) <= Math.max(10, 2 * (first.idle_cpu_ms_per_s ?? 0)), `${last.idle_cpu_ms_per_s} ms/s (${first.rows}: ${first.idle_cpu_ms_per_s} ms/s)`);
    add(`bytes on disk per ${last.business_event} <= 2 x raw body`, last.bytes_per_event <= 2 * last.raw_bytes_per_event, `${last.bytes_per_event} (raw ${last.raw_bytes_per_event})`);
    add('verify_evidence_chain >= 200000 rows/s', last.verify.rows_per_second >= 200_000, `${last.verify.rows_per_second} rows/s`);
    if (first.write_load && last.write_load) {
      // "Unchanged": within a fifth of its figure at the smallest size, or 5 ms, whichever is more.
      const limit = first.write_load.p95_ms + Math.max(5, first.write_load.p95_ms / 5);
      add(`${last.write_load.name} p95 unchanged (within 20 % or 5 ms of its ${first.rows} figure)`, last.write_load.p95_ms <= limit, `${last.write_load.p95_ms} ms (${first.rows}: ${first.write_load.p95_ms} ms; errors ${last.write_load.errors}/${last.write_load.requests})`);
    }
  }
  return out;
}

function describe(record: SizeRecord): string {
  const statuses = (latency: Latency) => Object.entries(latency.statuses).map(([status, count]) => `${status}x${count}`).join(' ');
  return [
    `${record.service} at ${record.rows} ${record.business_event}s (grown in ${record.grow_seconds} s):`,
    `  start-up ${record.startup_ms} ms; idle CPU ${record.idle_cpu_ms_per_s} ms/s; ${record.bytes_per_event} bytes on disk per ${record.business_event} (raw body ${record.raw_bytes_per_event}); verify_evidence_chain ${record.verify.rows_per_second} rows/s over ${record.verify.rows} rows${record.verify.ok ? '' : ' (BROKEN)'}`,
    ...record.reads.map((r) => `  ${r.route}: p50 ${r.p50_ms} p95 ${r.p95_ms} p99 ${r.p99_ms} ms (${statuses(r)})`),
    `  readiness under 8 x heaviest read: p50 ${record.readiness_under_load.p50_ms} p95 ${record.readiness_under_load.p95_ms} p99 ${record.readiness_under_load.p99_ms} ms (${statuses(record.readiness_under_load)}); heaviest ${statuses(record.heaviest)}, p95 ${record.heaviest.p95_ms} ms`,
    ...(record.write_load ? [`  ${record.write_load.name} for ${record.write_load.seconds} s: ${record.write_load.requests} requests, ${record.write_load.errors} errors, p50 ${record.write_load.p50_ms} p95 ${record.write_load.p95_ms} p99 ${record.write_load.p99_ms} ms`] : []),
  ].join('\n');
}

/** One row per route and size, p95 beside the smallest size's p95 (the issue's 2x target). */
function table(records: SizeRecord[]): string {
  const lines = ['| service | rows | route | p50 ms | p95 ms | p99 ms | p95 / smallest |', '|---|---|---|---|---|---|---|'];
  for (const record of records) {
    const first = records.find((r) => r.service === record.service)!;
    const rows = [...record.reads, { ...record.readiness_under_load, route: `${record.readiness_under_load.route} under 8 x heaviest read` }];
    for (const r of rows) {
      const base = [...first.reads, { ...first.readiness_under_load, route: `${first.readiness_under_load.route} under 8 x heaviest read` }].find((b) => b.route === r.route);
      const ratio = base && base.p95_ms > 0 ? (r.p95_ms / base.p95_ms).toFixed(2) : '';
      lines.push(`| ${record.service} | ${record.rows} | ${r.route} | ${r.p50_ms} | ${r.p95_ms} | ${r.p99_ms} | ${ratio} |`);
    }
  }
  lines.push('', '| service | rows | start-up ms | idle CPU ms/s | bytes/event (raw body) | verify rows/s |', '|---|---|---|---|---|---|');
  for (const r of records) lines.push(`| ${r.service} | ${r.rows} | ${r.startup_ms} | ${r.idle_cpu_ms_per_s} | ${r.bytes_per_event} (${r.raw_bytes_per_event}) | ${r.verify.rows_per_second} |`);
  return lines.join('\n');
}

await main(command);
