// What `npm start` prints and how a test sees that it stopped, for test/scripts/start.test.ts (each
// test there starts a stack of its own, to end it another way) and the suite below, which
// test/contracts/live-stack.test.ts runs on the stack it shares: the summary's lines first, its
// SIGTERM last, after every other suite.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createConnection } from 'node:net';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { LiveStack } from '../contracts/_live-stack.ts';

export const START = fileURLToPath(new URL('../../scripts/start.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONTRACT = JSON.parse(readFileSync(new URL('../../configs/stack-contract.json', import.meta.url), 'utf8')) as {
  services: { executables: { listeners: { env: string; port: number }[] }[] }[];
};
export const LISTENERS = CONTRACT.services.flatMap((s) => s.executables.flatMap((e) => e.listeners));
const DEFAULT_PORT = new RegExp(`127\\.0\\.0\\.1:(${LISTENERS.map((l) => l.port).join('|')})\\b`);
export const LAST_LINE = /^Ctrl-C stops everything, as does SIGTERM or SIGINT to process (\d+) \(kill \1\), or the end of its parent\.$/;
// Node first on PATH: the printed lines call `node -p` and `npx node`.
export const PATH = `${dirname(process.execPath)}:${process.env['PATH'] ?? ''}`;

export function listeningUrls(lines: readonly string[]): string[] {
  return lines.flatMap((line) => (line.startsWith('{') ? [(JSON.parse(line) as { url: string }).url] : []));
}

/** True once nothing accepts a connection on `url`'s port. */
function refused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port) });
    socket.once('connect', () => { socket.destroy(); resolve(false); });
    socket.once('error', () => resolve(true));
  });
}

export async function allRefused(urls: readonly string[]): Promise<void> {
  for (const url of urls) assert.equal(await refused(url), true, `${url} still accepts connections`);
}

/** The stack's stdout up to the summary's last line, and the pid that line names. */
function summaryOf(stack: LiveStack): { lines: string[]; pid: number } {
  const end = stack.stdout.findIndex((line) => LAST_LINE.test(line));
  assert.ok(end >= 0, `no summary's last line in:\n${stack.stdout.join('\n')}`);
  return { lines: stack.stdout.slice(0, end + 1), pid: Number(LAST_LINE.exec(stack.stdout[end]!)![1]) };
}

/** The summary checks: run first on the shared stack (its printed lines are signed at start). */
export function startSummary(live: () => LiveStack): void {
  test('npm start prints the URLs the services bound and wires ERP to governance', async () => {
    const stack = live();
    const { lines, pid } = summaryOf(stack);
    assert.equal(pid, stack.pid);
    const urls = listeningUrls(lines);
    assert.equal(urls.length, LISTENERS.length);
    const text = lines.join('\n');
    for (const url of urls) {
      assert.doesNotMatch(url, DEFAULT_PORT);
      assert.ok(text.includes(`: ${url}`), `the summary lists ${url}`);
    }
    const printed = lines.filter((line) => /^ {2}(curl |body=|npx )/.test(line)).map((line) => line.trim());
    assert.ok(printed.length > 5);
    for (const line of printed) {
      assert.doesNotMatch(line, DEFAULT_PORT, line);
      assert.ok(urls.some((url) => line.includes(url)), line);
    }
    const run = (line: string) => promisify(execFile)('bash', ['-c', line], { cwd: ROOT, env: { PATH }, encoding: 'utf8', timeout: 60_000 });
    // The signed support-desk line: ERP hands the case to the governance service npm start runs.
    const support = printed.find((line) => line.includes('support_desk_inbound'))!;
    const answer = JSON.parse((await run(support)).stdout) as { message: { ok: boolean; governance_handoff: { ok: boolean; status: number } } };
    assert.equal(answer.message.ok, true, JSON.stringify(answer));
    assert.deepEqual([answer.message.governance_handoff.ok, answer.message.governance_handoff.status], [true, 201]);
    // The readiness line says what it does on this stack, and does it.
    const readiness = printed.find((line) => line.includes('governance-readiness'))!;
    assert.match(readiness, /# on this dev stack: exit 1 at \/api\/v1\/security\/readiness/);
    const walked = await run(readiness).then(() => ({ code: 0, stdout: '' }), (error: { code: number; stdout: string }) => error);
    assert.equal(walked.code, 1);
    assert.match(walked.stdout, /NOT READY \/api\/v1\/security\/readiness/);
  });
}

/** The stop check: run last on the shared stack, as it ends the stack. */
export function startStopsOnSigterm(live: () => LiveStack): void {
  test('npm start stops on SIGTERM to the pid it prints, every listener with it', async () => {
    const stack = live();
    const { lines, pid } = summaryOf(stack);
    const urls = listeningUrls(lines);
    process.kill(pid, 'SIGTERM');
    assert.equal(await stack.exited, 0);
    await allRefused(urls);
  });
}
