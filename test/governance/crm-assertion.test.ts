import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { send } from '../helpers/http.ts';
import { startGovernance } from './_service.ts';
import type { RunningGovernance } from './_service.ts';
import { rootEnv, startCrmDouble, tempRoot } from './_fixtures.ts';
import type { CrmDouble, TempRoot } from './_fixtures.ts';

const NOW_MS = Date.parse('2026-05-01T12:00:00Z');
const NOW = NOW_MS / 1000;
const ROUTE = '/api/v1/acp/assertions/context-capability';

let root: TempRoot;
let crm: CrmDouble;
let running: RunningGovernance;
let unconfigured: RunningGovernance;

function context(overrides: Record<string, string | null> = {}): string {
  const base: Record<string, string | null> = { tenant_id: 'tenant-a', company_id: 'company-1', environment: 'staging', adapter_instance_id: 'crm-adapter-1', context_observed_at: String(NOW - 10), ...overrides };
  return new URLSearchParams(Object.entries(base).filter((e): e is [string, string] => e[1] !== null)).toString();
}

function freshAnswer(url: URL, extra: Record<string, unknown> = {}) {
  return {
    status: 200,
    body: {
      tool_name: decodeURIComponent(url.pathname.split('/').at(-1) ?? ''),
      ...Object.fromEntries(['tenant_id', 'company_id', 'environment', 'adapter_instance_id'].map((f) => [f, url.searchParams.get(f)])),
      admitted: true,
      observed_at: new Date(NOW_MS - 5_000).toISOString(),
      ...extra,
    },
  };
}

before(async () => {
  root = tempRoot();
  crm = await startCrmDouble();
  const env = { ...rootEnv(root.root), GOVERNANCE_CRM_KNOWN_COMPANIES: 'tenant-a/company-1,tenant-b/company-9', GOVERNANCE_CRM_TIMEOUT_MS: '300' };
  running = await startGovernance({ role: 'platform-api', env: { ...env, GOVERNANCE_CRM_UPSTREAM_URL: crm.url }, service: { now: () => NOW_MS } });
  unconfigured = await startGovernance({ role: 'platform-api', env, service: { now: () => NOW_MS } });
});
after(async () => {
  await running.stop();
  await unconfigured.stop();
  await crm.close();
  root.cleanup();
});
beforeEach(() => {
  crm.requests.length = 0;
  crm.answer = (url) => freshAnswer(url);
});

async function ask(tool: string, query: string, base = running.platform) {
  const response = await send(`${base}${ROUTE}/${tool}?${query}`);
  return { status: response.status, body: response.json() as Record<string, unknown> };
}

test('context-capability: an admitted company of an assertable tool with a fresh context reaches the upstream once and is admitted', async () => {
  const { status, body } = await ask('crm_account_context_read', context());
  assert.equal(status, 200);
  assert.equal(body['decision'], 'admitted');
  assert.equal(body['company_id'], 'company-1');
  assert.equal(crm.requests.length, 1);
  const asked = crm.requests[0]!;
  assert.equal(asked.pathname, '/context-capability/crm_account_context_read');
  assert.deepEqual(Object.fromEntries(asked.searchParams), { tenant_id: 'tenant-a', company_id: 'company-1', environment: 'staging', adapter_instance_id: 'crm-adapter-1' });
});

// Every case is refused before the upstream: the double must see no request at all.
const BEFORE_UPSTREAM: [string, string, string, number, string][] = [
  ['an unknown company', 'crm_account_context_read', context({ company_id: 'company-2' }), 403, 'unknown_company'],
  ['a known company under another tenant', 'crm_account_context_read', context({ tenant_id: 'tenant-b' }), 403, 'unknown_company'],
  ['a missing tenant_id', 'crm_account_context_read', context({ tenant_id: null }), 422, 'invalid_context'],
  ['a missing adapter_instance_id', 'crm_account_context_read', context({ adapter_instance_id: null }), 422, 'invalid_context'],
  ['a missing context_observed_at', 'crm_account_context_read', context({ context_observed_at: null }), 422, 'invalid_context'],
  ['an unlisted environment', 'crm_account_context_read', context({ environment: 'prod' }), 422, 'invalid_context'],
  ['a malformed identifier', 'crm_account_context_read', context({ company_id: 'company 1' }), 422, 'invalid_context'],
  ['a repeated identifier', 'crm_account_context_read', `${context()}&company_id=company-1`, 422, 'invalid_context'],
  ['a context observed 301 s ago', 'crm_account_context_read', context({ context_observed_at: String(NOW - 301) }), 422, 'stale_context'],
  ['a context observed 31 s ahead', 'crm_account_context_read', context({ context_observed_at: String(NOW + 31) }), 422, 'stale_context'],
  ['a tool missing from the registry', 'crm_secret_read', context(), 404, 'unknown_tool'],
  ['a registered tool that admits no assertion', 'governance_contract_read', context(), 403, 'tool_not_assertable'],
];

for (const [name, tool, query, status, reason] of BEFORE_UPSTREAM) {
  test(`context-capability denies ${name} (${status} ${reason}) without contacting the upstream`, async () => {
    const response = await ask(tool, query);
    assert.equal(response.status, status);
    assert.equal(response.body['reason'], reason);
    assert.equal(response.body['decision'], 'denied');
    assert.equal(response.body['upstream_contacted'], false);
    assert.equal(crm.requests.length, 0, 'the upstream was never contacted');
  });
}

