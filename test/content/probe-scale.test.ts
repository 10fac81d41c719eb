// Issue 24: the readiness probe's database check costs the same whatever the repository holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { statement } from '../../src/kernel/index.ts';
import { openContentDatabase } from '../../src/content/database.ts';
import { DATABASE_PROBE_SQL } from '../../src/content/probes.ts';

test('the readiness probe reads one node row, not every node: the same steps at 20 and 5000 nodes, no count', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-content-probe-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = await openContentDatabase(join(dir, 'content.sqlite'));
  t.after(() => store.close());
  const insert = store.sqlite.prepare("INSERT INTO nodes (id, parent_id, name, node_type, is_folder, created_at, created_by, modified_at, modified_by, properties) VALUES (?, NULL, ?, 'cm:content', 0, '', '', '', '', '{}')");
  const stepsOfProbe = () => {
    const probe = statement(store.sqlite, DATABASE_PROBE_SQL) as unknown as { get(): unknown; resetStats(): void; stat(counter: 'vmStep'): number };
    probe.resetStats();
    probe.get();
    return probe.stat('vmStep');
  };
  const grow = (from: number, to: number) => {
    store.sqlite.exec('BEGIN');
    for (let i = from; i < to; i++) insert.run(`node-${i}`, `n${i}`);
    store.sqlite.exec('COMMIT');
  };
  grow(0, 20);
  const small = stepsOfProbe();
  grow(20, 5000);
  assert.equal(stepsOfProbe(), small);
  assert.ok(small < 20, `${small} steps`);
  // count(*) is one VM step over a walk of every page of an index (the Count opcode): none of that.
  const opcodes = store.sqlite.prepare(`EXPLAIN ${DATABASE_PROBE_SQL}`).all().map((row) => String(row['opcode']));
  assert.ok(!opcodes.includes('Count'), opcodes.join(' '));
});
