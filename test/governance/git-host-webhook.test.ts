import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { send } from '../helpers/http.ts';
import type { TestResponse } from '../helpers/http.ts';
import { AUTH, evidenceRows, GIT_HOST_SECRET, startGovernance } from './_service.ts';
import type { RunningGovernance } from './_service.ts';

const PATH = '/api/v1/integrations/git-host/webhook';
let running: RunningGovernance;

before(async () => {
  running = await startGovernance({ role: 'test', env: { GOVERNANCE_GIT_HOST_WEBHOOK_SECRET: `${GIT_HOST_SECRET},old-secret` } });
});

after(() => running.stop());

const push = (after = 'a'.repeat(40)) => JSON.stringify({ ref: 'refs/heads/main', before: '0'.repeat(40), after, repository: { full_name: 'acme/airlock' }, sender: { login: 'dev' }, commits: [] });
const sign = (body: string, secret = GIT_HOST_SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

function deliver(body: string, headers: Record<string, string | undefined> = {}): Promise<TestResponse> {
  return send(`${running.worker}${PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': randomUUID(), 'x-hub-signature-256': sign(body), ...headers },
    body,
  });
}

/** Rows of the idempotency table, read beside the service. */
function idempotencyRows(): number {
  const sqlite = new DatabaseSync(join(running.dataDir, 'governance.sqlite'), { readOnly: true });
  try {
    return Number(sqlite.prepare('SELECT count(*) AS n FROM _idempotency_keys').get()?.['n']);
  } finally {
    sqlite.close();
  }
}

test('git-host webhook: a signed delivery passes the worker gate without a token and is recorded once (202)', async () => {
  const before = await evidenceRows(running);
  const response = await deliver(push());
  assert.equal(response.status, 202, response.text);
  const body = response.json() as { accepted: boolean; event: string; repository: string; evidence: { table: string } };
  assert.deepEqual([body.accepted, body.event, body.repository, body.evidence.table], [true, 'push', 'acme/airlock', 'git_host_deliveries']);
  assert.equal((await evidenceRows(running))['git_host_deliveries'], (before['git_host_deliveries'] ?? 0) + 1);
  const rotated = push('b'.repeat(40));
  assert.equal((await deliver(rotated, { 'x-hub-signature-256': sign(rotated, 'old-secret') })).status, 202, 'any configured secret verifies');
  const gitea = push('c'.repeat(40));
  assert.equal((await deliver(gitea, { 'x-github-event': undefined, 'x-github-delivery': undefined, 'x-gitea-event': 'push', 'x-gitea-delivery': randomUUID() })).status, 202, 'Gitea headers');
});

test('git-host webhook: a redelivery (same delivery id) answers the original response and records nothing new', async () => {
  const body = push('d'.repeat(40));
  const id = randomUUID();
  const first = await deliver(body, { 'x-github-delivery': id });
  const rows = (await evidenceRows(running))['git_host_deliveries'];
  const again = await deliver(body, { 'x-github-delivery': id });
  assert.deepEqual([again.status, again.headers['idempotent-replayed'], again.text], [202, 'true', first.text]);
  assert.equal((await evidenceRows(running))['git_host_deliveries'], rows);
  const other = push('e'.repeat(40));
  assert.equal((await deliver(other, { 'x-github-delivery': id, 'x-hub-signature-256': sign(other) })).status, 422, 'the same delivery id with other bytes');
});

test('git-host webhook: the same signed bytes under a new delivery id are a replay: the original answer, nothing recorded (issue 12)', async () => {
  const body = push('9'.repeat(40));
  const first = await deliver(body);
  assert.equal(first.status, 202, first.text);
  const rows = (await evidenceRows(running))['git_host_deliveries'] ?? 0;
  for (const headers of [{}, { 'x-github-event': undefined, 'x-github-delivery': undefined, 'x-gitea-event': 'push', 'x-gitea-delivery': randomUUID() }]) {
    const captured = await deliver(body, headers);
    assert.deepEqual([captured.status, captured.headers['idempotent-replayed'], captured.text], [202, 'true', first.text]);
  }
  assert.equal((await evidenceRows(running))['git_host_deliveries'], rows, 'no second effect');
  // Other bytes are a new delivery as before.
  assert.equal((await deliver(push('8'.repeat(40)))).status, 202);
  assert.equal((await evidenceRows(running))['git_host_deliveries'], rows + 1);
});

test('git-host webhook: a bad signature is the same 401 as a missing token, byte for byte, and stores nothing', async () => {
  const body = push('f'.repeat(40));
  const beforeRows = await evidenceRows(running);
  const beforeKeys = idempotencyRows();
  const missingToken = await send(`${running.worker}/api/v1/contracts/registry`);
  const refusals: [string, Record<string, string | undefined>, string?][] = [
    ['a wrong secret', { 'x-hub-signature-256': sign(body, 'not-the-secret') }],
    ['a signature of other bytes', { 'x-hub-signature-256': sign(push()) }],
    ['no signature', { 'x-hub-signature-256': undefined }],
    ['a malformed signature', { 'x-hub-signature-256': 'sha1=abc' }],
    ['a signature and an idempotency key', { 'x-hub-signature-256': sign(body, 'nope'), 'idempotency-key': '"k1"' }],
    ['the operator token but no signature', { 'x-hub-signature-256': undefined, authorization: AUTH.authorization }],
  ];
  for (const [name, headers] of refusals) {
    const response = await deliver(body, headers);
    assert.equal(response.status, 401, name);
    assert.equal(response.text, missingToken.text, `${name}: the same body`);
    assert.equal(response.headers['www-authenticate'], missingToken.headers['www-authenticate'], `${name}: the same challenge`);
    assert.equal(response.headers['content-type'], missingToken.headers['content-type']);
  }
  assert.deepEqual(await evidenceRows(running), beforeRows, 'no evidence row');
  assert.equal(idempotencyRows(), beforeKeys, 'no idempotency key');
  assert.ok(running.logs.some((r) => r['msg'] === 'git-host signature refused' && r['reason'] === 'no_matching_signature'), 'the machine reason is logged');
  assert.ok(!JSON.stringify(running.logs).includes(GIT_HOST_SECRET), 'the secret is never logged');
});

test('git-host webhook: the gate admits only a POST to the webhook path with a well-formed signature', async () => {
  const body = push();
  for (const [method, path] of [['GET', PATH], ['POST', '/api/v1/contracts/compatibility/check'], ['POST', `${PATH}/extra`]] as const) {
    const response = await send(`${running.worker}${path}`, { method, headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(body) }, body: method === 'GET' ? undefined : body });
    assert.equal(response.status, 401, `${method} ${path}`);
  }
  assert.equal((await send(`${running.platform}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(body) }, body })).status, 404, 'no intake on the platform listener');
});

