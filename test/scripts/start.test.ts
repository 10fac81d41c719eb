// npm start ends its stack however its run ends: each test starts a stack of its own and ends it
// one way. Its summary and its stop on SIGTERM are checked on the stack test/contracts/
// live-stack.test.ts shares (test/scripts/_start-stack.ts), which saves a start of the whole stack.

import { test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { readFileSync } from 'node:fs';
import { tempDir } from '../kernel/fixtures/store-fixtures.ts';
import { compileCache } from '../helpers/compile-cache.ts';
import { START, LISTENERS, LAST_LINE, PATH, listeningUrls, allRefused } from './_start-stack.ts';

/** Every listener of the stack contract moved to a free port: none may answer on its default. */
function stackEnv(dir: string): Record<string, string> {
  return { PATH, AIRLOCK_DATA_DIR: dir, AIRLOCK_ACCESS_LOG: '0', ...compileCache(), ...Object.fromEntries(LISTENERS.map((l) => [l.env, '127.0.0.1:0'])) };
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
