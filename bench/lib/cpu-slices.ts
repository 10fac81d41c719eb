// CPU per write of in-process harnesses (bench/keyed-write-cpu.ts, bench/erp-delivery-cpu.ts):
// `concurrency` callers write back to back; each slice of `count` writes is timed with
// process.cpuUsage() (user + system: the fsync's wait is not CPU, so a busy disk does not move
// it) and wall time. Several subjects (this tree and a --baseline checkout) alternate slice by
// slice in one process, each on its own database, so a machine that gets busier slows both alike.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { defineCommand, EXIT_OK, main, wholeNumberOption } from '../../src/kernel/index.ts';
import type { Store } from '../../src/kernel/index.ts';
import { median, round3 } from './percentile.ts';

export interface CpuSubject {
  name: string;
  /** One write; rejects when it was not answered as expected. */
  write: () => Promise<void>;
  /** Its database (commit statistics; closed by the caller). */
  store: Store;
}

export interface SliceFigures {
  cpuUs: number;
  rate: number;
  batch: number;
}

/** `count` writes, `concurrency` in flight; CPU microseconds per write, writes per second and writes per commit. */
export async function cpuSlice(subject: CpuSubject, count: number, concurrency: number): Promise<SliceFigures> {
  let started = 0;
  const caller = async () => {
    while (started < count) {
      started++;
      await subject.write();
    }
  };
  const before = subject.store.stats();
  const cpu = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, caller));
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const used = process.cpuUsage(cpu);
  const after = subject.store.stats();
  return { cpuUs: (used.user + used.system) / count, rate: count / seconds, batch: (after.writes - before.writes) / Math.max(1, after.commits - before.commits) };
}

export interface AlternatingOptions {
  runs: number;
  slices: number;
  count: number;
  concurrency: number;
  warmup: number;
  /** What one write is called in the text output ("keyed write", "delivery"). */
  unit: string;
  json: boolean;
  print: (line: string) => void;
}

/** Warms each subject up, then runs `runs` runs of alternating slices and prints each subject's medians per run. */
export async function runAlternatingSlices(subjects: readonly CpuSubject[], options: AlternatingOptions): Promise<void> {
  const { runs, slices, count, concurrency, warmup, unit, json, print } = options;
  for (const subject of subjects) if (warmup > 0) await cpuSlice(subject, warmup, concurrency);
  for (let run = 1; run <= runs; run++) {
    const figures = subjects.map(() => [] as SliceFigures[]);
    for (let s = 0; s < slices; s++) {
      for (let i = 0; i < subjects.length; i++) figures[i]!.push(await cpuSlice(subjects[i]!, count, concurrency));
    }
    for (let i = 0; i < subjects.length; i++) {
      const mine = figures[i]!;
      const cpu = mine.map((f) => f.cpuUs);
      const record = {
        run,
        subject: subjects[i]!.name,
        cpu_us_per_write: round3(median(cpu)),
        cpu_us_min: round3(Math.min(...cpu)),
        cpu_us_max: round3(Math.max(...cpu)),
        writes_per_s: Math.round(median(mine.map((f) => f.rate))),
        writes_per_commit: round3(median(mine.map((f) => f.batch))),
      };
      if (json) print(JSON.stringify(record));
      else print(`run ${run} ${record.subject}: ${record.cpu_us_per_write} us CPU per ${unit} (${record.cpu_us_min} to ${record.cpu_us_max}); ${record.writes_per_s} writes/s; ${record.writes_per_commit} writes per commit`);
    }
  }
}

export interface CpuHarness {
  name: string;
  summary: string;
  /** What one write is called ("keyed write", "delivery"). */
  unit: string;
  /** Default writes per slice and warm-up writes per subject. */
  slice: number;
  warmup: number;
  /** The subject of the tree at `root` (this checkout or --baseline), on a new database under `dir`. */
  subjectOf: (name: string, root: string, dir: string) => Promise<CpuSubject>;
}

/** The command line of an in-process CPU harness: this tree, optionally a --baseline tree, alternating slices. */
export async function runCpuHarness(harness: CpuHarness): Promise<void> {
  const command = defineCommand({
    name: harness.name,
    summary: harness.summary,
    options: {
      baseline: { type: 'string', valueName: 'DIR', description: 'Another checkout of this project to time beside (optional)' },
      runs: { type: 'string', default: '3', valueName: 'N', description: 'Runs, each reporting its own medians' },
      slices: { type: 'string', default: '10', valueName: 'N', description: 'Slices per subject in one run' },
      slice: { type: 'string', default: String(harness.slice), valueName: 'N', description: 'Writes per slice' },
      concurrency: { type: 'string', default: '50', valueName: 'N', description: 'Writes in flight' },
      warmup: { type: 'string', default: String(harness.warmup), valueName: 'N', description: 'Writes per subject before the first slice' },
    },
    async run({ values, json, print }) {
      const runs = wholeNumberOption('--runs', values.runs);
      const slices = wholeNumberOption('--slices', values.slices);
      const count = wholeNumberOption('--slice', values.slice);
      const concurrency = wholeNumberOption('--concurrency', values.concurrency);
      const warmup = wholeNumberOption('--warmup', values.warmup, 0);
      const dir = mkdtempSync(join(tmpdir(), `airlock-bench-${harness.name}-`));
      const subjects: CpuSubject[] = [];
      try {
        subjects.push(await harness.subjectOf('ours', join(import.meta.dirname, '..', '..'), join(dir, 'ours')));
        if (values.baseline !== undefined) subjects.push(await harness.subjectOf('baseline', resolve(values.baseline), join(dir, 'baseline')));
        await runAlternatingSlices(subjects, { runs, slices, count, concurrency, warmup, unit: harness.unit, json, print });
      } finally {
        for (const subject of subjects) await subject.store.close();
        rmSync(dir, { recursive: true, force: true });
      }
      return EXIT_OK;
    },
  });
  await main(command);
}
