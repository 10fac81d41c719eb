// Issue 24, "reads never stall the service": agent-context's heaviest read, the rollouts audit
// (the scale harness's), reads its page on the read pool, so /ready answers while 8 clients'
// audits are in flight; the audits are the first page of patches in seq order with the whole
// chain verified; and a spent read budget is 503 with Retry-After while readiness still answers.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readRows } from '../../src/kernel/index.ts';
import { runtimePatches } from '../../src/agent-context/database.ts';
import { AUDIT_DEFAULT_LIMIT } from '../../src/agent-context/reads.ts';
import { createReadHold } from '../helpers/held-reads.ts';
import { send } from '../helpers/http.ts';
import { AUTH, startStack } from './_stack.ts';
import type { Stack } from './_stack.ts';

const PATCHES = 3000;
const AUDIT = '/api/v1/rollouts/audit';

let stack: Stack;
const hold = createReadHold('agent-context.sqlite');

test.before(async () => {
  // No governance: its truth and its /health answer at once (a refused port), as unavailable.
  stack = await startStack({ governance: false, wrapReads: hold.wrap });
  for (let start = 0; start < PATCHES; start += 1000) {
    await stack.service.store.write((_sqlite, tx) => {
      for (let n = start; n < start + 1000; n++) tx.append(runtimePatches, { agent_id: `a${n % 7}`, action: 'apply', payload: { runtime: 'node', version: `1.${n}.0`, config_sha256: null, reason: 'r', actor: 'ops' } });
    });
  }
});
test.after(() => stack.stop());

test('/ready answers while 8 clients\' rollouts audits are in flight on the read pool', async () => {
  const run = await hold.probeWhileHeld({ count: 8, queries: 8, read: () => send(`${stack.url}${AUDIT}`, { headers: AUTH }), probe: () => send(`${stack.url}/ready`) });
  assert.equal(run.held, 8, 'the audits were not read on the read pool');
  assert.equal(run.probe.status, 200, run.probe.text);
  assert.equal(run.answered, 0);
  const stored = readRows(stack.service.store.sqlite, runtimePatches, { limit: AUDIT_DEFAULT_LIMIT });
  for (const audit of run.reads) {
    assert.equal(audit.status, 200, audit.text);
    const body = audit.json() as { rollouts: { seq: number; agent_id: string; version: string; sha256: string }[]; total: number; page: { next_after_seq: number | null }; chain: { verified: boolean; rows: number } };
    assert.deepEqual(body.rollouts.map((r) => [r.seq, r.agent_id, r.version, r.sha256]), stored.map((row) => [row.seq, row.agent_id, (row.payload as { version: string }).version, row.sha256]));
    assert.deepEqual([body.total, body.page.next_after_seq, body.chain.verified, body.chain.rows], [PATCHES, AUDIT_DEFAULT_LIMIT, true, PATCHES]);
  }
});

test('an audit whose read budget is spent is 503 with Retry-After, readiness still answers, and the next audit is read again', async () => {
  hold.spent = true;
  try {
    const refused = await send(`${stack.url}${AUDIT}`, { headers: AUTH });
    assert.equal(refused.status, 503);
    assert.ok(Number(refused.headers['retry-after']) > 0, 'no Retry-After');
    assert.match(refused.text, /budget/);
    assert.equal((await send(`${stack.url}/ready`)).status, 200);
  } finally {
    hold.spent = false;
  }
  assert.equal((await send(`${stack.url}${AUDIT}?after_seq=${PATCHES - 1}`, { headers: AUTH })).status, 200);
});
