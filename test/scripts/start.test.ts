import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../kernel/fixtures/store-fixtures.ts';

const START = fileURLToPath(new URL('../../scripts/start.ts', import.meta.url));
const CONTRACT = JSON.parse(readFileSync(new URL('../../configs/stack-contract.json', import.meta.url), 'utf8')) as {
  services: { executables: { listeners: { env: string; port: number }[] }[] }[];
};
const LISTENERS = CONTRACT.services.flatMap((s) => s.executables.flatMap((e) => e.listeners));
const DEFAULT_PORT = new RegExp(`127\\.0\\.0\\.1:(${LISTENERS.map((l) => l.port).join('|')})\\b`);

test('npm start prints the URLs the services bound, and builds its curl lines from them when *_LISTEN moves them', async (t) => {
  const dir = tempDir(t);
  // Every listener of the stack contract moved to a free port: none may answer on its default.
  const moved = Object.fromEntries(LISTENERS.map((l) => [l.env, '127.0.0.1:0']));
  const env = { PATH: process.env['PATH'] ?? '', AIRLOCK_DATA_DIR: dir, AIRLOCK_ACCESS_LOG: '0', ...moved };
  const child = spawn(process.execPath, [START], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // SIGTERM first: npm start stops its children on it, where SIGKILL would orphan them on their ports.
  t.after(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  });
  child.stderr.resume();
  const lines: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not finish starting:\n${lines.join('\n')}`)), 30_000);
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      if (line === 'Ctrl-C stops everything.') {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  const urls = lines.flatMap((line) => (line.startsWith('{') ? [(JSON.parse(line) as { url: string }).url] : []));
  assert.equal(urls.length, LISTENERS.length);
  const text = lines.join('\n');
  for (const url of urls) {
    assert.doesNotMatch(url, DEFAULT_PORT);
    assert.ok(text.includes(`: ${url}`), `the summary lists ${url}`);
  }
  const curl = lines.filter((line) => line.trim().startsWith('curl'));
  assert.ok(curl.length > 5);
  for (const line of curl) {
    assert.doesNotMatch(line, DEFAULT_PORT, line);
    assert.ok(urls.some((url) => line.includes(url)), line);
  }
  child.kill('SIGINT');
  assert.equal(await exited, 0);
});
