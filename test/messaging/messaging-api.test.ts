// The messaging API: health and status (bus, adapter, observers, recovery), no /readyz or
// /metrics, and configuration outside the seed's bounds refused.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createMailboxService } from '../../src/messaging/mailbox-adapter.ts';
import type { MailboxService } from '../../src/messaging/mailbox-adapter.ts';
import { createMessagingApi } from '../../src/messaging/messaging-api.ts';
import type { MessagingApi } from '../../src/messaging/messaging-api.ts';
import { LANE_EVENTS } from '../../src/messaging/database.ts';
import { publishCommand } from '../../scripts/_shuttle/publish.ts';
import { send } from '../helpers/http.ts';
import { runCaptured } from '../helpers/run-command.ts';
import { until } from '../helpers/until.ts';
import { startNatsServer } from '../helpers/nats-server.ts';
import { startEndlessServer } from '../helpers/endless-server.ts';

const MANUAL_TIMERS = { setTimeout: () => 0, clearTimeout: () => undefined, now: () => Date.parse('2026-11-24T12:00:00Z') };

describe('messaging API', () => {
  let dir: string;
  let adapter: MailboxService;
  let api: MessagingApi;
  let base: string;
  let logPath: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'airlock-msg-api-'));
    logPath = join(dir, 'gateway-a.log');
    writeFileSync(logPath, ['{"time":"2026-11-24T11:59:00Z","msg":"recent"}', '{"time":"2026-11-20T00:00:00Z","msg":"old"}', 'plain line'].join('\n') + '\n');
    const observers = join(dir, 'observers.json');
    writeFileSync(observers, JSON.stringify([{ target: 'gateway-a', log_path: logPath, max_lines: 300 }]));
    adapter = await createMailboxService({ env: { AIRLOCK_DATA_DIR: dir }, listen: '127.0.0.1:0' });
    await adapter.listen();
    api = await createMessagingApi({
      env: { AIRLOCK_DATA_DIR: dir, MESSAGING_MAILBOX_URL: adapter.url('mailbox'), MESSAGING_OBSERVERS_FILE: observers },
      listen: '127.0.0.1:0',
      timers: MANUAL_TIMERS,
      random: () => 0.5,
    });
    await api.listen();
    base = api.url();
  });
  after(async () => {
    await api.close();
    await adapter.close();
  });

  test('GET /api/v1/health is health+json naming the bus and the adapter', async () => {
    const res = await send(`${base}/api/v1/health`);
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /health\+json/);
    const body = res.json() as { status: string; checks: Record<string, { status: string }[]> };
    assert.equal(body.status, 'pass');
    assert.equal(body.checks['bus:embedded']![0]!.status, 'pass');
    assert.equal(body.checks['mailbox-adapter']![0]!.status, 'pass');
  });

  test('GET /api/v1/status shows bus, adapter, observers and recovery with the seed defaults', async () => {
    await api.lanes.runOnce();
    const body = (await send(`${base}/api/v1/status`)).json() as Record<string, any>;
    assert.equal(body['bus'].kind, 'embedded');
    assert.equal(body['mailbox_adapter'].reachable, true);
    const [observer] = body['observers'];
    assert.deepEqual([observer.target, observer.interval_seconds, observer.idle_interval_seconds, observer.max_lines, observer.polls], ['gateway-a', 45, 120, 300, 1]);
    // The old line is outside the 900 s window; the plain line has no time and is kept.
    assert.equal(observer.last_lines, 2);
    assert.deepEqual([body['recovery'].interval_seconds, body['recovery'].max_backoff_seconds, body['recovery'].jitter_seconds], [45, 300, 3]);
    assert.equal(body['recovery'].parts.bus.up, true);
    assert.equal(body['recovery'].parts.bus.consecutive_failures, 0);
    assert.deepEqual([body['ready'], body['not_ready']], [true, []]);
    assert.deepEqual([observer.active, observer.lease_holder], [true, `${hostname()}:${process.pid}:${observer.lease_holder.split(':')[2]}`]);
  });

  test('GET /api/v1/status names every field in snake_case, nested ones too', async () => {
    const body = (await send(`${base}/api/v1/status`)).json();
    const keys: string[] = [];
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (typeof value === 'object' && value !== null) for (const [key, inner] of Object.entries(value)) (keys.push(key), walk(inner));
    };
    walk(body);
    assert.ok(keys.includes('consecutive_failures'));
    assert.deepEqual(keys.filter((k) => !/^[a-z0-9_]+$/.test(k)), []);
  });

  test('a second poll of an unchanged log is idle and the next poll waits the idle interval', async () => {
    await api.lanes.runOnce();
    const [observer] = api.lanes.observers();
    assert.equal(observer!.idle, true);
    assert.equal(observer!.next_poll_in_seconds, 120);
  });

  test('GET /api/v1/status is not ready while the mailbox adapter is down, and says which part', async () => {
    const dead = await createMessagingApi({ env: { AIRLOCK_DATA_DIR: dir, MESSAGING_MAILBOX_URL: 'http://127.0.0.1:1' }, listen: '127.0.0.1:0', timers: MANUAL_TIMERS });
    await dead.listen();
    try {
      const body = (await send(`${dead.url()}/api/v1/status`)).json() as Record<string, any>;
      assert.equal(body['bus'].connected, true);
      assert.equal(body['mailbox_adapter'].reachable, false);
      assert.deepEqual([body['ready'], body['not_ready']], [false, ['mailbox_adapter']]);
    } finally {
      await dead.close();
    }
  });

  test('GET /api/v1/status takes the adapter probe\'s status line and does not read its body (an endless one held it for the 3 s limit)', async (t) => {
    const flood = await startEndlessServer('application/health+json');
    t.after(flood.close);
    const api2 = await createMessagingApi({ env: { AIRLOCK_DATA_DIR: dir, MESSAGING_MAILBOX_URL: flood.url }, listen: '127.0.0.1:0', timers: MANUAL_TIMERS });
    await api2.listen();
    t.after(() => api2.close());
    const started = Date.now();
    const body = (await send(`${api2.url()}/api/v1/status`)).json() as Record<string, any>;
    assert.equal(body['mailbox_adapter'].reachable, true);
    assert.ok(Date.now() - started < 1500, `took ${Date.now() - started} ms`);
  });

  test('a second messaging API on the same database does not observe a target the first one observes; it takes over once the first stops', async () => {
    const rows = () => api.store.readRows(LANE_EVENTS).filter((r) => r.kind === 'observer_poll').length;
    const second = await createMessagingApi({
      env: { AIRLOCK_DATA_DIR: dir, MESSAGING_MAILBOX_URL: adapter.url('mailbox'), MESSAGING_OBSERVERS_FILE: join(dir, 'observers.json') },
      listen: '127.0.0.1:0',
      timers: MANUAL_TIMERS,
    });
    try {
      await api.lanes.runOnce();
      const before = rows();
      await second.lanes.runOnce();
      assert.equal(rows(), before, 'the standby polled');
      const [standby] = second.lanes.observers();
      assert.deepEqual([standby!.active, standby!.lease_holder], [false, api.lanes.observers()[0]!.lease_holder]);
      await api.lanes.stop();
      await second.lanes.runOnce();
      assert.equal(rows(), before + 1);
      assert.equal(second.lanes.observers()[0]!.active, true);
    } finally {
      await second.close();
    }
  });

  for (const path of ['/readyz', '/metrics', '/api/v1/readyz', '/api/v1/metrics']) {
    test(`GET ${path} is 404 on the API (the seed: it does not exist)`, async () => {
      assert.equal((await send(`${base}${path}`)).status, 404);
    });
  }
});

