// Issue 24: a producer refreshes each mail-management scope at least hourly, so
// identity_projections grows without end while the scopes stay few. The decision read and the
// signed admissions read the latest row of each scope, not its history: the test counts the
// SQLite steps of both at two sizes of the table instead of timing anything.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../src/kernel/index.ts';
import { identityProjections } from '../../src/governance/database.ts';
import { scopeKey } from '../../src/governance/access/projection.ts';
import { randomUUID } from 'node:crypto';
import { send, sendJson } from '../helpers/http.ts';
import type { StepCounter } from '../helpers/sqlite-steps.ts';
import { bearer, startCountingGovernance } from './_service.ts';
import type { RunningGovernance } from './_service.ts';

const MAILBOXES = ['ops@example.com', 'billing@example.com', 'hr@example.com'];

let running: RunningGovernance;
let store: Store;
let steps: StepCounter;
test.before(async () => ({ running, store, steps } = await startCountingGovernance()));
test.after(() => running.stop());

/** `hours` hourly refreshes of every scope (each projected for an hour, all but the last expired), with a refused stale write beside each. */
async function refresh(fromHour: number, hours: number): Promise<void> {
  const now = Date.now();
  await store.write((_sqlite, tx) => {
    for (let hour = fromHour; hour < fromHour + hours; hour++) {
      const observed = new Date(now - (10_000 - hour) * 3600_000);
      for (const mailbox of MAILBOXES) {
        const scope = { tenant_id: 'tenant-a', mailbox };
        const base = { scope, observation: { administrator: { subject_id: `admin-of-${mailbox}`, kind: 'human', role: 'administrator', active: true } }, observed_at: observed.toISOString(), recorded_by_lane: 'mail_producer' };
        tx.append(identityProjections, { surface: 'mail_management', scope_key: scopeKey('tenant-a', mailbox), payload: { ...base, effect: 'projected', reasons: [], expires_at: new Date(observed.getTime() + 3600_000).toISOString() } });
        tx.append(identityProjections, { surface: 'mail_management', scope_key: scopeKey('tenant-a', mailbox), payload: { ...base, effect: 'refused', reasons: ['stale'], expires_at: null } });
      }
    }
  });
}

/** The latest refresh, observed a second ago: every scope is allowed now. */
async function current(): Promise<void> {
  const observed = new Date(Date.now() - 1000);
  await store.write((_sqlite, tx) => {
    for (const mailbox of MAILBOXES) {
      const scope = { tenant_id: 'tenant-a', mailbox };
      tx.append(identityProjections, { surface: 'mail_management', scope_key: scopeKey('tenant-a', mailbox), payload: { scope, observation: { administrator: { subject_id: `admin-of-${mailbox}`, kind: 'human', role: 'administrator', active: true } }, observed_at: observed.toISOString(), recorded_by_lane: 'mail_producer', effect: 'projected', reasons: [], expires_at: new Date(observed.getTime() + 3600_000).toISOString() } });
    }
  });
}

async function reads(): Promise<{ admissions: { steps: number; count: number }; decision: { steps: number; decision: string } }> {
  const admissions = await steps.during(async () => (await send(`${running.platform}/api/v1/identity/mail-admission/admissions`, { headers: bearer('mail_consumer') })).json() as { count: number });
  const decision = await steps.during(async () => (await send(`${running.platform}/api/v1/identity/mail-management/decision?tenant_id=tenant-a&mailbox=ops%40example.com`, { headers: bearer('mail_consumer') })).json() as { decision: string });
  return { admissions: { steps: admissions.steps, count: admissions.result.count }, decision: { steps: decision.steps, decision: decision.result.decision } };
}

test('the mail-admission and decision reads take the same steps after 10 and after 1000 hourly refreshes of every scope', async () => {
  await refresh(0, 10);
  await current();
  const small = await reads();
  assert.deepEqual([small.admissions.count, small.decision.decision], [3, 'allow']);
  await refresh(10, 990);
  await current();
  const large = await reads();
  assert.deepEqual([large.admissions.count, large.decision.decision], [3, 'allow']);
  assert.ok(large.admissions.steps <= small.admissions.steps * 1.1 + 20, `admissions: ${small.admissions.steps} steps at 63 rows, ${large.admissions.steps} at 6003`);
  assert.ok(large.decision.steps <= small.decision.steps * 1.1 + 20, `decision: ${small.decision.steps} steps at 63 rows, ${large.decision.steps} at 6003`);
});

/** One hourly refresh of ops@example.com through the write route, as the producer sends it. */
async function projectionWrite(): Promise<{ steps: number; effect: string }> {
  const body = {
    scope: { tenant_id: 'tenant-a', mailbox: 'ops@example.com' },
    administrator: { subject_id: 'admin-of-ops@example.com', kind: 'human', role: 'administrator', active: true },
    observed_at: new Date(Date.now() - 500).toISOString(),
    source: { system: 'directory', record_ref: 'dir:1' },
  };
  const written = await steps.during(async () => (await sendJson(`${running.worker}/api/v1/identity/mail-management/projection`, body, { headers: { ...bearer('mail_producer'), 'idempotency-key': `"${randomUUID()}"` } })).json() as { effect: string });
  return { steps: written.steps, effect: written.result.effect };
}

test('a projection write (the producer\'s hourly refresh) takes the same steps after 10 and after 1000 refreshes of its scope', async () => {
  await refresh(1000, 10);
  const small = await projectionWrite();
  await refresh(1010, 1000);
  const large = await projectionWrite();
  assert.deepEqual([small.effect, large.effect], ['projected', 'projected']);
  // The write finds the scope's latest projection by the index; it used to read every row of the scope.
  assert.ok(large.steps <= small.steps * 1.1 + 50, `projection write: ${small.steps} steps after 10 refreshes, ${large.steps} after 1010`);
});
