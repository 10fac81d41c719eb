// Directory fsyncs shared between concurrent callers: each caller is covered by an fsync that
// started after it asked, and callers who ask while one runs share the next one.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { sharedDirectorySync } from '../../src/content/directory-sync.ts';

/** A recording fsync that takes `ms`: when each started and ended, per path. */
function slowSync(ms: number) {
  const runs: { path: string; started: number; ended?: number }[] = [];
  let clock = 0;
  return {
    runs,
    tick: () => ++clock,
    sync: async (path: string) => {
      const run: { path: string; started: number; ended?: number } = { path, started: ++clock };
      runs.push(run);
      await sleep(ms);
      run.ended = ++clock;
    },
  };
}

test('sharedDirectorySync() covers each caller with an fsync that started after it asked; callers during one share the next', async () => {
  const recorder = slowSync(20);
  const sync = sharedDirectorySync(recorder.sync);
  const asked: number[] = [];
  const covered: number[] = [];
  const call = async (path: string) => {
    const at = recorder.tick();
    asked.push(at);
    await sync(path);
    // The latest fsync of this path that has ended started after this call: it covered the caller.
    const ended = recorder.runs.filter((run) => run.path === path && run.ended !== undefined);
    covered.push(ended.some((run) => run.started > at) ? 1 : 0);
  };
  const first = call('/d');
  await sleep(5);
  // Ten callers while the first fsync runs: their entries may postdate it, so they share one more.
  await Promise.all([first, ...Array.from({ length: 10 }, () => call('/d')), call('/other')]);
  assert.deepEqual(recorder.runs.map((run) => run.path).sort(), ['/d', '/d', '/other']);
  assert.equal(covered.length, 12);
  assert.ok(covered.every((ok) => ok === 1), 'every caller was covered by an fsync that started after it asked');
  // Nothing runs now: the next caller starts its own at once.
  await sync('/d');
  assert.equal(recorder.runs.filter((run) => run.path === '/d').length, 3);
});

test('sharedDirectorySync() gives every caller of a failed fsync its error, and the next callers a new fsync', async () => {
  let calls = 0;
  // The first fsync runs until the test lets it end, so the two callers below surely ask while it
  // runs (a timer could let it end first on a loaded machine).
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const sync = sharedDirectorySync(async () => {
    calls++;
    if (calls === 1) await held;
    if (calls === 2) throw new Error('EIO on fsync');
  });
  const first = sync('/d');
  const shared = [sync('/d'), sync('/d')];
  release();
  await first;
  for (const result of await Promise.allSettled(shared)) assert.equal(result.status === 'rejected' && (result.reason as Error).message, 'EIO on fsync');
  await sync('/d');
  assert.equal(calls, 3);
});
