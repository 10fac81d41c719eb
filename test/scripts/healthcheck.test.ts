import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

const SCRIPT = join(import.meta.dirname, '..', '..', 'scripts', 'healthcheck.ts');

function run(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // Async: the server under test answers from this process's event loop.
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => void (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => void (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('healthcheck: 2xx is healthy, 5xx after its retries is not, a silent server times out', async (t) => {
  let hits = 0;
  const server = createServer((req, res) => {
    hits += 1;
    if (req.url === '/ok') res.end('{"status":"pass"}');
    else if (req.url === '/flaky') res.writeHead(hits % 2 === 0 ? 200 : 503).end();
    else if (req.url === '/hang') return;
    else res.writeHead(503).end();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  t.after(() => server.close());
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const ok = await run('--url', `${base}/ok`);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /^healthy: .*\/ok \(status 200\)/);

  hits = 0;
  const down = await run('--url', `${base}/down`, '--retries', '2', '--json');
  assert.equal(down.code, 1);
  const report = JSON.parse(down.stdout) as { ok: boolean; attempts: { status: number }[] };
  assert.equal(report.ok, false);
  assert.deepEqual(report.attempts.map((a) => a.status), [503, 503, 503]);

  hits = 0;
  const flaky = await run('--url', `${base}/flaky`, '--retries', '1', '--json');
  assert.equal(flaky.code, 0);
  assert.equal((JSON.parse(flaky.stdout) as { attempts: unknown[] }).attempts.length, 2);

  const hang = await run('--url', `${base}/hang`, '--timeout', '1');
  assert.equal(hang.code, 1);
  assert.match(hang.stdout, /unhealthy: .*no answer within 1000 ms/);
  server.closeAllConnections();
});

test('healthcheck: nothing listening is unhealthy (1), not a usage error', async () => {
  const { code, stdout } = await run('--url', 'http://127.0.0.1:9/healthz', '--timeout', '1');
  assert.equal(code, 1);
  assert.match(stdout, /^unhealthy: /);
});

test('healthcheck: usage errors exit 2 and say what to give', async () => {
  const cases: [string[], RegExp][] = [
    [[], /Missing --url/],
    [['--url', 'not a url'], /Invalid --url/],
    [['--url', 'ftp://127.0.0.1/x'], /Invalid --url/],
    [['--url', 'http://10.0.0.1/healthz'], /only loopback hosts/],
    [['--url', 'http://127.0.0.1/x', '--timeout', '0'], /Invalid --timeout "0"/],
    [['--url', 'http://127.0.0.1/x', '--retries', '-1'], /--retries/],
    [['--url', 'http://127.0.0.1/x', '--bogus'], /Unknown option/],
  ];
  for (const [args, message] of cases) {
    const { code, stderr } = await run(...args);
    assert.equal(code, 2, `${args.join(' ')}: ${stderr}`);
    assert.match(stderr, message, args.join(' '));
  }
});
