// The owner-readback service: three routes behind the bearer token, everything else 404, fail
// closed without the token or without the owner, and the evidence read back from what the
// mailbox adapter published.

import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Service } from '../../src/kernel/index.ts';
import { createMailboxService } from '../../src/messaging/mailbox-adapter.ts';
import type { MailboxService } from '../../src/messaging/mailbox-adapter.ts';
import { createOwnerReadbackService } from '../../src/messaging/owner-readback.ts';
import { send } from '../helpers/http.ts';

const TOKEN = 'readback-token-0123456789';
const ROUTES = ['/healthz', '/readyz', '/api/v1/evidence/plan-studio-review-transport'];
const auth = (token = TOKEN) => ({ authorization: `Bearer ${token}` });

describe('owner-readback service', () => {
  let dir: string;
  let adapter: MailboxService;
  let readback: Service;
  let base: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'airlock-readback-'));
    adapter = await createMailboxService({ env: { AIRLOCK_DATA_DIR: dir }, listen: '127.0.0.1:0' });
    await adapter.listen();
    readback = createOwnerReadbackService({ env: { AIRLOCK_DATA_DIR: dir, OWNER_READBACK_API_TOKEN: TOKEN }, listen: '127.0.0.1:0' });
    await readback.listen();
    base = readback.url('owner-readback');
  });
  after(async () => {
    await readback.close();
    await adapter.close();
  });

  for (const path of ROUTES) {
    test(`GET ${path} with the token is 200`, async () => {
      assert.equal((await send(`${base}${path}`, { headers: auth() })).status, 200);
    });
    for (const [what, headers] of [
      ['no Authorization', {}],
      ['a wrong token', auth('wrong-token')],
      ['a token with one more character', auth(`${TOKEN}x`)],
      ['Basic instead of Bearer', { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` }],
    ] as const) {
      test(`GET ${path} with ${what} is 401 and echoes no token`, async () => {
        const res = await send(`${base}${path}`, { headers });
        assert.equal(res.status, 401);
        assert.ok(!res.text.includes(TOKEN));
      });
    }
  }

  for (const path of ['/api/v1/workflows', '/api/v1/validation', '/api/v1/upgrade', '/api/v1/catalog', '/api/v1/status', '/metrics', '/']) {
    test(`GET ${path} is 404, with or without the token`, async () => {
      assert.equal((await send(`${base}${path}`, { headers: auth() })).status, 404);
      assert.equal((await send(`${base}${path}`)).status, 404);
    });
  }

  test('the evidence reads back what the adapter published to the review mailbox, and nothing else', async () => {
    const published = await send(`${adapter.url('mailbox')}/api/v1/mailboxes/plan-studio-review/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'nats-msg-id': 'review-1' },
      body: '{"plan":"p-1"}',
    });
    assert.equal(published.status, 202);
    await send(`${adapter.url('mailbox')}/api/v1/mailboxes/other/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const body = (await send(`${base}/api/v1/evidence/plan-studio-review-transport`, { headers: auth() })).json() as { total: number; read_only: boolean; rows: Record<string, unknown>[] };
    assert.equal(body.read_only, true);
    assert.equal(body.total, 1);
    assert.equal(body.rows[0]!['msg_id'], 'review-1');
    assert.equal(body.rows[0]!['subject'], 'mailbox.plan-studio-review');
    assert.equal(body.rows[0]!['bytes'], 14);
    assert.match(String(body.rows[0]!['row_sha256']), /^[0-9a-f]{64}$/);
  });

  test('bad limit and unknown query parameters are 400', async () => {
    for (const query of ['limit=0', 'limit=501', 'limit=ten', 'limit=-1', 'since=1']) {
      assert.equal((await send(`${base}/api/v1/evidence/plan-studio-review-transport?${query}`, { headers: auth() })).status, 400, query);
    }
  });
});

describe('owner-readback fails closed', () => {
  for (const [what, value] of [['unset', undefined], ['only commas and blanks', ' , '], ['blank', '   ']] as const) {
    test(`OWNER_READBACK_API_TOKEN ${what}: every route is 503 (not configured), whatever bearer is sent`, async () => {
      const env = { AIRLOCK_DATA_DIR: mkdtempSync(join(tmpdir(), 'airlock-rb-')), ...(value !== undefined && { OWNER_READBACK_API_TOKEN: value }) };
      const service = createOwnerReadbackService({ env, listen: '127.0.0.1:0' });
      await service.listen();
      try {
        for (const headers of [auth(), {}, { authorization: 'Bearer  ' }]) {
          for (const path of ROUTES) {
            const res = await send(`${service.url('owner-readback')}${path}`, { headers });
            assert.equal(res.status, 503, path);
            assert.match((res.json() as { detail: string }).detail, /not set/);
          }
        }
      } finally {
        await service.close();
      }
    });
  }

  test('OWNER_READBACK_API_TOKEN with a blank entry beside a token accepts the token only', async () => {
    const service = createOwnerReadbackService({ env: { AIRLOCK_DATA_DIR: mkdtempSync(join(tmpdir(), 'airlock-rb-')), OWNER_READBACK_API_TOKEN: ` , ${TOKEN} ,` }, listen: '127.0.0.1:0' });
    await service.listen();
    try {
      assert.notEqual((await send(`${service.url('owner-readback')}/healthz`, { headers: auth() })).status, 401);
      assert.equal((await send(`${service.url('owner-readback')}/healthz`, { headers: { authorization: 'Bearer x' } })).status, 401);
    } finally {
      await service.close();
    }
  });

  test('without the owner database, /readyz and the evidence are 503; /healthz warns', async () => {
    const service = createOwnerReadbackService({ env: { AIRLOCK_DATA_DIR: mkdtempSync(join(tmpdir(), 'airlock-rb-')), OWNER_READBACK_API_TOKEN: TOKEN }, listen: '127.0.0.1:0' });
    await service.listen();
    try {
      const base = service.url('owner-readback');
      assert.equal((await send(`${base}/readyz`, { headers: auth() })).status, 503);
      assert.equal((await send(`${base}/api/v1/evidence/plan-studio-review-transport`, { headers: auth() })).status, 503);
      const healthz = await send(`${base}/healthz`, { headers: auth() });
      assert.equal((healthz.json() as { status: string }).status, 'warn');
    } finally {
      await service.close();
    }
  });
});
