// Issue 24: a producer refreshes each mail-management scope hourly, so its history grows without
// end, while withdrawals stay few. The signed revocations list reads each scope's withdrawals by
// their partial index and, from each, back to the first projection already expired when it was
// observed: the same list as folding every row of the scope, in steps that do not grow with the
// refreshes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readRows } from '../../src/kernel/index.ts';
import type { Store } from '../../src/kernel/index.ts';
import { identityProjections } from '../../src/governance/database.ts';
import { scopeKey } from '../../src/governance/access/projection.ts';
import type { ProjectionRow } from '../../src/governance/access/projection.ts';
import { send } from '../helpers/http.ts';
import type { StepCounter } from '../helpers/sqlite-steps.ts';
import { bearer, startCountingGovernance } from './_service.ts';
import type { RunningGovernance } from './_service.ts';

const MAILBOXES = ['ops@example.com', 'billing@example.com'];
const HOUR = 3600_000;
const BASE = Date.now() - 50_000 * HOUR;

let running: RunningGovernance;
let store: Store;
let steps: StepCounter;
test.before(async () => ({ running, store, steps } = await startCountingGovernance()));
test.after(() => running.stop());

/**
 * What the write path records for `hours` hours of every scope, in time order: an hourly
 * projection valid for an hour, a stale refusal beside it, and every 97th hour a withdrawal half
 * an hour later (twice in a row every 3rd time, the second ending nothing).
 */
async function history(fromHour: number, hours: number): Promise<void> {
  await store.write((_sqlite, tx) => {
    for (let hour = fromHour; hour < fromHour + hours; hour++) {
      for (const mailbox of MAILBOXES) {
        const scope = { tenant_id: 'tenant-a', mailbox };
        const key = scopeKey('tenant-a', mailbox);
        const at = (ms: number) => new Date(BASE + hour * HOUR + ms).toISOString();
        const base = { scope, observation: { administrator: { subject_id: `admin-of-${mailbox}`, kind: 'human', role: 'administrator', active: true } }, recorded_by_lane: 'mail_producer' };
        tx.append(identityProjections, { surface: 'mail_management', scope_key: key, payload: { ...base, observed_at: at(0), effect: 'projected', reasons: [], expires_at: at(HOUR) } });
        tx.append(identityProjections, { surface: 'mail_management', scope_key: key, payload: { ...base, observed_at: at(-5 * HOUR), effect: 'refused', reasons: ['stale'], expires_at: null } });
        if (hour % 97 === 0) {
          const withdrawals = hour % 3 === 0 ? 2 : 1;
          for (let n = 0; n < withdrawals; n++) {
            tx.append(identityProjections, { surface: 'mail_management', scope_key: key, payload: { ...base, observed_at: at(HOUR / 2 + n), effect: 'withdrawn', reasons: ['inactive'], expires_at: null } });
          }
        }
      }
    }
  });
}

/** The revocations as folding every row of every scope gives them (the read before issue 24). */
function foldedRevocations(): { jti: string; revoked_at: string; reasons: string[] }[] {
  const revocations: { jti: string; revoked_at: string; reasons: string[] }[] = [];
  for (const mailbox of MAILBOXES) {
    let active: ProjectionRow[] = [];
    for (const row of readRows(store.sqlite, identityProjections, { where: { surface: 'mail_management', scope_key: scopeKey('tenant-a', mailbox) } }) as unknown as ProjectionRow[]) {
      if (row.payload.effect === 'projected') active.push(row);
      else if (row.payload.effect === 'withdrawn') {
        for (const ended of active.filter((a) => Date.parse(a.payload.expires_at!) > Date.parse(row.payload.observed_at))) {
          revocations.push({ jti: `adm_${ended.sha256.slice(0, 32)}`, revoked_at: row.recorded_at, reasons: row.payload.reasons });
        }
        active = [];
      }
    }
  }
  return revocations.sort((a, b) => (a.revoked_at < b.revoked_at ? -1 : a.revoked_at > b.revoked_at ? 1 : a.jti < b.jti ? -1 : 1));
}

async function revocations(): Promise<{ steps: number; list: { jti: string; revoked_at: string; reasons: string[] }[] }> {
  const read = await steps.during(async () => (await send(`${running.platform}/api/v1/identity/mail-admission/revocations`, { headers: bearer('mail_consumer') })).json() as { revocations: { jti: string; revoked_at: string; reasons: string[] }[] });
  return { steps: read.steps, list: read.result.revocations.map(({ jti, revoked_at, reasons }) => ({ jti, revoked_at, reasons })) };
}

test('the revocations list is the fold of every row, in steps that grow with the withdrawals, not with the hourly refreshes', async () => {
  await history(0, 100);
  const small = await revocations();
  assert.equal(small.list.length, MAILBOXES.length * 2, 'hour 0 (twice, the second ending nothing) and hour 97');
  assert.deepEqual(small.list, foldedRevocations());
  // 2,000 more hours between the same withdrawals' neighbours: twenty more withdrawals per scope, 8,000 more rows.
  await history(100, 2000);
  const large = await revocations();
  assert.equal(large.list.length, MAILBOXES.length * 22);
  assert.deepEqual(large.list, foldedRevocations());
  const perWithdrawal = (read: { steps: number; list: unknown[] }) => read.steps / read.list.length;
  assert.ok(perWithdrawal(large) <= perWithdrawal(small) * 1.5 + 50, `revocations: ${small.steps} steps for ${small.list.length} after 100 hours, ${large.steps} for ${large.list.length} after 2,100`);
});
