// npm run bench -- [scenario...] [--json] [--duration-ms N] [--warmup-ms N] [--concurrency N]
// Runs each named scenario (all of them by default) and prints its figures beside its baseline.

import { readdirSync } from 'node:fs';
import { basename } from 'node:path';
import { defineCommand, EXIT_OK, main, usageError, wholeNumberOption } from '../src/kernel/index.ts';
import type { BenchRecord, Scenario } from './lib/scenario.ts';

const SCENARIO_DIR = new URL('./scenarios/', import.meta.url);

function available(): string[] {
  return readdirSync(SCENARIO_DIR).filter((f) => f.endsWith('.ts')).map((f) => basename(f, '.ts')).sort();
}

const command = defineCommand({
  name: 'bench',
  summary: 'Runs load scenarios and reports throughput and latency beside a baseline from the same run',
  positionals: '[SCENARIO...]',
  description: `Scenarios: ${available().join(', ')}`,
  options: {
    'duration-ms': { type: 'string', default: '5000', valueName: 'N', description: 'Measured time per phase' },
    'warmup-ms': { type: 'string', default: '5000', valueName: 'N', description: 'Warm-up time of each server under load before it is measured' },
    concurrency: { type: 'string', default: '50', valueName: 'N', description: 'Requests or operations in flight' },
  },
  async run({ values, positionals, json, print }) {
    const names = positionals.length > 0 ? positionals : available();
    const unknown = names.filter((n) => !available().includes(n));
    if (unknown.length > 0) usageError(`Unknown scenario "${unknown[0]}": choose from ${available().join(', ')}`);
    const options = {
      durationMs: wholeNumberOption('--duration-ms', values['duration-ms']),
      warmupMs: wholeNumberOption('--warmup-ms', values['warmup-ms']),
      concurrency: wholeNumberOption('--concurrency', values.concurrency),
    };
    for (const name of names) {
      const { scenario } = (await import(new URL(`${name}.ts`, SCENARIO_DIR).href)) as { scenario: Scenario };
      for (const record of await scenario.run(options)) print(json ? JSON.stringify(record) : describe(record));
    }
    return EXIT_OK;
  },
});

function describe(r: BenchRecord): string {
  return `${r.scenario}: ${r.rps} /s vs baseline ${r.baseline_rps} /s = ${r.ratio}x; p50 ${r.p50_ms} ms, p95 ${r.p95_ms} ms, p99 ${r.p99_ms} ms; errors ${r.errors}`;
}

await main(command);