test('context-capability at the freshness limits: 300 s old and 30 s ahead are still fresh', async () => {
  for (const observed of [NOW - 300, NOW + 30]) {
    assert.equal((await ask('crm_contact_context_read', context({ context_observed_at: String(observed) }))).status, 200, String(observed));
  }
});

// The upstream was asked, but its answer cannot be believed or says no.
const UPSTREAM: [string, (url: URL) => { status: number; body: unknown }, number, string][] = [
  ['denies', (url) => freshAnswer(url, { admitted: false }), 403, 'upstream_denied'],
  ['answers with an observation 301 s old', (url) => freshAnswer(url, { observed_at: new Date(NOW_MS - 301_000).toISOString() }), 503, 'upstream_stale'],
  ['answers for another company', (url) => freshAnswer(url, { company_id: 'company-7' }), 503, 'upstream_mismatch'],
  ['answers for another tool', (url) => freshAnswer(url, { tool_name: 'crm_contact_context_read' }), 503, 'upstream_mismatch'],
  ['answers without admitted', (url) => freshAnswer(url, { admitted: 'yes' }), 503, 'upstream_invalid'],
  ['answers 500', () => ({ status: 500, body: { error: 'boom' } }), 503, 'upstream_unavailable'],
  ['answers text', () => ({ status: 200, body: 'not json' }), 503, 'upstream_invalid'],
];

for (const [name, answer, status, reason] of UPSTREAM) {
  test(`context-capability fails closed or denies when the upstream ${name} (${status} ${reason})`, async () => {
    crm.answer = answer;
    const response = await ask('crm_account_context_read', context());
    assert.equal(response.status, status);
    assert.equal(response.body['reason'], reason);
    assert.equal(response.body['decision'], 'denied');
    assert.equal(crm.requests.length, 1);
    if (status === 503) assert.equal(response.body['projection_state'], 'awaiting_transport_owner');
  });
}

test('context-capability fails closed (awaiting_transport_owner) when no upstream is configured or it is unreachable', async () => {
  const none = await ask('crm_account_context_read', context(), unconfigured.platform);
  assert.deepEqual([none.status, none.body['reason'], none.body['projection_state']], [503, 'upstream_not_configured', 'awaiting_transport_owner']);
  assert.equal(crm.requests.length, 0);
  const unknownCompany = await ask('crm_account_context_read', context({ company_id: 'company-2' }), unconfigured.platform);
  assert.equal(unknownCompany.status, 403, 'an unknown company is denied even without an upstream');

  const hangs = await startGovernance({ role: 'platform-api', env: { ...rootEnv(root.root), GOVERNANCE_CRM_KNOWN_COMPANIES: 'tenant-a/company-1', GOVERNANCE_CRM_UPSTREAM_URL: 'http://127.0.0.1:9' }, service: { now: () => NOW_MS } });
  try {
    const down = await ask('crm_account_context_read', context(), hangs.platform);
    assert.deepEqual([down.status, down.body['reason']], [503, 'upstream_unreachable']);
  } finally {
    await hangs.stop();
  }
});

const OWNER_READINESS = ['/api/v1/security/readiness', '/api/v1/production-readiness/universal-work-security-ops'];

/** The crm_assertion check of a readiness answer. */
async function crmCheck(url: string): Promise<{ status: number; ready: boolean; output: string }> {
  const response = await send(url);
  const body = response.json() as { ready: boolean; checks: Record<string, { status: string; output?: string }[]> };
  return { status: response.status, ready: body.ready, output: body.checks['crm_assertion']?.[0]?.output ?? '' };
}

test('security readiness asks the CRM owner: ready while it answers, 503 while it answers 5xx, is unreachable or overruns the time limit', async () => {
  for (const path of OWNER_READINESS) {
    assert.equal((await crmCheck(`${running.platform}${path}`)).status, 200, path);
    assert.equal(crm.requests.at(-1)?.pathname, '/context-capability/crm_account_context_read', 'readiness asked the owner');
  }
  crm.answer = () => ({ status: 502, body: { error: 'bad gateway' } });
  for (const path of OWNER_READINESS) {
    const broken = await crmCheck(`${running.platform}${path}`);
    assert.deepEqual([broken.status, broken.ready], [503, false], path);
    assert.match(broken.output, /the CRM owner at "http:\/\/127\.0\.0\.1:\d+" answers 502/);
  }

  const silent = createServer(() => {}); // accepts, never answers
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  const owners = [['http://127.0.0.1:9', /is unreachable/], [silentUrl, /gave no answer within 300 ms/]] as const;
  try {
    for (const [url, reason] of owners) {
      const other = await startGovernance({ role: 'platform-api', env: { ...rootEnv(root.root), GOVERNANCE_CRM_KNOWN_COMPANIES: 'tenant-a/company-1', GOVERNANCE_CRM_TIMEOUT_MS: '300', GOVERNANCE_CRM_UPSTREAM_URL: url }, service: { now: () => NOW_MS } });
      try {
        for (const path of OWNER_READINESS) {
          const down = await crmCheck(`${other.platform}${path}`);
          assert.deepEqual([down.status, down.ready], [503, false], `${url} ${path}`);
          assert.match(down.output, reason);
        }
      } finally {
        await other.stop();
      }
    }
  } finally {
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
  }
});
