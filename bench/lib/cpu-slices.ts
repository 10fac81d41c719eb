// CPU per write of in-process harnesses (bench/keyed-write-cpu.ts, bench/erp-delivery-cpu.ts):
// `concurrency` callers write back to back; each slice of `count` writes is timed with
// process.cpuUsage() (user + system: the fsync's wait is not CPU, so a busy disk does not move
// it) and wall time. Several subjects (this tree and a --baseline checkout) alternate slice by
// slice in one process, each on its own database, so a machine that gets busier slows both alike.

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
