// Issue 24: no list and no worker poll of the ERP costs O(all rows). Each test counts the SQLite
// steps a path takes (the read pool's counter, or a statement's own) at two sizes of the evidence
// and requires them flat, instead of timing anything; and /healthz answers while a heavy list runs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statement } from '../../src/kernel/index.ts';
import { AWAITING_CLOSEOUT_SQL } from '../../src/erp/approvals/closeout.ts';
import { insertDocument } from '../../src/erp/database/documents.ts';
import { DUE_JOBS_SQL } from '../../src/erp/dispatch/worker.ts';
import { LIST_WINDOW } from '../../src/erp/resources/stored-list.ts';
import { DUE_HANDOFFS_SQL } from '../../src/erp/support-cases/handoff-retry.ts';
import { send } from '../helpers/http.ts';
import { startErp, TOKEN } from './_service.ts';
import type { Running } from './_service.ts';

const BASE = Date.UTC(2026, 0, 1);
const NOTE = 'n'.repeat(1500);

/** Integration Events `from` .. `to` - 1 through the ERP's own document write, one second apart. */
async function grow(erp: Running, from: number, to: number): Promise<void> {
  for (let start = from; start < to; start += 1000) {
    await erp.service.store.write((sqlite, tx) => {
      for (let i = start; i < Math.min(to, start + 1000); i++) {
        insertDocument(sqlite, tx, {
          doctype: 'Integration Event',
          fields: { source: i < 300 ? 'ancient' : 'payment_b', event_key: `evt_${i}`, status: i < 300 ? 'archived' : 'processed', note: NOTE },
          owner: 'test',
          at: new Date(BASE + i * 1000),
        });
      }
    });
  }
}

async function list(erp: Running, query: string): Promise<{ status: number; body: { data?: { name: string }[]; exception?: string }; steps: number }> {
  const before = erp.service.reads.stats().totalSteps;
  const response = await send(`${erp.url}/api/resource/Integration%20Event?${query}`, { headers: { authorization: TOKEN } });
  return { status: response.status, body: response.json() as never, steps: erp.service.reads.stats().totalSteps - before };
}

let erp: Running;
test.before(async () => {
  erp = await startErp();
  erp.service.dispatchWorker.stop();
});
test.after(() => erp.stop());

test('GET /api/resource/Integration Event?limit=20 takes as many steps at 10x the documents, newest first', async () => {
  await grow(erp, 0, 600);
  const small = await list(erp, 'limit=20');
  await grow(erp, 600, LIST_WINDOW + 1000);
  const large = await list(erp, 'limit=20');
  assert.equal(large.status, 200);
  assert.equal(large.body.data!.length, 20);
  assert.equal(large.body.data![0]!.name, `INT-EVT-2026-${String(LIST_WINDOW + 1000).padStart(5, '0')}`);
  assert.ok(large.steps <= small.steps * 1.2 + 20, `steps grew from ${small.steps} to ${large.steps}`);
  const filtered = await list(erp, `filters=${encodeURIComponent('[["status","=","processed"]]')}&limit=20`);
  assert.equal(filtered.status, 200);
  assert.ok(filtered.steps <= small.steps * 1.5 + 50, `a status filter took ${filtered.steps} steps`);
});

test('GET /api/resource: a filter on the index (status, a modified range) reaches the oldest documents in bounded steps', async () => {
  const byStatus = await list(erp, `filters=${encodeURIComponent('[["status","=","archived"]]')}&fields=${encodeURIComponent('["name","status"]')}&limit=5`);
  assert.equal(byStatus.status, 200);
  assert.deepEqual(byStatus.body.data!.map((row) => row.name), [300, 299, 298, 297, 296].map((n) => `INT-EVT-2026-${String(n).padStart(5, '0')}`));
  const before = new Date(BASE + 250 * 1000).toISOString().slice(0, 19).replace('T', ' ');
  const byRange = await list(erp, `filters=${encodeURIComponent(JSON.stringify([['modified', '<', before], ['source', '=', 'ancient']]))}&limit=3`);
  assert.equal(byRange.status, 200);
  assert.deepEqual(byRange.body.data!.map((row) => row.name), ['INT-EVT-2026-00250', 'INT-EVT-2026-00249', 'INT-EVT-2026-00248']);
  assert.ok(byStatus.steps < 1000 && byRange.steps < 1000, `steps ${byStatus.steps}, ${byRange.steps}`);
});

