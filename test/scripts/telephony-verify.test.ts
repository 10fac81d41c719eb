// telephony_verify, bundled, against a governance bundle and test doubles of the agent runtime,
// the telephony runtime (Asterisk ARI) and the GUI origin: it passes when all are good and fails,
// naming the check, when each is broken in turn or does not answer (the other checks still run);
// an unreachable governance service or a bad flag is exit 2.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { sharedBuild } from '../helpers/shared-build.ts';
import { rootEnv, tempRoot } from '../governance/_fixtures.ts';
import type { TempRoot } from '../governance/_fixtures.ts';
import { agentRuntimeDouble, ARI_PASSWORD, ARI_USER, guiDouble, telephonyDouble } from './_telephony-doubles.ts';
import type { Double } from './_telephony-doubles.ts';
import { startEndlessServer } from '../helpers/endless-server.ts';
import { compileCache } from '../helpers/compile-cache.ts';

let outdir = '';
const CREDENTIALS = { TELEPHONY_ARI_CREDENTIALS: `${ARI_USER}:${ARI_PASSWORD}` };
const cleanup: (() => unknown)[] = [];
let governance: string;
let agent: Double<'degraded' | 'server-error' | 'not-json'>;
let telephony: Double<'unprotected' | 'missing' | 'refuses'>;
let gui: Double<'bad-gateway'>;

