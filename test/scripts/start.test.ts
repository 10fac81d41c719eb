import { test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import { createInterface } from 'node:readline';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { tempDir } from '../kernel/fixtures/store-fixtures.ts';

const START = fileURLToPath(new URL('../../scripts/start.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONTRACT = JSON.parse(readFileSync(new URL('../../configs/stack-contract.json', import.meta.url), 'utf8')) as {
  services: { executables: { listeners: { env: string; port: number }[] }[] }[];
};
const LISTENERS = CONTRACT.services.flatMap((s) => s.executables.flatMap((e) => e.listeners));
const DEFAULT_PORT = new RegExp(`127\\.0\\.0\\.1:(${LISTENERS.map((l) => l.port).join('|')})\\b`);
const LAST_LINE = /^Ctrl-C stops everything, as does SIGTERM or SIGINT to process (\d+) \(kill \1\), or the end of its parent\.$/;
// Node first on PATH: the printed lines call `node -p` and `npx node`.
const PATH = `${dirname(process.execPath)}:${process.env['PATH'] ?? ''}`;

/** Every listener of the stack contract moved to a free port: none may answer on its default. */
function stackEnv(dir: string): Record<string, string> {
  return { PATH, AIRLOCK_DATA_DIR: dir, AIRLOCK_ACCESS_LOG: '0', ...Object.fromEntries(LISTENERS.map((l) => [l.env, '127.0.0.1:0'])) };
}

/** Reads stdout until the summary's last line; returns every line and the pid it names. */
function summary(child: ChildProcess): Promise<{ lines: string[]; pid: number }> {
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not finish starting:\n${lines.join('\n')}`)), 60_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      const last = LAST_LINE.exec(line);
      if (last) {
        clearTimeout(timer);
        resolve({ lines, pid: Number(last[1]) });
      }
    });
  });
}

function listeningUrls(lines: readonly string[]): string[] {
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

async function allRefused(urls: readonly string[]): Promise<void> {
  for (const url of urls) assert.equal(await refused(url), true, `${url} still accepts connections`);
}

/** False once `pid` has ended (a zombie that no init reaped has ended too). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

/** SIGTERM first on cleanup: npm start stops its children on it, where SIGKILL would orphan them. */
function stopOnCleanup(t: TestContext, pid: () => number | undefined): void {
  t.after(() => {
    const target = pid();
    if (target === undefined) return;
    try {
      process.kill(target, 'SIGTERM');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error; // already gone: nothing to stop
    }
  });
}

test('npm start prints the URLs the services bound, wires ERP to governance, and stops on SIGTERM to the pid it prints', async (t) => {
  const dir = tempDir(t);
  const child = spawn(process.execPath, [START], { env: stackEnv(dir), stdio: ['ignore', 'pipe', 'pipe'] });
  stopOnCleanup(t, () => (child.exitCode === null ? child.pid : undefined));
  child.stderr.resume();
  const { lines, pid } = await summary(child);
  assert.equal(pid, child.pid);
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

  process.kill(pid, 'SIGTERM');
  assert.equal(await exitOf(child), 0);
  await allRefused(urls);
});

test('npm start stops the stack when its parent process dies', async (t) => {
  const dir = tempDir(t);
  // A parent shell that runs npm start in the background, then is killed without a chance to pass anything on.
  const parent = spawn('bash', ['-c', `"${process.execPath}" "${START}" & wait`], { env: stackEnv(dir), stdio: ['ignore', 'pipe', 'pipe'] });
  let startPid: number | undefined;
  stopOnCleanup(t, () => startPid);
  parent.stderr.resume();
  const { lines, pid } = await summary(parent);
  startPid = pid;
  const urls = listeningUrls(lines);
  assert.equal(urls.length, LISTENERS.length);
  parent.kill('SIGKILL');
  await exitOf(parent);
  // npm start notices within its check interval and stops every service; its stdout (our pipe) then closes.
  await new Promise<void>((resolve) => parent.stdout.once('close', () => resolve()));
  // Its stdout closes as it exits; the process itself may take a moment longer to be gone.
  for (const deadline = Date.now() + 10_000; running(pid) && Date.now() < deadline;) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(running(pid), false, `npm start (pid ${pid}) still runs`);
  startPid = undefined;
  await allRefused(urls);
});

test('npm start stops the stack on SIGINT to the pid it prints, not only on a terminal\'s Ctrl-C', async (t) => {
  const dir = tempDir(t);
  // Its own process group: the signal reaches npm start alone, as `kill -INT <pid>` does, not a whole terminal group.
  const child = spawn(process.execPath, [START], { env: stackEnv(dir), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  stopOnCleanup(t, () => (child.exitCode === null ? child.pid : undefined));
  child.stderr.resume();
  const { lines, pid } = await summary(child);
  const urls = listeningUrls(lines);
  process.kill(pid, 'SIGINT');
  assert.equal(await exitOf(child), 0);
  await allRefused(urls);
});

test('npm start stops the stack when npm itself is killed, though the sh -c npm runs it in lives on', async (t) => {
  const dir = tempDir(t);
  // npm runs the script as `sh -c "node scripts/start.ts"`; a SIGKILLed npm leaves that shell
  // (npm start's parent) running, so only watching the parent missed it.
  const npm = spawn('bash', ['-c', `sh -c '"${process.execPath}" "${START}"' & wait`], { env: { ...stackEnv(dir), npm_lifecycle_script: 'node scripts/start.ts' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let startPid: number | undefined;
  stopOnCleanup(t, () => startPid);
  npm.stderr.resume();
  const { lines, pid } = await summary(npm);
  startPid = pid;
  const urls = listeningUrls(lines);
  npm.kill('SIGKILL');
  await exitOf(npm);
  // Within its check interval; ten seconds leave room for eleven services draining on a busy host.
  for (const deadline = Date.now() + 10_000; running(pid) && Date.now() < deadline;) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(running(pid), false, `npm start (pid ${pid}) still runs after npm was killed`);
  startPid = undefined;
  await allRefused(urls);
});