test('GET /api/resource: what no index answers is refused beyond the window with a ValidationError naming what is allowed', async () => {
  const cases: [string, RegExp][] = [
    [`filters=${encodeURIComponent('[["source","=","ancient"]]')}&limit=20`, /among the first 5000 Integration Event documents in its order, and more exist: .*use order_by modified, creation, name/],
    ['order_by=event_key%20asc', /more than 5000 documents .* too many for order_by "event_key": use order_by modified, creation, name/],
    ['limit=0', /too many for limit 0 \(all documents\)/],
    [`limit_start=${LIST_WINDOW - 10}&limit=20`, /reads at most 5000 documents in its order: limit_start \+ limit is 5010\. Page further with a filter on the order field, e\.g\. filters=\[\["modified","<"/],
  ];
  for (const [query, message] of cases) {
    const refused = await list(erp, query);
    assert.equal(refused.status, 417, query);
    assert.match(refused.body.exception ?? '', message, query);
    assert.ok(refused.steps <= 4 * (LIST_WINDOW + 1) * 20, `${query}: ${refused.steps} steps`);
  }
  // Inside the window the same filter answers exactly.
  const within = await list(erp, `filters=${encodeURIComponent('[["source","=","payment_b"],["event_key","like","evt_59%"]]')}&limit=3`);
  assert.equal(within.status, 200);
  assert.deepEqual(within.body.data!.map((row) => row.name), ['INT-EVT-2026-06000', 'INT-EVT-2026-05999', 'INT-EVT-2026-05998']);
});

test('worker polls (dispatch, closeout, support handoff) read the due index, not the history', async () => {
  const sqlite = erp.service.store.sqlite;
  for (const [sql, param] of [[DUE_JOBS_SQL, Date.now()], [AWAITING_CLOSEOUT_SQL, undefined], [DUE_HANDOFFS_SQL, new Date().toISOString()]] as const) {
    const plan = sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...(param === undefined ? [] : [param])).map((row) => String(row['detail'])).join('; ');
    assert.match(plan, /erp_current_due/, plan);
    assert.doesNotMatch(plan, /SCAN (t|c)\b/, plan);
    const poll = statement(sqlite, sql);
    poll.all(...(param === undefined ? [] : [param]));
    const steps = (poll as unknown as { stat(counter: 'vmStep'): number }).stat('vmStep');
    assert.ok(steps < 100, `${sql.slice(0, 60)}: ${steps} steps over ${LIST_WINDOW + 1000} integration events`);
  }
});

test('/healthz answers while the heaviest list is in flight on the read pool', async () => {
  const heavy = `filters=${encodeURIComponent('[["note","like","%never%"]]')}&limit=20`;
  let listsDone = 0;
  const lists = Array.from({ length: 8 }, () => list(erp, heavy).then((outcome) => {
    listsDone++;
    return outcome;
  }));
  await new Promise((resolve) => setImmediate(resolve));
  const probe = await send(`${erp.url}/healthz`);
  const doneWhenProbed = listsDone;
  assert.equal(probe.status, 200);
  const outcomes = await Promise.all(lists);
  // Each list walks its whole window and is refused (417), or finds its read budget spent behind the others (503).
  assert.deepEqual([...new Set(outcomes.map((outcome) => outcome.status))].filter((status) => status !== 417 && status !== 503), []);
  // Not vacuous: some list walked its whole window, or (on a loaded machine) spent its read budget trying.
  assert.ok(outcomes.some((outcome) => (outcome.status === 417 && outcome.steps > LIST_WINDOW) || outcome.status === 503), 'no list walked its window or spent its budget');
  // On the event loop the lists, asked first, would all be answered before the probe.
  assert.ok(doneWhenProbed < lists.length, `the probe waited for all ${lists.length} lists to finish`);
});

test('openErpDatabase() fills erp_current once from evidence written before it existed (newest row of each name)', async (t) => {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { openErpDatabase } = await import('../../src/erp/database/open-erp-database.ts');
  const { updateDocument } = await import('../../src/erp/database/documents.ts');
  const dir = mkdtempSync(join(tmpdir(), 'airlock-erp-current-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'erp.sqlite');
  const now = () => new Date(BASE);
  const first = await openErpDatabase(path, { now });
  await first.write((sqlite, tx) => {
    const doc = insertDocument(sqlite, tx, { doctype: 'Integration Event', fields: { source: 'support_desk', event_key: 'k1', status: 'received' }, owner: 'test', at: new Date(BASE) });
    updateDocument(sqlite, tx, doc, { status: 'failed', next_retry_at: new Date(BASE + 5000).toISOString() }, new Date(BASE + 1000));
    insertDocument(sqlite, tx, { doctype: 'Integration Event', fields: { source: 'payment_b', event_key: 'k2', status: 'processed' }, owner: 'test', at: new Date(BASE + 2000) });
  });
  // The database as the previous schema left it: no erp_current, no triggers.
  first.sqlite.exec(`DROP TABLE erp_current; DROP INDEX erp_documents_modified; DROP INDEX erp_documents_creation; PRAGMA user_version = 3;
    ${['integration_events', 'dispatch_jobs', 'approval_packets', 'dead_letters', 'agent_notifications'].map((table) => `DROP TRIGGER ${table}_current;`).join(' ')}`);
  await first.close();
  const reopened = await openErpDatabase(path, { now });
  t.after(() => reopened.close());
  const rows = reopened.sqlite.prepare('SELECT name, seq, status, due_at, creation, modified FROM erp_current ORDER BY name').all().map((row) => ({ ...row }));
  assert.deepEqual(rows, [
    { name: 'INT-EVT-2026-00001', seq: 2, status: 'failed', due_at: new Date(BASE + 5000).toISOString(), creation: '2026-01-01 00:00:00.000000', modified: '2026-01-01 00:00:01.000000' },
    { name: 'INT-EVT-2026-00002', seq: 3, status: 'processed', due_at: null, creation: '2026-01-01 00:00:02.000000', modified: '2026-01-01 00:00:02.000000' },
  ]);
  // And the triggers keep it current from then on.
  await reopened.write((sqlite, tx) => {
    insertDocument(sqlite, tx, { doctype: 'Integration Event', fields: { source: 'payment_b', event_key: 'k3', status: 'processed' }, owner: 'test', at: new Date(BASE + 3000) });
  });
  assert.equal(reopened.sqlite.prepare('SELECT count(*) AS n FROM erp_current').get()!['n'], 3);
});
