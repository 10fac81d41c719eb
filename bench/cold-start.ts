// npm run bench:cold-start -- [--runs N] [--json]: the time from spawn to the "listening" line of
// semantic-api started four ways, beside a bare node:http server started the same way (the
// baseline): the per-command bundle, `airlock.mjs semantic-api`, and (when built with
// `node build.mjs --sea`) the standalone `dist/sea/airlock semantic-api`. Runs alternate, so load
// on the machine falls on every variant alike; medians and the paired airlock-vs-bundle difference print.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { defineCommand, EXIT_FAILED, EXIT_OK, main, usageError } from '../src/kernel/index.ts';
import { percentile } from './lib/percentile.ts';

const ROOT = join(import.meta.dirname, '..');
const BASELINE = "require('node:http').createServer((q, s) => s.end()).listen(0, '127.0.0.1', function () { console.log(JSON.stringify({ msg: 'listening', url: 'http://127.0.0.1:' + this.address().port })); });";

interface Variant {
  name: string;
  command: string;
  args: string[];
}

/** Milliseconds from spawn to the listening line; the child is stopped afterwards. */
function timeToListening(variant: Variant, env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  const child = spawn(variant.command, variant.args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    child.once('exit', (code) => reject(new Error(`${variant.name} exited with ${code} before listening: ${stderr.trim()}`)));
    lines.on('line', (line) => {
      if (!line.includes('"listening"')) return;
      const ms = performance.now() - started;
      child.removeAllListeners('exit');
      child.once('exit', () => resolve(ms));
      child.kill('SIGTERM');
    });
  });
}

const command = defineCommand({
  name: 'cold-start',
  summary: 'Measures the cold start of semantic-api as a bundle, through airlock.mjs and through the standalone airlock binary',
  description: 'Needs dist/ (node build.mjs); dist/sea/airlock joins when present (node build.mjs --sea).',
  options: { runs: { type: 'string', default: '15', valueName: 'N', description: 'Starts per variant' } },
  async run({ values, json, print, printJson }) {
    const runs = Number(values.runs);
    if (!Number.isInteger(runs) || runs < 1) usageError(`Invalid --runs "${values.runs}": use a positive whole number`);
    const bin = join(ROOT, 'dist', 'bin');
    if (!existsSync(join(bin, 'airlock.mjs'))) usageError('dist/bin/airlock.mjs is missing: run node build.mjs first');
    const variants: Variant[] = [
      { name: 'baseline node:http', command: process.execPath, args: ['-e', BASELINE] },
      { name: 'semantic-api.mjs', command: process.execPath, args: [join(bin, 'semantic-api.mjs')] },
      { name: 'airlock.mjs semantic-api', command: process.execPath, args: [join(bin, 'airlock.mjs'), 'semantic-api'] },
    ];
    const sea = join(ROOT, 'dist', 'sea', 'airlock');
    if (existsSync(sea)) variants.push({ name: 'sea airlock semantic-api', command: sea, args: ['semantic-api'] });
    const dir = mkdtempSync(join(tmpdir(), 'airlock-cold-start-'));
    writeFileSync(join(dir, 'tokens.json'), JSON.stringify({ 'live-runtime-contract-check': 'bench-consumer-token-0123456789' }));
    const env = { PATH: process.env['PATH'] ?? '', AIRLOCK_DATA_DIR: dir, SEMANTIC_LISTEN: '127.0.0.1:0', SEMANTIC_OPERATOR_TOKEN: 'bench-operator-token-0123456789', SEMANTIC_CONSUMER_TOKENS_FILE: join(dir, 'tokens.json') };
    const samples = new Map<string, number[]>(variants.map((v) => [v.name, []]));
    try {
      for (const variant of variants) await timeToListening(variant, env); // warm the page cache
      for (let i = 0; i < runs; i++) for (const variant of variants) samples.get(variant.name)!.push(await timeToListening(variant, env));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const rows = variants.map((v) => {
      const sorted = [...samples.get(v.name)!].sort((a, b) => a - b);
      return { variant: v.name, median_ms: Number(percentile(sorted, 0.5).toFixed(1)), p90_ms: Number(percentile(sorted, 0.9).toFixed(1)) };
    });
    const median = (name: string) => rows.find((r) => r.variant === name)?.median_ms ?? NaN;
    // Paired: each round starts the bundle and airlock.mjs back to back, so load that comes and
    // goes on a shared machine falls on both; the median of the per-round differences is the figure.
    const bundle = samples.get('semantic-api.mjs')!;
    const paired = samples.get('airlock.mjs semantic-api')!.map((ms, i) => ms - (bundle[i] ?? ms)).sort((a, b) => a - b);
    const delta = Number(percentile(paired, 0.5).toFixed(1));
    const within = delta <= 20;
    if (json) printJson({ ok: within, runs, rows, airlock_minus_bundle_ms: delta });
    else {
      for (const r of rows) print(`${r.variant.padEnd(28)} median ${String(r.median_ms).padStart(6)} ms   p90 ${String(r.p90_ms).padStart(6)} ms   (${(r.median_ms / median('baseline node:http')).toFixed(2)}x baseline)`);
      print(`airlock.mjs - bundle, median of ${runs} paired rounds: ${delta} ms (${within ? 'within' : 'over'} the 20 ms budget)`);
    }
    return within ? EXIT_OK : EXIT_FAILED;
  },
});

await main(command);
