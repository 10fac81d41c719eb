// The contract every bench scenario keeps: one module under bench/scenarios/ exporting `scenario`,
// whose run() returns one record per measured variant, each beside a baseline from the same run.

/** One line of `npm run bench -- --json`: the fields every scenario reports, plus its own extras. */
export interface BenchRecord {
  scenario: string;
  /** Operations (requests, validations, appends) per second of the thing measured. */
  rps: number;
  /** The same figure for the baseline measured in the same process tree, same run. */
  baseline_rps: number;
  /** rps / baseline_rps. */
  ratio: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  errors: number;
  [extra: string]: unknown;
}

export interface ScenarioOptions {
  /** How long each measured phase lasts. */
  durationMs: number;
  /** How long each warm-up phase lasts (not measured). */
  warmupMs: number;
  /** In-flight operations at once, for scenarios where that applies. */
  concurrency: number;
}

export interface Scenario {
  name: string;
  description: string;
  run(options: ScenarioOptions): Promise<BenchRecord[]>;
}
