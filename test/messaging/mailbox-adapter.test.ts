// The mailbox adapter over both buses: publish, de-duplication ids, the 413 limit (nothing
// published, the body not read further), mailbox name and id validation, and /healthz.

import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BusMessage } from '../../src/messaging/bus.ts';
import { BUS_MESSAGES, MAILBOX_PUBLICATIONS } from '../../src/messaging/database.ts';
import { createMailboxService } from '../../src/messaging/mailbox-adapter.ts';
import type { MailboxService } from '../../src/messaging/mailbox-adapter.ts';
import { connectNats } from '../../src/kernel/nats/client.ts';
import type { NatsClient, NatsMessage } from '../../src/kernel/nats/client.ts';
import { parseNatsUrls } from '../../src/kernel/nats/url.ts';
import { send } from '../helpers/http.ts';
import { startNatsServer } from '../helpers/nats-server.ts';
import type { RunningNatsServer } from '../helpers/nats-server.ts';
import { until } from '../helpers/until.ts';

/** text/plain unless a test says otherwise: a body sent as JSON must be JSON. */
const post = (base: string, mailbox: string, body: string | Buffer, headers: Record<string, string> = {}) =>
  send(`${base}/api/v1/mailboxes/${mailbox}/messages`, { method: 'POST', headers: { 'content-type': 'text/plain', ...headers }, body });

