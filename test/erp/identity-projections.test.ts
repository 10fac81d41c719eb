// identity_projections.*: truth loaded by the operator, then each fail-closed rule: unknown,
// ambiguous, inactive, relieved, disabled, stale and role-less identities deny with their reason;
// the batch forms answer one result per input; every fact of contract v3 satisfies its schema.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { compileSchema } from '../../src/kernel/index.ts';
import { callMethod, frappeErrorText, startErp, tableCounts } from './_service.ts';
import type { Running } from './_service.ts';

const FACT_V3 = compileSchema(JSON.parse(readFileSync('contracts/erp/workboard_access_fact_v3.json', 'utf8')) as Record<string, unknown>, { formats: 'assert' });
let clock = Date.parse('2026-11-20T10:00:00Z');
let erp: Running;

const employee = (name: string, extra: Record<string, unknown> = {}) => ({ name, employee_name: `Person ${name}`, status: 'Active', ...extra });
const user = (name: string, roles: string[], extra: Record<string, unknown> = {}) => ({ name, enabled: 1, user_type: 'System User', roles, ...extra });

before(async () => {
  erp = await startErp({ now: () => clock, env: { ERP_IDENTITY_MAX_AGE_SECONDS: '3600' } });
  const load = await callMethod(erp.url, 'identity_projections.load_identity_truth', {
    employees: [
      employee('HR-EMP-00001', { user_id: 'ada@example.test', project_manager_projects: ['PROJ-1'], special_posture: 'works_council' }),
      employee('HR-EMP-00002', { user_id: 'bob@example.test', status: 'Inactive' }),
      employee('HR-EMP-00003', { user_id: 'cy@example.test', relieving_date: '2026-01-31' }),
      employee('HR-EMP-00004', { user_id: 'twin@example.test' }),
      employee('HR-EMP-00005', { user_id: 'twin@example.test' }),
      employee('HR-EMP-00006', { user_id: 'off@example.test' }),
      employee('HR-EMP-00007', { user_id: 'norole@example.test' }),
      employee('HR-EMP-00008'),
    ],
    users: [
      user('ada@example.test', ['Workboard User', 'Projects Manager', 'Keystore Custodian']),
      user('bob@example.test', ['Workboard User']),
      user('cy@example.test', ['Workboard User']),
      user('twin@example.test', ['Workboard User']),
      user('off@example.test', ['Workboard User'], { enabled: 0 }),
      user('norole@example.test', []),
      user('svc@example.test', ['Workboard User']),
    ],
  });
  assert.equal(load.status, 200, load.text);
});
after(() => erp.stop());

async function fact(subject: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await callMethod(erp.url, 'identity_projections.workboard_access_fact', subject);
  assert.equal(response.status, 200, response.text);
  const message = (response.json() as { message: Record<string, unknown> }).message;
  const checked = FACT_V3.validate(message);
  assert.ok(checked.valid, JSON.stringify(checked.errors));
  return message;
}