describe('messaging API configuration bounds', () => {
  const cases: [string, Record<string, string>, RegExp][] = [
    ['an observer interval below the 30 s floor', { MESSAGING_OBSERVER_INTERVAL_SECONDS: '29' }, /below the minimum 30/],
    ['an observer interval above 120 s', { MESSAGING_OBSERVER_INTERVAL_SECONDS: '121' }, /above the maximum 120/],
    ['an idle interval below the poll interval', { MESSAGING_OBSERVER_INTERVAL_SECONDS: '60', MESSAGING_OBSERVER_IDLE_INTERVAL_SECONDS: '45' }, /below the poll interval/],
    ['more than 300 lines per poll', { MESSAGING_OBSERVER_MAX_LINES: '301' }, /above the maximum 300/],
    ['a recovery interval below 30 s', { MESSAGING_RECOVERY_INTERVAL_SECONDS: '10' }, /below the minimum 30/],
    ['a recovery backoff above 300 s', { MESSAGING_RECOVERY_MAX_BACKOFF_SECONDS: '301' }, /above the maximum 300/],
    ['recovery jitter above 3 s', { MESSAGING_RECOVERY_JITTER_SECONDS: '4' }, /above the maximum 3/],
    ['a non-number', { MESSAGING_OBSERVER_INTERVAL_SECONDS: 'soon' }, /not a whole number/],
    // The open /api/v1/status and /api/v1/health name this URL: its credentials would be shown there.
    ['credentials in MESSAGING_MAILBOX_URL', { MESSAGING_MAILBOX_URL: 'http://ops:pw-SECRET-1@127.0.0.1:18041' }, /^(?![\s\S]*pw-SECRET-1)[\s\S]*MESSAGING_MAILBOX_URL: credentials/],
  ];
  for (const [what, env, reason] of cases) {
    test(`createMessagingApi() refuses ${what}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'airlock-msg-cfg-'));
      await assert.rejects(createMessagingApi({ env: { AIRLOCK_DATA_DIR: dir, ...env }, listen: '127.0.0.1:0' }), (error: any) => {
        assert.equal(error.code, 'config_invalid');
        assert.match([error.message, ...error.details].join('\n'), reason);
        return true;
      });
    });
  }

  const observerCases: [string, unknown, RegExp][] = [
    ['a second observer for the same gateway target', [{ target: 'gw', log_path: '/tmp/a' }, { target: 'gw', log_path: '/tmp/b' }], /already active: one per target/],
    ['an observer interval of 10 s', [{ target: 'gw', log_path: '/tmp/a', interval_seconds: 10 }], /outside 30 to 120/],
    ['500 lines per poll', [{ target: 'gw', log_path: '/tmp/a', max_lines: 500 }], /outside 1 to 300/],
    ['an unknown field', [{ target: 'gw', log_path: '/tmp/a', follow: true }], /unknown field "follow"/],
    ['a missing log path', [{ target: 'gw' }], /log_path/],
    ['not an array', { target: 'gw' }, /JSON array/],
  ];
  for (const [what, content, reason] of observerCases) {
    test(`MESSAGING_OBSERVERS_FILE with ${what} is refused`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'airlock-msg-obs-'));
      const file = join(dir, 'observers.json');
      writeFileSync(file, JSON.stringify(content));
      await assert.rejects(createMessagingApi({ env: { AIRLOCK_DATA_DIR: dir, MESSAGING_OBSERVERS_FILE: file }, listen: '127.0.0.1:0' }), (error: any) => {
        assert.equal(error.code, 'config_invalid');
        assert.match([error.message, ...error.details].join('\n'), reason);
        return true;
      });
    });
  }
});

test('MESSAGING_OBSERVERS_FILE naming an endless file (/dev/zero) is refused at start instead of hanging', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-msg-obs-'));
  await assert.rejects(createMessagingApi({ env: { AIRLOCK_DATA_DIR: dir, MESSAGING_OBSERVERS_FILE: '/dev/zero' }, listen: '127.0.0.1:0' }), (error: any) => {
    assert.equal(error.code, 'config_invalid');
    assert.match(error.message, /MESSAGING_OBSERVERS_FILE "\/dev\/zero" is larger than/);
    return true;
  });
});

test('the messaging executables create a missing AIRLOCK_DATA_DIR (a first start with defaults) instead of exiting 2', async () => {
  const root = mkdtempSync(join(tmpdir(), 'airlock-msg-datadir-'));
  const adapter = await createMailboxService({ env: { AIRLOCK_DATA_DIR: join(root, 'adapter', 'var') }, listen: '127.0.0.1:0' });
  await adapter.close();
  const api = await createMessagingApi({ env: { AIRLOCK_DATA_DIR: join(root, 'api', 'var') }, listen: '127.0.0.1:0', timers: MANUAL_TIMERS });
  await api.close();
  const published = await runCaptured(publishCommand, ['ops', '--data', 'x'], { AIRLOCK_DATA_DIR: join(root, 'shuttle', 'var') });
  assert.equal(published.status, 0, published.stderr);
  for (const part of ['adapter', 'api', 'shuttle']) assert.ok(existsSync(join(root, part, 'var', 'messaging.sqlite')), part);
});

test('GET /api/v1/status with a real nats-server: ready while it runs, not ready (not_ready names the bus) once it is down', async () => {
  const nats = await startNatsServer();
  const dir = mkdtempSync(join(tmpdir(), 'airlock-msg-ready-'));
  const env = { AIRLOCK_DATA_DIR: dir, NATS_URL: nats.url };
  const adapter = await createMailboxService({ env, listen: '127.0.0.1:0' });
  await adapter.listen();
  const api = await createMessagingApi({ env: { ...env, MESSAGING_MAILBOX_URL: adapter.url('mailbox') }, listen: '127.0.0.1:0', timers: MANUAL_TIMERS });
  await api.listen();
  try {
    const status = async () => (await send(`${api.url()}/api/v1/status`)).json() as { ready: boolean; not_ready: string[] };
    const up = await status();
    assert.deepEqual([up.ready, up.not_ready], [true, []]);
    await nats.stop();
    await until(() => !api.bus.health().connected);
    const down = await status();
    assert.equal(down.ready, false);
    assert.ok(down.not_ready.includes('bus'), JSON.stringify(down.not_ready));
  } finally {
    await api.close();
    await adapter.close();
    await nats.stop();
  }
});
