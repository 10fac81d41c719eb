import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { openDatabase } from '../../src/kernel/store/open-database.ts';
import { verifyAllChains } from '../../src/kernel/store/verify-chain.ts';
import { RECEIPTS, tempDir } from './fixtures/store-fixtures.ts';

const CHILD = join(import.meta.dirname, 'fixtures', 'store-crash-child.ts');
const KILLS = 5;

interface Ack {
  seq: number;
  pid: number;
  w: number;
  i: number;
}

/** Starts the child, waits for its first acknowledgement, kills it 50-400 ms later; returns every ack it printed. */
function runAndKill(path: string): Promise<{ acks: Ack[]; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, path], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      timer ??= setTimeout(() => child.kill('SIGKILL'), 50 + Math.random() * 350);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (_code, signal) => {
      clearTimeout(timer);
      const acks = stdout
        .split('\n')
        // A line cut by the kill was never a complete acknowledgement.
        .filter((line) => /^\d+ \d+ \d+ \d+$/.test(line))
        .map((line) => {
          const [seq, pid, w, i] = line.split(' ').map(Number) as [number, number, number, number];
          return { seq, pid, w, i };
        });
      resolve({ acks, signal, stderr });
    });
  });
}

test('Store group commit keeps every acknowledged row, and a verifiable chain, across SIGKILL', { timeout: 60_000 }, async (t) => {
  const path = join(tempDir(t), 'crash.sqlite');
  let total = 0;
  for (let round = 1; round <= KILLS; round++) {
    const { acks, signal, stderr } = await runAndKill(path);
    assert.equal(signal, 'SIGKILL', `round ${round}: the child ended by itself: ${stderr}`);
    assert.ok(acks.length > 0, `round ${round}: no acknowledgement before the kill`);

    const store = openDatabase(path, { evidenceTables: [RECEIPTS] });
    try {
      assert.deepEqual(store.sqlite.prepare('PRAGMA integrity_check').all().map((row) => row['integrity_check']), ['ok']);
      assert.deepEqual(verifyAllChains(store.sqlite).map((result) => result.ok), [true], `round ${round}: chain broken`);
      const rows = new Map(store.readRows(RECEIPTS).map((row) => [row.seq, row]));
      for (const ack of acks) {
        const row = rows.get(ack.seq);
        assert.deepEqual(row?.payload, { pid: ack.pid, w: ack.w, i: ack.i }, `round ${round}: acknowledged seq ${ack.seq} lost`);
      }
      assert.ok(rows.size >= total + acks.length, `round ${round}: fewer rows than acknowledged`);
      t.diagnostic(`round ${round}: ${acks.length} acknowledged, ${rows.size - total} committed, ${rows.size} rows in all`);
      total = rows.size;
    } finally {
      await store.close();
    }
  }
});
