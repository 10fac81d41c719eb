// Issue 24: governance checks its evidence chains on every readiness probe and evidence read;
// each check verifies only the rows appended since the previous one, never the whole history,
// and a restarted process starts at each chain's head. Its paged evidence reads (outbox, support
// handoffs, runtime observations, planning sessions) cost the same whatever the tables hold:
// the tests count SQLite steps at two sizes instead of timing anything.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createReadPool, readRows } from '../../src/kernel/index.ts';
import type { Reply, RequestContext } from '../../src/kernel/index.ts';
import { checkEvidenceChains, hostObservations, openGovernanceDatabase, outboxRecords, planningEvents } from '../../src/governance/database.ts';
import { outboxReadReply, supportHandoffsReply } from '../../src/governance/events/outbox.ts';
import { loadSession } from '../../src/governance/planning/writes.ts';
import { readRecordPage } from '../../src/governance/routing/evidence-page.ts';
import type { GovernanceRuntime } from '../../src/governance/runtime.ts';
import { stepCounter } from '../helpers/sqlite-steps.ts';

test('checkEvidenceChains() verifies new rows only: a row verified before is not read again, a bad new row fails', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-gov-chains-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = openGovernanceDatabase(dir);
  t.after(() => store.close());
  const observe = (n: number) => store.append(hostObservations, { probe: 'disk', subject: `s${n}`, payload: { n } });
  for (let n = 1; n <= 3; n++) await observe(n);
  assert.equal(checkEvidenceChains(store).ok, true);
  await observe(4);
  const second = checkEvidenceChains(store);
  assert.deepEqual([second.ok, second.tables.find((table) => table.table === 'host_observations')?.rows], [true, 4]);
  // Rows 1-4 were verified: changing one behind the triggers' back is for the offline verifier to find.
  store.sqlite.exec(`DROP TRIGGER host_observations_no_update; UPDATE host_observations SET payload = '{"n":9}' WHERE seq = 2`);
  assert.equal(checkEvidenceChains(store).ok, true);
  store.sqlite.exec(`INSERT INTO host_observations (seq, recorded_at, probe, subject, payload, sha256, prev_sha256) VALUES (5, '2026-01-01T00:00:00.000Z', 'disk', 's5', '{"n":5}', '${'0'.repeat(64)}', '${'0'.repeat(64)}')`);
  const broken = checkEvidenceChains(store);
  assert.equal(broken.ok, false);
  assert.match(broken.reasons.join('\n'), /evidence table "host_observations" seq 5: prev_sha256 does not match/);
});

/** `count` rows in one unit: outbox records (every 50th of the support family), host observations, planning rows of one session per 4. */
async function appendEvidence(store: ReturnType<typeof openGovernanceDatabase>, from: number, count: number): Promise<void> {
  await store.write((_sqlite, tx) => {
    for (let n = from; n < from + count; n++) {
      const family = n % 50 === 0 ? 'support' : 'planning';
      tx.append(outboxRecords, { family, event: `${family}.e`, payload: { family, event: `${family}.e`, occurred_at: '2026-01-01T00:00:00Z', payload: { n }, source: 'outbox_api', correlation_id: null } });
      tx.append(hostObservations, { probe: 'sidecar_state', subject: `s${n % 7}`, payload: { n } });
      tx.append(planningEvents, { session_id: `ps_${Math.floor(n / 4)}`, kind: 'turn_answered', payload: { n } });
    }
  });
}

test('a restarted service checks its chains from their heads: the first check takes the same steps at 200 and 4000 rows per table', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-gov-chains-head-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const firstCheck = async (rows: number, from: number) => {
    const writer = openGovernanceDatabase(dir);
    await appendEvidence(writer, from, rows);
    writer.close();
    // A new store is a new process: its watch has seen nothing yet.
    const store = openGovernanceDatabase(dir);
    try {
      const steps = stepCounter(store.sqlite);
      return steps(() => checkEvidenceChains(store));
    } finally {
      store.close();
    }
  };
  const small = await firstCheck(200, 0);
  const large = await firstCheck(3800, 200);
  assert.equal(small.result.ok, true);
  assert.equal(large.result.ok, true);
  assert.equal(large.result.tables.find((table) => table.table === 'outbox_records')?.rows, 4000);
  assert.ok(large.steps <= small.steps * 1.1 + 20, `the first check took ${small.steps} steps at 200 rows, ${large.steps} at 4000`);
});

test('the outbox, the support handoffs, the runtime observations and a planning session read the same steps at 10x the rows', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-gov-reads-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = openGovernanceDatabase(dir);
  t.after(() => store.close());
  // The pages run on the read pool (its step counter); the session reads on the writer's connection.
  const readPool = createReadPool(store.path, { threads: 1 });
  t.after(() => readPool.close());
  const runtime = { store, readPool } as unknown as GovernanceRuntime;
  const steps = stepCounter(store.sqlite);
  const pooled = async <T>(read: () => Promise<T>) => {
    const before = readPool.stats().totalSteps;
    const result = await read();
    return { result, steps: readPool.stats().totalSteps - before };
  };
  const read = (reply: (r: GovernanceRuntime, c: RequestContext) => Promise<Reply>, query: string) => pooled(() => reply(runtime, { query: new URLSearchParams(query) } as RequestContext));
  const reads = async () => [
    await read(outboxReadReply, 'after_seq=0&limit=100'),
    await read(outboxReadReply, 'after_seq=300&limit=100'),
    // The support family is one record in 50: its page of 20 must come from the family index, not a walk of every record.
    await read(supportHandoffsReply, 'after_seq=0&limit=20'),
    await read(supportHandoffsReply, 'after_seq=1000&limit=5'),
    await pooled(() => readRecordPage(readPool, hostObservations, { afterSeq: 100, limit: 100, before: ['seq'], after: ['sha256'] })),
    steps(() => loadSession(store.sqlite, 'ps_11111111-2222-4333-8444-555555555555')),
    steps(() => readRows(store.sqlite, planningEvents, { where: { session_id: 'ps_10' } })),
  ];
  await appendEvidence(store, 0, 2000);
  const small = await reads();
  await appendEvidence(store, 2000, 18_000);
  const large = await reads();
  for (const [i, s] of large.entries()) assert.ok(s.steps <= small[i]!.steps * 1.1 + 20, `read ${i}: ${small[i]!.steps} steps at 2000 rows, ${s.steps} at 20000`);
  assert.equal((JSON.parse(String((large[2]!.result as Reply).raw)) as { handoffs: unknown[] }).handoffs.length, 20);
});
