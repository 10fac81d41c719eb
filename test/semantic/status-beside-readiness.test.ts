// Issue 24, "reads never stall the service": semantic's heaviest read, the runtime status (the
// scale harness's), stays on the event loop because it is O(1) in the evidence: one cached body,
// re-read only when the database changed, from last seqs, the newest rows by seq and the counters
// the worker keeps. Shown at the route: a re-read costs the same SQLite steps over 10 000 inbox
// records as over 30; and /readyz answers while 8 clients loop on the status over those 10 000
// records as the worker keeps changing them (every read then re-reads the state).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../src/kernel/index.ts';
import { putRecords } from '../../src/semantic/ingest-inbox.ts';
import { reconcileOnce } from '../../src/semantic/reconcile.ts';
import { STATUS_PATH } from '../../src/semantic/routes.ts';
import { send } from '../helpers/http.ts';
import { stepCounter } from '../helpers/sqlite-steps.ts';
import { until } from '../helpers/until.ts';
import { lines, nodeRecord } from './fixtures/semantic-fixtures.ts';
import { startTestService } from './fixtures/semantic-service.ts';
import type { TestService } from './fixtures/semantic-service.ts';

const LARGE = 10_000;

/** Records `from` .. `to` - 1 put into the inbox and decided by the worker in ten runs, one in ten quarantined. */
async function grow(worker: Store, from: number, to: number): Promise<void> {
  const records = Array.from({ length: to - from }, (_, i) => nodeRecord({ record_id: `r-${from + i}`, node_id: `n-${from + i}`, ...((from + i) % 10 === 9 && { isolation_domain_ref: 'nowhere' }) }));
  await putRecords(worker, lines(...records), { source: 'test' });
  while (await reconcileOnce(worker, { batchSize: Math.ceil((to - from) / 10) }) !== undefined);
}

type Status = { control_db_discovery: { inbox: { records: number; undecided: number } }; repair_receipts: unknown[] };

async function status(s: TestService) {
  return send(`${s.url}${STATUS_PATH}`, { headers: s.consumer() });
}

test('GET runtime/status after a change re-reads the state in the same SQLite steps over 10 000 inbox records as over 30, and /readyz answers while 8 clients loop on it', async (t) => {
  const s = await startTestService(t);
  const steps = stepCounter(s.store.sqlite);
  const worker = s.otherConnection();
  await grow(worker, 0, 30);
  const small = await steps.during(() => status(s));
  await grow(worker, 30, 30 + LARGE);
  const large = await steps.during(() => status(s));
  for (const [read, records] of [[small, 30], [large, 30 + LARGE]] as const) {
    const body = read.result.json() as Status;
    assert.deepEqual(body.control_db_discovery.inbox.records, records);
    assert.equal(body.repair_receipts.length, 10);
  }
  assert.ok(small.steps > 0, 'the status read was not re-read after the change');
  assert.equal(large.steps, small.steps, `steps over ${30 + LARGE} records ${large.steps}, over 30 ${small.steps}`);

  // The worker changes the database while 8 clients loop on the status: their reads re-read the state.
  let looping = true;
  let changes = 0;
  const writer = (async () => {
    for (let n = 30 + LARGE; looping; n++, changes++) {
      await putRecords(worker, lines(nodeRecord({ record_id: `r-${n}`, node_id: `n-${n}` })), { source: 'test' });
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  let answered = 0;
  const seen = new Set<number>();
  const clients = Array.from({ length: 8 }, async () => {
    while (looping) {
      const read = await status(s);
      assert.equal(read.status, 200, read.text);
      seen.add((read.json() as Status).control_db_discovery.inbox.records);
      answered++;
    }
  });
  try {
    await until(() => answered >= 40 && changes >= 5, 10_000);
    const before = answered;
    const probe = await send(`${s.url}/readyz`);
    assert.equal(probe.status, 200, probe.text);
    // The clients were still looping: reads were answered beside the probe.
    await until(() => answered >= before + 16, 10_000);
  } finally {
    looping = false;
    await Promise.all([writer, ...clients]);
  }
  assert.ok(seen.size >= 3, `the clients saw ${seen.size} states: the state was not re-read while they looped`);
});
