// The figures of a subject measured in alternating runs beside its baseline (baseline, subject,
// baseline, subject), so that neither gains from a machine that gets busier during the run.

import { round3 } from './percentile.ts';
import type { BenchRecord } from './scenario.ts';

/** What one run of either side reports. */
export interface RunFigures {
  rps: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  errors: number;
}

/** Mean rates of each side and their ratio; latency from the subject's last run; errors of both. */
export function alternatingFigures(scenario: string, subject: readonly RunFigures[], baseline: readonly RunFigures[]): BenchRecord {
  const rate = (runs: readonly RunFigures[]): number => runs.reduce((sum, run) => sum + run.rps, 0) / runs.length;
  const last = subject[subject.length - 1];
  if (last === undefined || baseline.length === 0) throw new RangeError(`Scenario "${scenario}" measured no runs`);
  return {
    scenario,
    rps: Math.round(rate(subject)),
    baseline_rps: Math.round(rate(baseline)),
    ratio: round3(rate(subject) / rate(baseline)),
    p50_ms: last.p50_ms,
    p95_ms: last.p95_ms,
    p99_ms: last.p99_ms,
    errors: [...subject, ...baseline].reduce((sum, run) => sum + run.errors, 0),
  };
}
