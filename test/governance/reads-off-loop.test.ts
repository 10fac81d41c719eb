// Issue 24: governance's pages of evidence run on its read pool, so /health answers while clients
// read the outbox's largest page; the pages are the records readRows() gives, in seq order.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AirlockError, readRows } from '../../src/kernel/index.ts';
import type { JsonValue } from '../../src/kernel/index.ts';
import { hostObservations, outboxRecords } from '../../src/governance/database.ts';
import { readRecordPage } from '../../src/governance/routing/evidence-page.ts';
import { appendOutbox } from '../../src/governance/events/outbox-append.ts';
import type { GovernanceRuntime } from '../../src/governance/runtime.ts';
import { send } from '../helpers/http.ts';
import { startGovernance } from './_service.ts';
import type { RunningGovernance } from './_service.ts';

const NOTE = 'n'.repeat(1500);
const PAGE = '/api/v1/events/publishing/outbox?after_seq=0&limit=1000';

let running: RunningGovernance;
let runtime: GovernanceRuntime;
/** While set, page reads wait here before they reach the real pool: the test holds them in flight. */
let gate: Promise<void> | undefined;
/** While set, page reads fail as the pool fails a read whose budget is spent. */
let spent = false;
let inFlight = 0;

test.before(async () => {
  running = await startGovernance({
    role: 'test',
    service: {
      inspect: (r) => {
        runtime = r;
        const pool = r.readPool;
        const held = async <T>(read: () => Promise<T>): Promise<T> => {
          inFlight++;
          try {
            await gate;
            if (spent) throw new AirlockError('read_budget', 'Read on "governance.sqlite" did not finish within its 2000 ms budget: narrow the request, or retry later');
            return await read();
          } finally {
            inFlight--;
          }
        };
        r.readPool = { ...pool, query: (...args) => held(() => pool.query(...args)), queryRecords: (...args) => held(() => pool.queryRecords(...args)) };
      },
    },
  });
  for (let start = 0; start < 4000; start += 1000) {
    await runtime.store.write((_sqlite, tx) => {
      for (let n = start; n < start + 1000; n++) {
        const family = n % 10 === 0 ? 'support' : 'planning';
        // Nested keys JavaScript would reorder ("10" before "9" in the stored, sorted text) every 7th record.
        const payload = n % 7 === 0 ? { n, note: NOTE, by_index: { '10': 'ten', '9': 'nine' } } : { n, note: NOTE };
        appendOutbox(tx, { family, event: `${family}.bench`, occurred_at: '2026-01-01T00:00:00Z', payload, source: 'outbox_api', correlation_id: null });
      }
    });
  }
});
test.after(() => running.stop());

test('/health answers while 8 clients\' reads of the outbox page of 1000 records are in flight on the read pool', async () => {
  let release!: () => void;
  gate = new Promise((resolve) => (release = resolve));
  let pagesDone = 0;
  const pages = Array.from({ length: 8 }, () => send(`${running.platform}${PAGE}`).then((response) => {
    pagesDone++;
    return response;
  }));
  // Until every page has reached the pool, or (reads on the event loop) every page is answered.
  while (inFlight < 8 && pagesDone < 8) await new Promise((resolve) => setTimeout(resolve, 5));
  try {
    assert.equal(inFlight, 8, 'the outbox pages were not read on the read pool');
    const probe = await send(`${running.platform}/health`);
    assert.equal(probe.status, 200, probe.text);
    assert.equal(pagesDone, 0);
  } finally {
    gate = undefined;
    release();
  }
  for (const response of await Promise.all(pages)) {
    assert.equal(response.status, 200);
    assert.equal((response.json() as { records: unknown[] }).records.length, 1000);
  }
});

/** The reply the routes gave when they parsed each payload on the writer's connection and spread it. */
function spreadReply(head: Record<string, unknown>, name: string, rows: ReturnType<typeof readRows<typeof outboxRecords.columns, JsonValue>>, after: readonly ('sha256' | 'prev_sha256')[], tail: Record<string, unknown>): string {
  const records = rows.map((row) => ({ seq: row.seq, recorded_at: row.recorded_at, ...(row.payload as object), ...Object.fromEntries(after.map((field) => [field, row[field]])) }));
  return JSON.stringify({ ...head, [name]: records, ...tail });
}