test('git-host webhook: signed but bad input is refused after the signature: schema (422), JSON (400), headers (400); another content type gets the gate\'s 401', async () => {
  const cases: [string, string, Record<string, string | undefined>, number][] = [
    ['a JSON array', '[1,2]', {}, 422],
    ['a bad commit id', JSON.stringify({ after: 'not-a-sha', repository: { full_name: 'acme/airlock' } }), {}, 422],
    ['a repository without a name', JSON.stringify({ repository: {} }), {}, 422],
    ['broken JSON', '{"ref":', {}, 400],
    ['JSON nested 65 deep', `${'['.repeat(65)}${']'.repeat(65)}`, {}, 400],
    ['no delivery id', push(), { 'x-github-delivery': undefined }, 400],
    ['a malformed delivery id', push(), { 'x-github-delivery': 'has space' }, 400],
    ['two different delivery ids', push(), { 'x-gitea-delivery': 'another-id' }, 400],
    ['no event', push(), { 'x-github-event': undefined }, 400],
    ['a form body', 'payload=x', { 'content-type': 'application/x-www-form-urlencoded' }, 401],
    ['a repeated member name', '{"ref":"a","ref":"b"}', {}, 400],
    ['a lone surrogate escape', '{"ref":"refs/heads/\\ud800"}', {}, 400],
  ];
  for (const [name, body, headers, status] of cases) {
    const response = await deliver(body, { 'x-hub-signature-256': sign(body), ...headers });
    assert.equal(response.status, status, `${name}: ${response.text}`);
  }
});
