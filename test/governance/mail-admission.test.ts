import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPublicKey, randomUUID, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { send, sendJson } from '../helpers/http.ts';
import { bearer, startGovernance } from './_service.ts';
import type { RunningGovernance } from './_service.ts';

const JWKS = '/api/v1/identity/mail-admission/jwks';
const ADMISSIONS = '/api/v1/identity/mail-admission/admissions';
const REVOCATIONS = '/api/v1/identity/mail-admission/revocations';

interface Jwk {
  kty: string;
  crv: string;
  x: string;
  kid: string;
  alg: string;
}

/** Verifies a compact JWS with a JWKS, with node:crypto only; returns its claims. */
function verifyJws(token: string, jwks: { keys: Jwk[] }): Record<string, any> {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const { alg, kid } = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg: string; kid: string };
  assert.equal(alg, 'EdDSA');
  const jwk = jwks.keys.find((k) => k.kid === kid);
  assert.ok(jwk, `kid ${kid} is in the JWKS`);
  const key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: 'jwk' });
  assert.equal(verify(null, Buffer.from(`${header}.${payload}`), key, Buffer.from(signature, 'base64url')), true, 'signature verifies');
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, any>;
}

function project(running: RunningGovernance, mailbox: string, administrator: Record<string, unknown> = {}) {
  const body = {
    scope: { tenant_id: 'tenant-a', mailbox },
    administrator: { subject_id: `admin-of-${mailbox}`, kind: 'human', role: 'administrator', active: true, ...administrator },
    observed_at: new Date(Date.now() - 2000).toISOString(),
    source: { system: 'directory', record_ref: 'dir:1' },
  };
  return sendJson(`${running.worker}/api/v1/identity/mail-management/projection`, body, { headers: { ...bearer('mail_producer'), 'idempotency-key': `"${randomUUID()}"` } });
}