describe('workboard_access_fact (contract v3)', () => {
  test('an active, employed, enabled Workboard User is allowed, by either identity, with the project-manager and special-posture fields', async () => {
    for (const subject of [{ technical_subject: 'ada@example.test' }, { business_identity_id: 'HR-EMP-00001' }]) {
      const f = await fact(subject);
      assert.deepEqual([f['workboard_login_allowed'], f['workboard_eligibility'], f['deny_reason'], f['claim_principal_type'], f['lifecycle_state'], f['employment_state']], [true, 'eligible', null, 'employee', 'active', 'employed']);
      assert.deepEqual([f['project_manager_eligible'], f['project_manager_projects'], f['special_posture_active'], f['special_posture_kind']], [true, ['PROJ-1'], true, 'works_council']);
      assert.deepEqual([f['business_identity_id'], f['technical_subject']], ['HR-EMP-00001', 'ada@example.test']);
    }
  });

  test('every doubtful identity denies with its reason', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ technical_subject: 'nobody@example.test' }, 'unknown_identity'],
      [{ business_identity_id: 'HR-EMP-99999' }, 'unknown_identity'],
      [{ technical_subject: 'twin@example.test' }, 'ambiguous_identity'],
      [{ business_identity_id: 'HR-EMP-00004' }, 'ambiguous_identity'],
      [{ technical_subject: 'bob@example.test' }, 'inactive_identity'],
      [{ technical_subject: 'cy@example.test' }, 'relieved_identity'],
      [{ technical_subject: 'off@example.test' }, 'user_disabled'],
      [{ technical_subject: 'norole@example.test' }, 'missing_role'],
      [{ technical_subject: 'svc@example.test' }, 'no_employee_record'],
      [{ business_identity_id: 'HR-EMP-00008' }, 'no_user_account'],
    ];
    for (const [subject, reason] of cases) {
      const f = await fact(subject);
      assert.deepEqual([f['workboard_login_allowed'], f['deny_reason'], f['project_manager_eligible']], [false, reason, false], JSON.stringify(subject));
    }
  });

  test('stale truth denies; a fresh load restores the grant', async () => {
    clock += 2 * 3600 * 1000;
    assert.equal((await fact({ technical_subject: 'ada@example.test' }))['deny_reason'], 'stale_identity_truth');
    const reload = await callMethod(erp.url, 'identity_projections.load_identity_truth', { employees: [employee('HR-EMP-00001', { user_id: 'ada@example.test', project_manager_projects: ['PROJ-1'], special_posture: 'works_council' })], users: [user('ada@example.test', ['Workboard User', 'Projects Manager', 'Keystore Custodian'])] });
    assert.deepEqual((reload.json() as { message: { loaded: unknown } }).message.loaded, { Employee: { inserted: 0, updated: 1 }, User: { inserted: 0, updated: 1 } });
    assert.equal((await fact({ technical_subject: 'ada@example.test' }))['workboard_login_allowed'], true);
  });

  test('not exactly one identity, wrong types, extra fields and no auth are refused', async () => {
    for (const args of [{}, { technical_subject: 'a', business_identity_id: 'b' }, { technical_subject: 5 }, { technical_subject: '' }, { technical_subject: 'a', role: 'admin' }, { technical_subject: 'x'.repeat(141) }]) {
      const response = await callMethod(erp.url, 'identity_projections.workboard_access_fact', args);
      assert.equal(response.status, 417, JSON.stringify(args));
      assert.equal(frappeErrorText(response).exc_type, 'ValidationError');
    }
    assert.equal((await callMethod(erp.url, 'identity_projections.workboard_access_fact', { technical_subject: 'ada@example.test' }, { auth: undefined })).status, 403);
    assert.equal((await callMethod(erp.url, 'identity_projections.workboard_access_fact', { technical_subject: 'ada@example.test' }, { auth: 'token x:y' })).status, 401);
  });
});

describe('batches and the key-store principal truth', () => {
  test('workboard_access_fact_batch: one result per input, a bad input is its own error', async () => {
    const response = await callMethod(erp.url, 'identity_projections.workboard_access_fact_batch', { subjects: [{ technical_subject: 'ada@example.test' }, { technical_subject: 1 }, 'x', { business_identity_id: 'HR-EMP-00002' }, {}] });
    assert.equal(response.status, 200, response.text);
    const results = (response.json() as { message: { results: { index: number; ok: boolean; fact?: Record<string, unknown>; error?: string }[] } }).message.results;
    assert.deepEqual(results.map((r) => [r.index, r.ok]), [[0, true], [1, false], [2, false], [3, true], [4, false]]);
    assert.deepEqual([results[0]!.fact!['workboard_login_allowed'], results[3]!.fact!['deny_reason']], [true, 'inactive_identity']);
    assert.match(results[4]!.error!, /exactly one/);
    for (const r of results) if (r.fact) assert.ok(FACT_V3.validate(r.fact).valid);
  });

  test('lifecycle_fact_batch reports lifecycle, employment and freshness per subject', async () => {
    const response = await callMethod(erp.url, 'identity_projections.lifecycle_fact_batch', { subjects: [{ business_identity_id: 'HR-EMP-00003' }, { technical_subject: 'nobody@example.test' }] });
    const results = (response.json() as { message: { results: { fact: Record<string, unknown> }[] } }).message.results;
    assert.deepEqual([results[0]!.fact['lifecycle_state'], results[0]!.fact['employment_state'], results[0]!.fact['relieving_date']], ['active', 'relieved', '2026-01-31']);
    assert.deepEqual([results[1]!.fact['lifecycle_state'], results[1]!.fact['deny_reason']], ['unknown', 'unknown_identity']);
  });

  test('batch bounds: not a list, empty, over 100 entries, extra arguments are 417', async () => {
    for (const args of [{ subjects: 'ada' }, { subjects: [] }, { subjects: Array.from({ length: 101 }, () => ({ technical_subject: 'a' })) }, { subjects: [{ technical_subject: 'a' }], more: 1 }]) {
      assert.equal((await callMethod(erp.url, 'identity_projections.lifecycle_fact_batch', args)).status, 417, JSON.stringify(args).slice(0, 60));
    }
  });

  test('keystore_bootstrap_principal_truth: only an allowed Keystore Custodian bootstraps', async () => {
    const truth = async (subject: Record<string, unknown>) => (((await callMethod(erp.url, 'identity_projections.keystore_bootstrap_principal_truth', subject)).json()) as { message: Record<string, unknown> }).message;
    const ada = await truth({ technical_subject: 'ada@example.test' });
    assert.deepEqual([ada['bootstrap_allowed'], ada['key_custodian'], ada['principal']], [true, true, 'ada@example.test']);
    assert.deepEqual([(await truth({ technical_subject: 'svc@example.test' }))['deny_reason'], (await truth({ technical_subject: 'bob@example.test' }))['bootstrap_allowed']], ['no_employee_record', false]);
    const noCustodian = await callMethod(erp.url, 'identity_projections.load_identity_truth', { users: [user('bob2@example.test', ['Workboard User'])], employees: [employee('HR-EMP-00010', { user_id: 'bob2@example.test' })] });
    assert.equal(noCustodian.status, 200);
    assert.equal((await truth({ technical_subject: 'bob2@example.test' }))['deny_reason'], 'missing_role');
  });
});