test('the outbox and support handoff pages read on the pool are byte for byte what the spread of readRows() gave', async () => {
  const outbox = await send(`${running.platform}/api/v1/events/publishing/outbox?after_seq=1500&limit=30`);
  const rows = readRows(runtime.store.sqlite, outboxRecords, { afterSeq: 1500, limit: 30 });
  assert.ok(rows.some((row) => JSON.stringify(row.payload).includes('by_index')), 'no record with index keys on the page');
  assert.equal(outbox.headers['content-type'], 'application/json; charset=utf-8');
  assert.equal(outbox.text, spreadReply({ member: 'publishing-outbox', projection_state: 'published', evidence_table: 'outbox_records' }, 'records', rows, ['sha256', 'prev_sha256'], { next_after_seq: rows.at(-1)!.seq, families: ['admission', 'planning', 'support'] }));
  const handoffs = await send(`${running.platform}/api/v1/support-orchestration/handoffs?after_seq=0&limit=500`);
  const support = readRows(runtime.store.sqlite, outboxRecords, { where: { family: 'support' }, afterSeq: 0, limit: 500 });
  assert.equal(handoffs.text, spreadReply({ member: 'support-handoffs', projection_state: 'published', evidence_table: 'outbox_records', receiver_route: '/api/v1/events/outbox/support' }, 'handoffs', support, ['sha256'], { next_after_seq: null }));
});

test('readRecordPage() gives the spread record for payloads JavaScript reorders or merges: index keys, a row field\'s name, empty, not an object', async () => {
  const payloads = [{ '10': 'a', '9': 'b', x: 1 }, { seq: 'shadowed', subject: 'mine', sha256: 'theirs' }, {}, [1, 2], 'text', { deep: { '2': 0, '10': 1 } }, { plain: 'é\u2028"q"', n: 1.5e-7 }] as JsonValue[];
  const first = await runtime.store.write((_sqlite, tx) => payloads.map((payload) => tx.append(hostObservations, { probe: 'odd\n"probe"', subject: 's', payload })).at(0)!.seq);
  const page = await readRecordPage(runtime.readPool, hostObservations, { afterSeq: first - 1, limit: payloads.length, before: ['seq', 'recorded_at', 'probe', 'subject'], after: ['sha256'] });
  const rows = readRows(runtime.store.sqlite, hostObservations, { afterSeq: first - 1, limit: payloads.length });
  assert.equal(rows.length, payloads.length);
  assert.equal(page.records.toString('utf8'), rows.map((row) => JSON.stringify({ seq: row.seq, recorded_at: row.recorded_at, probe: row.probe, subject: row.subject, ...(row.payload as object), sha256: row.sha256 })).join(','));
  assert.equal(page.count, payloads.length);
  assert.equal(page.lastSeq, rows.at(-1)!.seq);
});

test('a page whose read budget is spent is 503 read_budget with Retry-After, and the next page is read again', async () => {
  spent = true;
  try {
    for (const path of ['/api/v1/events/publishing/outbox?limit=1000', '/api/v1/support-orchestration/handoffs', '/api/v1/tools/runtime-observations']) {
      const refused = await send(`${running.platform}${path}`);
      assert.equal(refused.status, 503, path);
      assert.ok(Number(refused.headers['retry-after']) > 0, `${path}: no Retry-After`);
      assert.match(refused.text, /budget/);
    }
  } finally {
    spent = false;
  }
  assert.equal((await send(`${running.platform}/api/v1/events/publishing/outbox?limit=1000`)).status, 200);
});

test('a page past the end is empty, and a bad cursor is still the 422 naming the parameter', async () => {
  const empty = (await send(`${running.platform}/api/v1/events/publishing/outbox?after_seq=999999&limit=10`)).json() as { records: unknown[]; next_after_seq: unknown };
  assert.deepEqual([empty.records, empty.next_after_seq], [[], null]);
  const bad = await send(`${running.platform}/api/v1/events/publishing/outbox?after_seq=x`);
  assert.equal(bad.status, 422);
  assert.match(bad.text, /after_seq/);
});

test('a page carries a strong ETag: 304 for it while nothing changes, a new tag once a record joins the page', async () => {
  const path = '/api/v1/support-orchestration/handoffs?after_seq=0&limit=1000';
  const first = await send(`${running.platform}${path}`);
  const etag = String(first.headers['etag']);
  assert.match(etag, /^"[A-Za-z0-9_-]{43}"$/);
  assert.equal((await send(`${running.platform}${path}`)).headers['etag'], etag, 'the same page, the same tag');
  assert.equal((await send(`${running.platform}${path}`, { headers: { 'if-none-match': etag } })).status, 304);
  await runtime.store.write((_sqlite, tx) => appendOutbox(tx, { family: 'support', event: 'support.bench', occurred_at: '2026-01-01T00:00:00Z', payload: { n: -1 }, source: 'outbox_api', correlation_id: null }));
  const changed = await send(`${running.platform}${path}`, { headers: { 'if-none-match': etag } });
  assert.equal(changed.status, 200);
  assert.notEqual(changed.headers['etag'], etag);
  const other = await send(`${running.platform}/api/v1/support-orchestration/handoffs?after_seq=0&limit=10`);
  assert.notEqual(other.headers['etag'], changed.headers['etag'], 'another page, another tag');
});