test('mail-admission signing: public JWKS (kid = RFC 7638 thumbprint); admissions and revocations are 401 without authentication, 200 with it, verifiable with the JWKS', async () => {
  const running = await startGovernance({ role: 'test' });
  try {
    const jwksResponse = await send(`${running.platform}${JWKS}`);
    assert.equal(jwksResponse.status, 200);
    const jwks = jwksResponse.json() as { keys: Jwk[] };
    assert.equal(jwks.keys.length, 1);
    const [jwk] = jwks.keys as [Jwk];
    assert.deepEqual([jwk.kty, jwk.crv, jwk.alg], ['OKP', 'Ed25519', 'EdDSA']);
    assert.equal(jwk.kid, createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${jwk.x}"}`).digest('base64url'));
    assert.ok(!jwksResponse.text.includes('"d"'), 'no private part');

    for (const path of [ADMISSIONS, REVOCATIONS]) {
      assert.equal((await send(`${running.platform}${path}`)).status, 401, `${path} without a token`);
      assert.equal((await send(`${running.platform}${path}`, { headers: bearer('mail_producer') })).status, 403, `${path} with the producer token`);
      assert.equal((await send(`${running.platform}${path}`, { headers: bearer('mail_consumer') })).status, 200, `${path} with the consumer token`);
    }

    assert.equal((await project(running, 'ops@example.com')).status, 201);
    assert.equal((await project(running, 'desk@example.com')).status, 201);
    const admissions = (await send(`${running.platform}${ADMISSIONS}`, { headers: bearer('mail_consumer') })).json() as { admissions: { jti: string; token: string; scope: Record<string, string> }[] };
    assert.deepEqual(admissions.admissions.map((a) => a.scope['mailbox']), ['desk@example.com', 'ops@example.com']);
    for (const admission of admissions.admissions) {
      const claims = verifyJws(admission.token, jwks);
      assert.deepEqual([claims['iss'], claims['aud'], claims['jti'], claims['sub']], ['urn:airlock:governance', 'urn:airlock:mail-management', admission.jti, `admin-of-${admission.scope['mailbox']}`]);
      assert.equal(claims['exp'] - claims['iat'], 3600);
      assert.deepEqual(claims['scope'], admission.scope);
    }
    const again = await send(`${running.worker}${ADMISSIONS}`, { headers: bearer('mail_consumer') });
    assert.deepEqual((again.json() as typeof admissions).admissions.map((a) => a.token), admissions.admissions.map((a) => a.token), 'signing is deterministic');

    const withdrawn = admissions.admissions.find((a) => a.scope['mailbox'] === 'ops@example.com')!;
    assert.equal((await project(running, 'ops@example.com', { active: false })).status, 200);
    const after = (await send(`${running.platform}${ADMISSIONS}`, { headers: bearer('mail_consumer') })).json() as typeof admissions;
    assert.deepEqual(after.admissions.map((a) => a.scope['mailbox']), ['desk@example.com']);
    const revocations = (await send(`${running.platform}${REVOCATIONS}`, { headers: bearer('mail_consumer') })).json() as { revocations: { jti: string; reasons: string[] }[]; token: string };
    assert.deepEqual(revocations.revocations.map((r) => [r.jti, r.reasons]), [[withdrawn.jti, ['inactive']]]);
    assert.deepEqual(verifyJws(revocations.token, jwks)['revoked'], [withdrawn.jti]);

    // A refreshed projection does not end the admission before it: a withdrawal revokes both.
    const before = (await send(`${running.platform}${ADMISSIONS}`, { headers: bearer('mail_consumer') })).json() as typeof admissions;
    assert.equal((await project(running, 'desk@example.com')).status, 201);
    const refreshed = (await send(`${running.platform}${ADMISSIONS}`, { headers: bearer('mail_consumer') })).json() as typeof admissions;
    assert.notEqual(refreshed.admissions[0]!.jti, before.admissions[0]!.jti);
    assert.equal((await project(running, 'desk@example.com', { kind: 'service' })).status, 200);
    const all = (await send(`${running.platform}${REVOCATIONS}`, { headers: bearer('mail_consumer') })).json() as typeof revocations;
    assert.deepEqual(all.revocations.map((r) => r.jti).sort(), [withdrawn.jti, before.admissions[0]!.jti, refreshed.admissions[0]!.jti].sort());
    assert.deepEqual(((await send(`${running.platform}${ADMISSIONS}`, { headers: bearer('mail_consumer') })).json() as typeof admissions).admissions, []);
  } finally {
    await running.stop();
  }
});

test('mail-admission key: created once at first start in the data directory (mode 0600), reused by the next start, recorded as evidence', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-governance-key-'));
  try {
    const first = await startGovernance({ role: 'platform-api', dataDir });
    const kid = ((await send(`${first.platform}${JWKS}`)).json() as { keys: Jwk[] }).keys[0]!.kid;
    await first.stop();
    const file = join(dataDir, 'governance-mail-admission-key.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(JSON.parse(readFileSync(file, 'utf8')).crv, 'Ed25519');
    const second = await startGovernance({ role: 'platform-api', dataDir });
    try {
      assert.equal(((await send(`${second.platform}${JWKS}`)).json() as { keys: Jwk[] }).keys[0]!.kid, kid, 'the same key after a restart');
      const evidence = (await send(`${second.platform}/api/v1/tools/runtime-evidence`)).json() as { tables: { table: string; rows: number }[] };
      assert.equal(evidence.tables.find((t) => t.table === 'signing_keys')?.rows, 1, 'one row per key, not per start');
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('mail-admission signing fails closed (503 awaiting_transport_owner) when the key store is missing or unsafe', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-governance-keystore-'));
  const loose = join(dir, 'loose.json');
  writeFileSync(loose, '{}', { mode: 0o644 });
  try {
    for (const file of [join(dir, 'absent.json'), loose]) {
      const running = await startGovernance({ role: 'test', env: { GOVERNANCE_MAIL_ADMISSION_KEY_FILE: file } });
      try {
        const jwks = await send(`${running.platform}${JWKS}`);
        assert.equal(jwks.status, 503, file);
        assert.deepEqual([(jwks.json() as { projection_state: string }).projection_state, (jwks.json() as { reason: string }).reason], ['awaiting_transport_owner', 'key_store_missing']);
        assert.equal((await send(`${running.platform}${ADMISSIONS}`)).status, 401, 'authentication still comes first');
        assert.equal((await send(`${running.platform}${ADMISSIONS}`, { headers: bearer('mail_consumer') })).status, 503);
        assert.equal((await send(`${running.platform}${REVOCATIONS}`, { headers: bearer('mail_consumer') })).status, 503);
        assert.ok(running.logs.some((r) => r['msg'] === 'mail-admission key store missing: its routes fail closed (awaiting_transport_owner)'));
      } finally {
        await running.stop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the admission readback serves the materialized mail-admission file as materialize_mail_admission --apply wrote it, signed; nothing or an unusable file admits no sender', async () => {
  const { execFileSync } = await import('node:child_process');
  const { mkdirSync } = await import('node:fs');
  const { runCommand } = await import('../../src/kernel/index.ts');
  const { createMaterializeCommand } = await import('../../scripts/_materialize/command.ts');
  const dir = mkdtempSync(join(tmpdir(), 'airlock-governance-materialized-'));
  const running = await startGovernance({ role: 'test' });
  try {
    const readback = async () => (await send(`${running.platform}${ADMISSIONS}`, { headers: bearer('mail_consumer') })).json() as { materialized: Record<string, any> };
    const before = (await readback()).materialized;
    assert.deepEqual([before['state'], before['count'], before['file']], ['not_materialized', 0, 'mail-admission.json']);

    const repo = join(dir, 'repo');
    mkdirSync(join(repo, 'configs'), { recursive: true });
    const env = { ...process.env, GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@example.org', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.org', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
    const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { env, encoding: 'utf8' }).trim();
    git('init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'configs', 'mail-admission.json'), JSON.stringify({ version: 1, admissions: [{ sender: 'ops@example.org', scopes: ['mail_management.read'] }, { sender: 'example.com', scopes: ['mail_management.read'] }] }));
    git('add', '.');
    git('commit', '-q', '-m', 'admissions');
    const commit = git('rev-parse', 'HEAD');
    const io = { stdout: { write: () => {} }, stderr: { write: () => {} }, env: { AIRLOCK_DATA_DIR: running.dataDir } };
    assert.equal(await runCommand(createMaterializeCommand(), ['--repo', repo, '--target', commit, '--apply'], io), 0);

    const written = readFileSync(join(running.dataDir, 'mail-admission.json'));
    const served = (await readback()).materialized;
    assert.equal(served['state'], 'materialized');
    assert.equal(served['sha256'], createHash('sha256').update(written).digest('hex'), 'the bytes the materializer wrote');
    assert.deepEqual(served['source']['commit'], commit);
    assert.deepEqual(served['admissions'], JSON.parse(written.toString('utf8')).admissions);
    const jwks = (await send(`${running.platform}${JWKS}`)).json() as { keys: Jwk[] };
    const claims = verifyJws(served['token'], jwks);
    assert.deepEqual([claims['materialized_sha256'], claims['admissions']], [served['sha256'], served['admissions']]);

    writeFileSync(join(running.dataDir, 'mail-admission.json'), '{"format":"something-else"}');
    const invalid = (await readback()).materialized;
    assert.deepEqual([invalid['state'], invalid['count'], invalid['admissions']], ['invalid', 0, []]);
    assert.match(invalid['detail'], /"format" is not "airlock\.mail_admission\.v1"/);
  } finally {
    await running.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
