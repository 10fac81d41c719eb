// Issue 24: the owner readback's `total` does not count the mailbox's publications on each
// request: a trigger keeps a counter per mailbox, read by its key (the same SQLite steps at 20 and
// at 3000 publications), exact after every insert, and filled once from what an older database
// already holds.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { statement } from '../../src/kernel/index.ts';
import { MAILBOX_PUBLICATIONS, openMessagingDatabase } from '../../src/messaging/database.ts';
import { TOTAL_SQL } from '../../src/messaging/owner-readback.ts';
import type { Store } from '../../src/kernel/index.ts';

function openStore(t: TestContext): { store: Store; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-messaging-scale-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'messaging.sqlite');
  return { store: openMessagingDatabase(path), path };
}

const publication = (mailbox: string, n: number) => ({
  mailbox,
  msg_id: `${mailbox}-${n}`,
  payload: { subject: `mailbox.${mailbox}`, bus: 'embedded', bytes: 2, sha256: '0'.repeat(64), content_type: 'application/json', request_id: `r${n}` },
});

async function publish(store: Store, mailbox: string, count: number, from = 0): Promise<void> {
  await store.write((_sqlite, tx) => {
    for (let n = from; n < from + count; n++) tx.append(MAILBOX_PUBLICATIONS, publication(mailbox, n));
  });
}

/** `total` for `mailbox` and the SQLite steps it took. */
function total(store: Store, mailbox: string): { total: number; steps: number } {
  const query = statement(store.sqlite, TOTAL_SQL) as unknown as { get(m: string): { total: number }; resetStats(): void; stat(counter: 'vmStep'): number };
  query.resetStats();
  const value = Number(query.get(mailbox).total);
  return { total: value, steps: query.stat('vmStep') };
}

test('the readback total reads one counter row: the same steps at 20 and 3000 publications, and exact', async (t) => {
  const { store } = openStore(t);
  t.after(() => store.close());
  await publish(store, 'review', 20);
  await publish(store, 'other', 5);
  const small = total(store, 'review');
  assert.equal(small.total, 20);
  await publish(store, 'review', 2980, 20);
  await publish(store, 'other', 1000, 5);
  const large = total(store, 'review');
  assert.equal(large.total, 3000);
  assert.equal(large.steps, small.steps);
  assert.equal(total(store, 'other').total, 1005);
  assert.equal(total(store, 'nobody').total, 0);
  // The old answer, for comparison: an index count whose steps grow with the mailbox.
  const counted = statement(store.sqlite, 'SELECT count(*) AS n FROM mailbox_publications WHERE mailbox = ?');
  assert.equal(Number(counted.get('review')!['n']), 3000);
  const plan = store.sqlite.prepare(`EXPLAIN QUERY PLAN ${TOTAL_SQL}`).all('review').map((row) => String(row['detail']));
  assert.ok(plan.some((detail) => /mailbox_publication_counts USING INDEX sqlite_autoindex_mailbox_publication_counts_1 \(mailbox=\?\)/.test(detail)), plan.join('\n'));
  assert.ok(!plan.some((detail) => /mailbox_publications\b(?!_)/.test(detail)), plan.join('\n'));
});

test('a database written before the counter gets it filled once from its rows, and kept from then on', async (t) => {
  const { store, path } = openStore(t);
  await publish(store, 'review', 40);
  await publish(store, 'other', 3);
  // As an older version left it: no counter, no trigger.
  store.sqlite.exec('DROP TRIGGER mailbox_publications_count; DROP TABLE mailbox_publication_counts;');
  await store.close();
  const reopened = openMessagingDatabase(path);
  t.after(() => reopened.close());
  assert.equal(total(reopened, 'review').total, 40);
  assert.equal(total(reopened, 'other').total, 3);
  await publish(reopened, 'review', 2, 40);
  assert.equal(total(reopened, 'review').total, 42);
  // Opening again (another process of the stack) neither refills nor doubles it.
  const second = openMessagingDatabase(path);
  await second.close();
  assert.equal(total(reopened, 'review').total, 42);
});
