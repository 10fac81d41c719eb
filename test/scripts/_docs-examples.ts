// Every shell example of README.md and docs/*.md, as a newcomer on a fresh clone runs it (issue
// 29): with whatever `node` the PATH has (the examples say `npx node` where Node 26 matters), from
// the checkout, against the stack `npm start` runs. Examples that need root or a host install,
// that are the test suite or the release themselves, or that run for minutes by design are
// listed with the reason they are not run here. A trailing "# exit N" says the exit to expect.
//
// Two things differ from a newcomer's run, both rewritten in the example text and nowhere else:
// the stack listens on free ports (the default ones may be taken on a shared machine), and its
// data directory (where ./var/dev-secrets.json lives) is a temporary one; bundles come from a
// build into a temporary folder (test/helpers/shared-build.ts), as `npm run build` would make them.
//
// A suite, not a test file: test/contracts/live-stack.test.ts runs it on the stack it shares with
// the other suites that need the whole stack (one start instead of one per suite).

import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { globSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { LiveStack } from '../contracts/_live-stack.ts';
import { sharedBuild } from '../helpers/shared-build.ts';

const ROOT = join(import.meta.dirname, '..', '..');

interface Example { file: string; block: number; script: string }

/** Not run here, and why: the first rule a line matches (as the docs write it, before any rewrite). */
const NOT_RUN: readonly [RegExp, string][] = [
  [/\/srv\/|\/etc\/|\/opt\/|\bsudo\b|--enable\b|systemctl/, 'needs root or a host install'],
  [/npm run release|dist\/sea\//, 'the release (test/delivery/release.test.ts makes one)'],
  [/node --test\b|^npm (ci && )?test\b/, 'the test suite itself'],
  [/127\.0\.0\.1:9000/, 'another server, not the stack'],
  [/erp_performance_gate\.ts --base-url/, 'a minute of load by design (test/erp/performance-gate.test.ts runs the gate)'],
  [/throttled_api_sweep/, 'minutes by design (the seed\'s request budget; test/scripts/sweep-*.test.ts runs it)'],
  [/src\/[a-z-]+\/main[a-z-]*\.ts(?![^\n]*--help)/, 'starts a service in the foreground (the stack runs it)'],
];

/** The shell blocks of README.md and docs/*.md, continuation lines joined. */
function examples(): Example[] {
  const found: Example[] = [];
  for (const file of ['README.md', ...globSync('docs/*.md', { cwd: ROOT }).sort()]) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    let block = 0;
    for (const match of text.matchAll(/```(sh|bash)\n([\s\S]*?)```/g)) {
      block++;
      found.push({ file, block, script: match[2]!.replace(/\\\n\s*/g, '') });
    }
  }
  return found;
}

/** What `npm start`, `npm ci` and a build stand for here: done by the test, so dropped from the script. */
const DONE_BY_THE_TEST = /^(npm ci && )?npm (start|run build)\b.*$/gm;

let stack: LiveStack;
let bin: string;

/** The example with the stack's bound URLs, data directory and bundle folder in place of the defaults. */
function rewrite(script: string): string {
  const ports = JSON.parse(readFileSync(join(ROOT, 'configs', 'stack-contract.json'), 'utf8')) as { services: { service: string; executables: { listeners: { name: string; port: number }[] }[] }[] };
  let out = script;
  for (const service of ports.services) {
    for (const listener of service.executables.flatMap((e) => e.listeners)) {
      const url = stack.urls.get(`${service.service}/${listener.name}`);
      if (url) out = out.replace(new RegExp(`(?:http://)?(?:127\\.0\\.0\\.1|localhost):${listener.port}(?!\\d)`, 'g'), url);
    }
  }
  return out
    .replaceAll('"$PWD/$TOKEN_FILE"', '"$TOKEN_FILE"')
    .replace(/(^|[\s="'(])\.?\/?var\//g, `$1${stack.dataDir}/`)
    .replaceAll('dist/bin/', `${bin}/bin/`)
    .replace(DONE_BY_THE_TEST, '');
}

/** Registers the suite; `live()` is the running stack, started by the file that runs the suite. */
export function docsExamples(live: () => LiveStack): void {
  describe('docs examples: every shell example of README and docs/', () => {
    before(async () => {
      stack = live();
      bin = await sharedBuild();
    }, { timeout: 180_000 });

    test('every shell example of README and docs runs as written (or says why it cannot here)', async () => {
      const all = examples();
      assert.ok(all.length >= 15, `found ${all.length} blocks`);
      const skipped: string[] = [];
      const failures: string[] = [];
      let ran = 0;
      // Blocks run side by side (each its lines in order): one newcomer per block.
      await Promise.all(all.map(async (example) => {
        const lines = rewrite(example.script).split('\n');
        for (const [index, line] of lines.entries()) {
          const command = line.trim();
          if (command === '' || command.startsWith('#')) continue;
          const reason = NOT_RUN.find(([pattern]) => pattern.test(example.script.split('\n')[index] ?? command))?.[1];
          if (reason) {
            skipped.push(`${example.file} block ${example.block}: ${reason}: ${command.slice(0, 80)}`);
            continue;
          }
          const expected = Number(/#[^#]*\bexit (\d)\b/.exec(command)?.[1] ?? 0);
          ran++;
          const assignments = lines.slice(0, index).filter((l) => /^[A-Z_]+=/.test(l.trim())).map((l) => `${l.trim()}; `).join('');
          // The newcomer's PATH, not this runner's Node: `npx node` must be what makes Node 26 matter.
          const { code, output } = await promisify(execFile)('bash', ['-c', `${assignments}${command}`], { cwd: ROOT, encoding: 'utf8', timeout: 120_000, env: { PATH: process.env['PATH']!.split(':').filter((dir) => !dir.includes('node_modules')).join(':'), HOME: process.env['HOME'] ?? '/tmp' } })
            .then((r) => ({ code: 0, output: r.stdout + r.stderr }), (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: typeof e.code === 'number' ? e.code : -1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` }));
          if (code !== expected) failures.push(`${example.file} block ${example.block}: exit ${code}, expected ${expected}: ${command}\n${output.slice(0, 400)}`);
        }
      }));
      skipped.sort();
      process.stderr.write(`ran ${ran} example commands; not run:\n${skipped.map((s) => `  ${s}`).join('\n')}\n`);
      assert.ok(ran >= 30, `only ${ran} commands ran`);
      assert.deepEqual(failures, []);
    });
  });
}