for (const kind of ['embedded', 'nats'] as const) {
  describe(`mailbox adapter on the ${kind} bus`, () => {
    let nats: RunningNatsServer | undefined;
    let service: MailboxService;
    let base: string;
    const got: BusMessage[] = [];
    const raw: NatsMessage[] = [];
    let rawClient: NatsClient | undefined;
    before(async () => {
      const env: NodeJS.ProcessEnv = { AIRLOCK_DATA_DIR: mkdtempSync(join(tmpdir(), 'airlock-mailbox-')) };
      if (kind === 'nats') {
        nats = await startNatsServer();
        env['NATS_URL'] = nats.url;
      }
      service = await createMailboxService({ env, listen: '127.0.0.1:0' });
      await service.listen();
      base = service.url('mailbox');
      // The adapter's own bus doubles as the subscriber: it sees what any client would.
      service.bus.subscribe('mailbox.>', (m) => got.push(m));
      await service.bus.ready();
      if (nats) {
        rawClient = await connectNats({ servers: parseNatsUrls(nats.url) });
        rawClient.subscribe('mailbox.>', (m) => raw.push(m));
        await rawClient.flush();
      }
    });
    after(async () => {
      await rawClient?.close();
      await service.close();
      await nats?.stop();
    });

    const publications = () => service.store.readRows(MAILBOX_PUBLICATIONS).length;
    /** How often the bus carried `id`, repeats included: a plain NATS subscriber (no de-duplication), or the embedded bus's rows. */
    const sent = (id: string) => (kind === 'nats' ? raw.filter((m) => m.headers['Nats-Msg-Id'] === id).length : service.store.readRows(BUS_MESSAGES).filter((r) => r.msg_id === id).length);
    /** Waits until a marker published after everything so far has arrived, so that late copies would have arrived too. */
    const settleBus = async () => {
      const marker = `settle-${kind}-${Math.random()}`;
      await post(base, 'settle', 'x', { 'nats-msg-id': marker });
      await until(() => got.some((m) => m.headers['Nats-Msg-Id'] === marker) && (kind !== 'nats' || raw.some((m) => m.headers['Nats-Msg-Id'] === marker)));
    };

    test(`${kind}: POST publishes to mailbox.<mailbox> with a Nats-Msg-Id and answers 202 once the bus holds it`, async () => {
      const res = await post(base, 'ops-team', '{"hello":"world"}', { 'content-type': 'application/json' });
      assert.equal(res.status, 202);
      const body = res.json() as { subject: string; msg_id: string; bytes: number; bus: string };
      assert.equal(body.subject, 'mailbox.ops-team');
      assert.equal(body.bus, kind);
      await until(() => got.some((m) => m.headers['Nats-Msg-Id'] === body.msg_id));
      const message = got.find((m) => m.headers['Nats-Msg-Id'] === body.msg_id)!;
      assert.equal(message.subject, 'mailbox.ops-team');
      assert.equal(message.payload.toString(), '{"hello":"world"}');
      assert.equal(message.headers['Content-Type'], 'application/json');
    });

    test(`${kind}: the same Nats-Msg-Id sent twice is delivered once`, async () => {
      const before = got.length;
      for (let i = 0; i < 2; i++) assert.equal((await post(base, 'dedup', 'x', { 'nats-msg-id': `retry-${kind}-1` })).status, 202);
      await post(base, 'dedup', 'end', { 'nats-msg-id': `retry-${kind}-end` });
      await until(() => got.some((m) => m.headers['Nats-Msg-Id'] === `retry-${kind}-end`));
      assert.equal(got.slice(before).filter((m) => m.headers['Nats-Msg-Id'] === `retry-${kind}-1`).length, 1);
    });

    test(`${kind}: a retry with the same Nats-Msg-Id and body is answered from the first record, not published or recorded again`, async () => {
      const first = await post(base, 'dedup', 'x', { 'nats-msg-id': `repeat-${kind}` });
      const rows = publications();
      const sentBefore = sent(`repeat-${kind}`);
      const again = await post(base, 'dedup', 'x', { 'nats-msg-id': `repeat-${kind}` });
      const [a, b] = [first.json(), again.json()] as { evidence_seq: number; sha256: string; repeat_of_seq?: number }[];
      assert.equal(a!.repeat_of_seq, undefined);
      assert.equal(again.status, 202);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual([b!.evidence_seq, b!.repeat_of_seq, b!.sha256], [a!.evidence_seq, a!.evidence_seq, a!.sha256]);
      assert.equal(publications(), rows);
      await settleBus();
      assert.equal(sent(`repeat-${kind}`), sentBefore);
    });

    test(`${kind}: concurrent requests with one new Nats-Msg-Id publish it once; the others are answered from its record`, async () => {
      const rows = publications();
      const answers = await Promise.all(Array.from({ length: 5 }, () => post(base, 'dedup', 'same', { 'nats-msg-id': `concurrent-${kind}` })));
      assert.deepEqual(answers.map((r) => r.status), [202, 202, 202, 202, 202]);
      assert.equal(new Set(answers.map((r) => (r.json() as { evidence_seq: number }).evidence_seq)).size, 1);
      assert.equal(publications(), rows + 1);
      await settleBus();
      assert.equal(sent(`concurrent-${kind}`), 1);
    });

    test(`${kind}: a Nats-Msg-Id reused with another body is 422, and nothing is published or recorded`, async () => {
      assert.equal((await post(base, 'dedup', '{"v":1}', { 'nats-msg-id': `reused-${kind}` })).status, 202);
      const rows = publications();
      const reused = await post(base, 'dedup', '{"v":2}', { 'nats-msg-id': `reused-${kind}` });
      assert.equal(reused.status, 422, reused.text);
      assert.match(String(reused.headers['content-type']), /problem\+json/);
      assert.match((reused.json() as { detail: string }).detail, /reused-.*another|with a body of SHA-256/);
      assert.equal(publications(), rows);
      await settleBus();
      assert.equal(sent(`reused-${kind}`), 1);
    });

    test(`${kind}: a Nats-Msg-Id already published to one mailbox is 422 on another, and nothing is published or recorded`, async () => {
      // JetStream's stream MAILBOX and the embedded bus de-duplicate by the id alone, over every
      // mailbox subject: the bus would drop the second message while the adapter answered 202.
      assert.equal((await post(base, 'first-box', '{"v":1}', { 'nats-msg-id': `across-${kind}` })).status, 202);
      const rows = publications();
      for (const body of ['{"v":1}', '{"v":2}']) {
        const reused = await post(base, 'second-box', body, { 'nats-msg-id': `across-${kind}` });
        assert.equal(reused.status, 422, reused.text);
        assert.match((reused.json() as { detail: string }).detail, /mailbox "first-box"/);
      }
      assert.equal(publications(), rows);
      await settleBus();
      assert.equal(sent(`across-${kind}`), 1);
    });

    test(`${kind}: exactly 131072 bytes pass; 131073 bytes are 413 and nothing is published or recorded`, async () => {
      const ok = await post(base, 'big', Buffer.alloc(131_072, 0x61), { 'content-type': 'text/plain' });
      assert.equal(ok.status, 202);
      const rows = publications();
      const count = got.length;
      await until(() => got.length === count); // settle
      const tooBig = await post(base, 'big', Buffer.alloc(131_073, 0x61), { 'content-type': 'text/plain', 'nats-msg-id': 'too-big' });
      assert.equal(tooBig.status, 413);
      assert.match(String(tooBig.headers['content-type']), /problem\+json/);
      await post(base, 'big', 'marker', { 'nats-msg-id': `marker-${kind}` });
      await until(() => got.some((m) => m.headers['Nats-Msg-Id'] === `marker-${kind}`));
      assert.equal(got.some((m) => m.headers['Nats-Msg-Id'] === 'too-big'), false);
      assert.equal(publications(), rows + 1);
    });

    test(`${kind}: an announced oversized body is refused before it is sent whole (read no further)`, async () => {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(`${base}/api/v1/mailboxes/big/messages`, { method: 'POST', headers: { 'content-type': 'text/plain', 'content-length': 10_000_000 }, agent: false }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
          req.destroy();
        });
        req.on('error', reject);
        req.write(Buffer.alloc(1024));
        // The rest is never sent: the 413 must come anyway.
      });
      assert.equal(status, 413);
    });

    test(`${kind}: a streamed (chunked) body over the limit is 413`, async () => {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(`${base}/api/v1/mailboxes/big/messages`, { method: 'POST', headers: { 'content-type': 'text/plain' }, agent: false }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
          req.destroy();
        });
        req.on('error', () => undefined);
        for (let i = 0; i < 20; i++) req.write(Buffer.alloc(8192));
        req.end();
        void reject;
      });
      assert.equal(status, 413);
    });

    const badNames: [string, string][] = [
      ['a.b', 'a dot'],
      ['%2A', 'a * wildcard'],
      ['%3E', 'a > wildcard'],
      ['a%20b', 'a space'],
      ['x'.repeat(65), '65 characters'],
      ['caf%C3%A9', 'a non-ASCII letter'],
    ];
    for (const [name, what] of badNames) {
      test(`${kind}: a mailbox name with ${what} is 400 and nothing is published`, async () => {
        const rows = publications();
        const res = await post(base, name, '{}');
        assert.equal(res.status, 400, res.text);
        assert.equal(publications(), rows);
      });
    }

    test(`${kind}: a body sent as JSON that is not JSON is 400 and nothing is published or recorded; as text/plain it passes`, async () => {
      const rows = publications();
      const cases: [string, string | Buffer][] = [['application/json', '{"a":'], ['application/json', ''], ['application/json; charset=utf-8', 'not json'], ['application/cloudevents+json', '{"id":1,"id":2}'], ['application/json', Buffer.from([0x22, 0xff, 0x22])]];
      for (const [i, [type, body]] of cases.entries()) {
        const res = await post(base, 'json-check', body, { 'content-type': type, 'nats-msg-id': `not-json-${kind}-${i}` });
        assert.equal(res.status, 400, `${type} ${String(body)}: ${res.text}`);
        assert.match(String(res.headers['content-type']), /problem\+json/);
      }
      assert.equal(publications(), rows);
      await settleBus();
      for (let i = 0; i < cases.length; i++) assert.equal(sent(`not-json-${kind}-${i}`), 0);
      assert.equal((await post(base, 'json-check', '{"a":', { 'content-type': 'text/plain' })).status, 202);
    });

    test(`${kind}: a malformed Nats-Msg-Id is 400; a wrong Content-Type is 415`, async () => {
      assert.equal((await post(base, 'ok', '{}', { 'nats-msg-id': 'has space' })).status, 400);
      assert.equal((await post(base, 'ok', '{}', { 'nats-msg-id': 'x'.repeat(129) })).status, 400);
      assert.equal((await post(base, 'ok', '<a/>', { 'content-type': 'application/xml' })).status, 415);
    });

    test(`${kind}: GET /healthz names the bus and says connected`, async () => {
      const res = await send(`${base}/healthz`);
      assert.equal(res.status, 200);
      assert.match(String(res.headers['content-type']), /health\+json/);
      const body = res.json() as { status: string; bus: { kind: string; connected: boolean } };
      assert.equal(body.status, 'pass');
      assert.deepEqual([body.bus.kind, body.bus.connected], [kind, true]);
    });

    if (kind === 'nats') {
      test('nats: /healthz is 503 fail while the server is down, pass again after it is back', async () => {
        await nats!.stop();
        await until(() => !service.bus.health().connected);
        const down = await send(`${base}/healthz`);
        assert.equal(down.status, 503);
        assert.equal((down.json() as { bus: { connected: boolean } }).bus.connected, false);
        await nats!.start();
        await until(() => service.bus.health().connected, 10_000);
        assert.equal((await send(`${base}/healthz`)).status, 200);
      });
    }
  });
}