/** Starts the governance bundle (platform-api) on `root`; resolves with its platform URL. */
async function startGovernance(root: TempRoot): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-telephony-gov-'));
  const child: ChildProcess = spawn(process.execPath, [join(outdir, 'bin', 'governance-api.mjs'), '--role', 'platform-api'], {
    env: { PATH: process.env['PATH'] ?? '', ...compileCache(), ...rootEnv(root.root), AIRLOCK_DATA_DIR: dataDir, GOVERNANCE_PLATFORM_LISTEN: '127.0.0.1:0' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  cleanup.push(() => { child.kill('SIGTERM'); rmSync(dataDir, { recursive: true, force: true }); root.cleanup(); });
  for await (const line of createInterface({ input: child.stdout! })) return (JSON.parse(line) as { url: string }).url;
  throw new Error('governance-api exited before listening');
}

function verify(args: string[], env: Record<string, string> = CREDENTIALS): Promise<{ code: number | null; stdout: string; stderr: string; json(): any }> {
  const child = spawn(process.execPath, [join(outdir, 'bin', 'telephony_verify.mjs'), ...args], { env: { PATH: process.env['PATH'] ?? '', ...compileCache(), ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr, json: () => JSON.parse(stdout) })));
}

const all = () => ['--governance-url', governance, '--agent-runtime-url', agent.url, '--telephony-url', telephony.url, '--gui-origin', gui.url, '--rest-port', String(telephony.port), '--gui-backend-port', String(gui.port), '--timeout-ms', '3000'];

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

before(async () => {
  outdir = await sharedBuild();
  [governance, agent, telephony, gui] = await Promise.all([startGovernance(tempRoot()), agentRuntimeDouble(), telephonyDouble(), guiDouble()]);
  cleanup.push(() => agent.close(), () => telephony.close(), () => gui.close());
});
after(async () => {
  for (const step of cleanup.reverse()) await step();
});

test('telephony_verify passes against the governance bundle and good doubles', async () => {
  const result = await verify([...all(), '--json']);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  const body = result.json();
  assert.equal(body.ok, true);
  assert.deepEqual(body.checks.filter((c: { outcome: string }) => c.outcome !== 'pass'), []);
  assert.equal(body.checks.length, 13);
  assert.doesNotMatch(result.stdout + result.stderr, new RegExp(ARI_PASSWORD));
  const text = await verify(all());
  assert.match(text.stdout, /^all 13 checks pass \(0 skipped\)$/m);
});

test('telephony_verify fails naming the check when each runtime misbehaves in turn', async () => {
  const cases: [() => void, string[]][] = [
    [() => (agent.mode = 'degraded'), ['agent-runtime:/healthz']],
    [() => (agent.mode = 'server-error'), ['agent-runtime:/healthz']],
    [() => (agent.mode = 'not-json'), ['agent-runtime:/healthz']],
    [() => (telephony.mode = 'unprotected'), ['telephony:info-protected']],
    [() => (telephony.mode = 'refuses'), ['telephony:info-authenticated']],
    [() => (telephony.mode = 'missing'), ['telephony:info-protected', 'telephony:info-authenticated']],
    [() => (gui.mode = 'bad-gateway'), ['gui:origin']],
  ];
  for (const [breakIt, failed] of cases) {
    breakIt();
    const result = await verify([...all(), '--json']);
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.deepEqual(result.json().failed, failed);
    agent.mode = telephony.mode = gui.mode = 'good';
  }
  const text = await verify([...all().filter((a) => a !== String(gui.port)).slice(0, -3), '--gui-backend-port', String(await closedPort()), '--timeout-ms', '3000']);
  assert.equal(text.code, 1);
  assert.match(text.stdout, /^FAIL port:gui-backend: 127\.0\.0\.1:\d+ \(GUI backend\): ECONNREFUSED$/m);
  assert.match(text.stdout, /^FAILED: port:gui-backend$/m);
  const offPort = await verify([...all(), '--rest-port', '19088', '--json']);
  assert.deepEqual(offPort.json().failed.slice(0, 1), ['telephony:rest-port']);
});

test('telephony_verify fails the telephony credential check with wrong credentials and skips it without any', async () => {
  const wrong = await verify([...all(), '--json'], { TELEPHONY_ARI_CREDENTIALS: `${ARI_USER}:wrong` });
  assert.deepEqual([wrong.code, wrong.json().failed], [1, ['telephony:info-authenticated']]);
  const none = await verify([...all(), '--json'], {});
  assert.equal(none.code, 0);
  assert.equal(none.json().checks.find((c: { check: string }) => c.check === 'telephony:info-authenticated').outcome, 'skip');
});

test('telephony_verify fails the governance route whose contract content breaks', async () => {
  const root = tempRoot();
  root.editJson('contracts/governance/combinations_v1.json', (a) => void (a.content['optional-slices/carrier-cti'].consumed_ports = [19088]));
  root.editJson('contracts/governance/voice_v1.json', (a) => void (a.content['contracts/events'].event_types[0].type = 'call_started'));
  const broken = await startGovernance(root);
  const result = await verify(['--governance-url', broken, ...all().slice(2), '--json']);
  assert.equal(result.code, 1, result.stdout);
  assert.deepEqual(result.json().failed, ['governance:/api/v1/voice/contracts/events', 'governance:/api/v1/combinations/optional-slices/carrier-cti']);
  assert.match(JSON.stringify(result.json().checks), /lacks 19089/);
});

test('telephony_verify: an unreachable dependency is a failed check naming it, every other check still runs, exit 1', async () => {
  const dead = `http://127.0.0.1:${await closedPort()}`;
  const cases: [string[], string[]][] = [
    [['--agent-runtime-url', dead], ['agent-runtime:/healthz']],
    [['--telephony-url', dead], ['telephony:rest-port', 'telephony:info-protected', 'telephony:info-authenticated']],
    [['--gui-origin', dead], ['gui:origin']],
    [['--agent-runtime-url', dead, '--gui-origin', dead], ['agent-runtime:/healthz', 'gui:origin']],
  ];
  for (const [override, failed] of cases) {
    const result = await verify([...all(), ...override, '--json']);
    assert.equal(result.code, 1, `${override.join(' ')}: ${result.stdout}${result.stderr}`);
    const body = result.json();
    assert.deepEqual(body.failed, failed);
    assert.equal(body.checks.length, 13, 'every check ran');
    assert.match(body.checks.find((c: { check: string }) => c.check === failed.at(-1)).detail, /Cannot reach|not tried/);
    assert.equal(body.checks.filter((c: { outcome: string }) => c.outcome === 'pass').length, 13 - failed.length);
  }
  const text = await verify([...all(), '--agent-runtime-url', dead]);
  assert.equal(text.code, 1);
  assert.match(text.stdout, new RegExp(`^FAIL agent-runtime:/healthz: Cannot reach "${dead}/healthz": `, 'm'));
  assert.match(text.stdout, /^FAILED: agent-runtime:\/healthz$/m);
});

test('telephony_verify stops reading an answer at 16 MiB: an endless body is a failed check naming it, not memory until the timeout', async (t) => {
  const flood = await startEndlessServer();
  t.after(flood.close);
  const started = Date.now();
  const result = await verify([...all(), '--agent-runtime-url', flood.url, '--timeout-ms', '20000', '--json']);
  assert.equal(result.code, 1, result.stderr);
  assert.deepEqual(result.json().failed, ['agent-runtime:/healthz']);
  assert.match(result.json().checks.find((c: { check: string }) => c.check === 'agent-runtime:/healthz').detail, /more than 16777216 bytes/);
  assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
});

test('telephony_verify refuses a URL flag with credentials in it (exit 2) and never shows them', async () => {
  for (const flag of ['--governance-url', '--agent-runtime-url', '--telephony-url', '--gui-origin']) {
    const args = all();
    const at = args.indexOf(flag);
    args[at + 1] = args[at + 1]!.replace('http://', 'http://ops:pw-SECRET-1@');
    for (const json of [[], ['--json']]) {
      const result = await verify([...args, ...json]);
      assert.equal(result.code, 2, `${flag} ${result.stdout}`);
      assert.match(result.stderr, new RegExp(`${flag}.*credentials`));
      assert.doesNotMatch(result.stdout + result.stderr, /pw-SECRET-1/);
    }
  }
});

test('telephony_verify exits 2 on an unreachable governance service (after checking the rest) and on a bad or missing flag', async () => {
  const dead = `http://127.0.0.1:${await closedPort()}`;
  const result = await verify(['--governance-url', dead, ...all().slice(2), '--json']);
  assert.equal(result.code, 2, result.stdout);
  assert.match(result.json().error, /Cannot reach/);
  // The same document as every --json run: ok, failed, checks (plus the error); the runtimes were checked too.
  assert.deepEqual([result.json().ok, result.json().failed], [false, ['governance:/api/v1/openapi.json']]);
  assert.ok(result.json().checks.some((c: { check: string; outcome: string }) => c.check === 'agent-runtime:/healthz' && c.outcome === 'pass'));
  for (const args of [[], ['--governance-url', 'ftp://x'], [...all(), '--rest-port', '70000'], [...all(), '--bogus'], [...all(), '--telephony-info-path', 'ari'], [...all(), '--rest-port', '1e3'], [...all(), '--gui-backend-port', '0x4a99'], [...all(), '--timeout-ms', '1e3']]) {
    const result = await verify(args);
    assert.equal(result.code, 2, args.join(' '));
    assert.match(result.stderr, /telephony_verify: /);
  }
  assert.equal((await verify(all(), { TELEPHONY_ARI_CREDENTIALS: 'no-colon' })).code, 2);
  const help = await verify(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--governance-url URL/);
});