describe('load_identity_truth', () => {
  test('a bad row refuses the whole load naming it, and nothing changes', async () => {
    const before = tableCounts(erp.service);
    const bad: Record<string, unknown>[] = [
      {},
      { employees: 'x' },
      { employees: [employee('HR-EMP-1', { status: 'Retired' })] },
      { employees: [employee('HR-EMP-1'), { name: 'HR-EMP-2' }] },
      { employees: [employee('HR-EMP-1'), employee('HR-EMP-1')] },
      { employees: [employee('HR-EMP-1', { relieving_date: '31.01.2026' })] },
      { users: [user('a@b.c', ['x'], { enabled: 'yes' })] },
      { users: [user('a@b.c', 'admin' as unknown as string[])] },
      { users: [user('a@b.c', [], { password: 'x' })] },
      { users: [user('a@b.c', [])], observed_at: '2999-01-01T00:00:00Z' },
      { users: [user('a@b.c', [])], extra: 1 },
    ];
    for (const args of bad) assert.equal((await callMethod(erp.url, 'identity_projections.load_identity_truth', args)).status, 417, JSON.stringify(args).slice(0, 80));
    assert.deepEqual(tableCounts(erp.service), before);
    assert.equal((await callMethod(erp.url, 'identity_projections.load_identity_truth', { users: [user('a@b.c', [])] }, { auth: undefined })).status, 403);
  });
});

describe('logins that differ only in case', () => {
  test('two Users or Employee links that differ only in letter case are one login to the desk: ambiguous, denied by either identity', async () => {
    // Frappe's User names are email logins and its database compares them case-insensitively:
    // "Case@…" and "case@…" are one account there, so truth naming both cannot say who it is.
    const load = await callMethod(erp.url, 'identity_projections.load_identity_truth', {
      employees: [employee('HR-EMP-00011', { user_id: 'case@example.test' }), employee('HR-EMP-00012', { user_id: 'Case@example.test' })],
      users: [user('case@example.test', ['Workboard User']), user('Case@example.test', ['Workboard User'])],
    });
    assert.equal(load.status, 200, load.text);
    for (const subject of [{ technical_subject: 'case@example.test' }, { technical_subject: 'Case@example.test' }, { business_identity_id: 'HR-EMP-00011' }, { business_identity_id: 'HR-EMP-00012' }]) {
      const answer = await fact(subject);
      assert.deepEqual([answer['workboard_login_allowed'], answer['deny_reason']], [false, 'ambiguous_identity'], JSON.stringify(subject));
    }
  });

  test('one login in another letter case is the same account (review: "ANN@X.IO" denied no_user_account for ann@x.io)', async () => {
    const load = await callMethod(erp.url, 'identity_projections.load_identity_truth', {
      employees: [employee('HR-EMP-00021', { user_id: 'ANN@X.IO' }), employee('HR-EMP-00022', { user_id: 'kim@x.io' })],
      users: [user('ann@x.io', ['Workboard User']), user('Kim@X.io', ['Workboard User'])],
    });
    assert.equal(load.status, 200, load.text);
    for (const subject of [{ technical_subject: 'ANN@X.IO' }, { technical_subject: 'ann@x.io' }, { technical_subject: 'Ann@X.Io' }, { business_identity_id: 'HR-EMP-00021' }, { business_identity_id: 'HR-EMP-00022' }, { technical_subject: 'KIM@x.io' }]) {
      const answer = await fact(subject);
      assert.deepEqual([answer['workboard_login_allowed'], answer['deny_reason']], [true, null], JSON.stringify(subject));
    }
  });
});
