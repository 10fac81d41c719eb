// group-commit-sync: what durability costs. Grouped evidence appends (as in evidence-append) on a
// store with its own synchronous=FULL, where every COMMIT waits for fsync, beside the same appends
// with synchronous=OFF (no fsync at all, not durable) as the baseline. The ratio is the share of
// the no-fsync rate that durable group commit keeps. Target (issue 30): at least 0.5.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureGrouped } from '../lib/evidence-load.ts';
import { alternatingFigures } from '../lib/alternating.ts';
import type { Scenario } from '../lib/scenario.ts';

export const scenario: Scenario = {
  name: 'group-commit-sync',
  description: 'Grouped evidence appends with synchronous=FULL vs synchronous=OFF',
  async run(options) {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-bench-sync-'));
    try {
      // Alternating, so that neither gains from a machine that gets busier during the run.
      const full = [await measureGrouped(join(dir, 'full-1.sqlite'), options, 'FULL')];
      const off = [await measureGrouped(join(dir, 'off-1.sqlite'), options, 'OFF')];
      full.push(await measureGrouped(join(dir, 'full-2.sqlite'), options, 'FULL'));
      off.push(await measureGrouped(join(dir, 'off-2.sqlite'), options, 'OFF'));
      return [{
        ...alternatingFigures('group-commit-sync', full, off),
        baseline: 'the same grouped appends with synchronous=OFF',
        baseline_p99_ms: off[1]!.p99_ms,
        mean_batch: full[1]!.mean_batch,
        baseline_mean_batch: off[1]!.mean_batch,
        concurrency: options.concurrency,
        database_dir: tmpdir(),
      }];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
