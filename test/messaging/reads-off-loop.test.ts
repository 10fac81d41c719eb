// Issue 24, "reads never stall the service": the owner readback's heaviest read, the 500-row page
// of the review transport (the scale harness's), runs on its read pool, so /readyz answers while
// 8 clients' pages are in flight; the pages are the newest 500 publications, oldest first; and a
// spent read budget is 503 with Retry-After while readiness still answers.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { createLogger, readRows } from '../../src/kernel/index.ts';
import { databasePath, MAILBOX_PUBLICATIONS, openMessagingDatabase } from '../../src/messaging/database.ts';
import { openEmbeddedBus } from '../../src/messaging/embedded-bus.ts';
import { createMailboxPublisher } from '../../src/messaging/mailbox-publisher.ts';
import { createOwnerReadbackService } from '../../src/messaging/owner-readback.ts';
import { REVIEW_TRANSPORT_PATH } from '../../src/messaging/routes.ts';
import type { Service } from '../../src/kernel/index.ts';
import { createReadHold } from '../helpers/held-reads.ts';
import { send } from '../helpers/http.ts';

const TOKEN = 'reads-off-loop-owner-token-0123';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const REVIEW = 'plan-studio-review';
const PUBLISHED = 3000;
const PAGE = `${REVIEW_TRANSPORT_PATH}?limit=500`;

let dir: string;
let readback: Service;
let base: string;
const hold = createReadHold('messaging.sqlite');

/** PUBLISHED publications through the adapter's own path (embedded bus), three in four to the review mailbox. */
async function grow(path: string): Promise<void> {
  const store = openMessagingDatabase(path);
  const bus = openEmbeddedBus({ store });
  const publish = createMailboxPublisher({ bus, store });
  try {
    await Promise.all(Array.from({ length: PUBLISHED }, (_, n) => {
      const mailbox = n % 4 === 3 ? 'ops-notices' : REVIEW;
      const body = Buffer.from(JSON.stringify({ type: 'plan.review.requested', n }));
      return publish({ mailbox, subject: `mailbox.${mailbox}`, msgId: `m-${n}`, idFromClient: true, body, contentType: 'application/json', requestId: `req-${n}` });
    }));
  } finally {
    await bus.close();
    await store.close();
  }
}

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'airlock-readback-loop-'));
  await grow(databasePath(dir));
  readback = createOwnerReadbackService({ env: { AIRLOCK_DATA_DIR: dir, OWNER_READBACK_API_TOKEN: TOKEN }, listen: '127.0.0.1:0', log: createLogger({ name: 'messaging.owner-readback', write: () => {} }), wrapReads: hold.wrap });
  await readback.listen();
  base = readback.url('owner-readback');
});
test.after(async () => {
  await readback.close();
  rmSync(dir, { recursive: true, force: true });
});

test('/readyz answers while 8 clients\' 500-row review transport pages are in flight on the read pool', async () => {
  // Each page asks the pool twice: its rows and its total.
  const run = await hold.probeWhileHeld({ count: 8, queries: 16, read: () => send(`${base}${PAGE}`, { headers: AUTH }), probe: () => send(`${base}/readyz`, { headers: AUTH }) });
  assert.equal(run.held, 16, 'the pages were not read on the read pool');
  assert.equal(run.probe.status, 200, run.probe.text);
  assert.equal(run.answered, 0);
  // What the readback shows: the mailbox's newest 500 publications, oldest first, as stored.
  const sqlite = new DatabaseSync(databasePath(dir), { readOnly: true });
  const stored = readRows(sqlite, MAILBOX_PUBLICATIONS, { where: { mailbox: REVIEW } }).slice(-500);
  sqlite.close();
  for (const page of run.reads) {
    assert.equal(page.status, 200, page.text);
    const body = page.json() as { total: number; rows: { seq: number; msg_id: string; row_sha256: string; request_id: string }[] };
    assert.equal(body.total, PUBLISHED * 3 / 4);
    assert.deepEqual(body.rows.map((row) => [row.seq, row.msg_id, row.row_sha256, row.request_id]), stored.map((row) => [row.seq, row.msg_id, row.sha256, row.payload.request_id]));
  }
  assert.equal(stored.at(-1)!.msg_id, `m-${PUBLISHED - 2}`);
});

test('a page whose read budget is spent is 503 with Retry-After, readiness still answers, and the next page is read again', async () => {
  hold.spent = true;
  try {
    const refused = await send(`${base}${PAGE}`, { headers: AUTH });
    assert.equal(refused.status, 503);
    assert.ok(Number(refused.headers['retry-after']) > 0, 'no Retry-After');
    assert.match(refused.text, /budget/);
    assert.equal((await send(`${base}/readyz`, { headers: AUTH })).status, 200);
  } finally {
    hold.spent = false;
  }
  assert.equal((await send(`${base}${PAGE}`, { headers: AUTH })).status, 200);
});
