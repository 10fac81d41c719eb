// Issue 24: health.integration_status reports the dispatch backlog (approval dispatch jobs queued,
// retrying or dead and awaiting their owner) from erp_current's status index. It grouped every
// row of dispatch_jobs by name on each call: its cost grew with the whole history of dispatches.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statement } from '../../src/kernel/index.ts';
import { insertDocument } from '../../src/erp/database/documents.ts';
import { BACKLOG_SQL } from '../../src/erp/health/integration-status.ts';
import { send } from '../helpers/http.ts';
import { startErp } from './_service.ts';

const BASE = Date.UTC(2026, 0, 1);

test('the dispatch backlog counts the jobs in it, in steps independent of the delivered history', async (t) => {
  const erp = await startErp();
  t.after(() => erp.stop());
  const sqlite = erp.service.store.sqlite;
  let n = 0;
  const jobs = (count: number, status: string, extra: Record<string, unknown> = {}) => erp.service.store.write((db, tx) => {
    for (let i = 0; i < count; i++, n++) {
      insertDocument(db, tx, { doctype: 'Dispatch Job', fields: { job_type: 'approval_dispatch', status, document_name: `packet-${n}`, ...extra }, owner: 'test', at: new Date(BASE + n * 1000) });
    }
  });
  const backlogSteps = () => {
    const poll = statement(sqlite, BACKLOG_SQL) as unknown as { resetStats(): void; all(): unknown[]; stat(counter: 'vmStep'): number };
    poll.resetStats();
    poll.all();
    return poll.stat('vmStep');
  };
  await jobs(3, 'Queued');
  await jobs(2, 'Retrying');
  await jobs(4, 'Dead');
  await jobs(5, 'Dead', { owner_follow_through: 'decided' });
  await jobs(200, 'Delivered');
  const small = backlogSteps();
  await jobs(4000, 'Delivered');
  await jobs(1000, 'Superseded');
  const large = backlogSteps();
  assert.ok(large <= small + 10, `backlog steps ${small} with 200 delivered jobs, ${large} with 4,200 and 1,000 superseded`);
  const status = (await send(`${erp.url}/api/method/erp_core.api.health.integration_status`)).json() as { message?: Record<string, unknown> } & Record<string, unknown>;
  const snapshot = (status['message'] ?? status) as Record<string, unknown>;
  assert.deepEqual(snapshot['dispatch_backlog'], { queued: 3, retrying: 2, dead: 4 });
});
