// DESIGN.md, Idempotency: "no crash, at any instant, may leave an effect whose key can run it a
// second time". The real service runs as a child process; 20 concurrent clients send keyed
// outbox writes (the key rides in the record as correlation_id, so each effect names its key);
// the child is SIGKILLed at a random instant, restarted on the same data, and every key is sent
// again. In the end every key owns exactly one row, and a key answered before a kill replays
// that answer byte for byte.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { sendJson } from '../helpers/http.ts';
import { REPO, rootEnv, tempRoot } from './_fixtures.ts';
import { AUTH, LANE_TOKENS, GIT_HOST_SECRET } from './_service.ts';
import { compileCache } from '../helpers/compile-cache.ts';

const MAIN = join(REPO, 'src', 'governance', 'main.ts');
const KILLS = 4;
const CONCURRENCY = 20;
const KEYS_PER_ROUND = 400;

interface Answer {
  status: number;
  text: string;
  replayed: boolean;
}

function body(key: string) {
  return {
    event: 'planning.owner_decision_recorded',
    occurred_at: '2026-11-21T12:00:00Z',
    payload: { session_id: 'ps_11111111-2222-4333-8444-555555555555', revision: 2, decision: 'approved', planning_event_seq: 7 },
    correlation_id: key,
  };
}

/** Starts the service on `dataDir`; resolves with the child and its worker URL once it listens. */
function start(root: string, dataDir: string): Promise<{ child: ChildProcess; worker: string }> {
  const child = spawn(process.execPath, [MAIN, '--role', 'control-api'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env['PATH'] ?? '', ...compileCache(),
      ...rootEnv(root),
      AIRLOCK_DATA_DIR: dataDir,
      GOVERNANCE_PLATFORM_LISTEN: '127.0.0.1:0',
      GOVERNANCE_WORKER_LISTEN: '127.0.0.1:0',
      GOVERNANCE_OPERATOR_TOKEN: LANE_TOKENS.operator,
      GOVERNANCE_BFF_TOKEN: LANE_TOKENS.bff,
      GOVERNANCE_MAIL_PRODUCER_TOKEN: LANE_TOKENS.mail_producer,
      GOVERNANCE_MAIL_CONSUMER_TOKEN: LANE_TOKENS.mail_consumer,
      GOVERNANCE_ENTITLEMENT_PRODUCER_TOKEN: LANE_TOKENS.entitlement_producer,
      GOVERNANCE_ENTITLEMENT_CONSUMER_TOKEN: LANE_TOKENS.entitlement_consumer,
      GOVERNANCE_GIT_HOST_WEBHOOK_SECRET: GIT_HOST_SECRET,
    },
  });
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const line = stdout.split('\n').find((l) => l.includes('"listener":"worker"'));
      if (line) resolve({ child, worker: (JSON.parse(line) as { url: string }).url });
    });
    child.on('exit', (code, signal) => reject(new Error(`governance-api ended before listening (${code ?? signal}): ${stderr.slice(-2000)}`)));
  });
}

/** Sends one key; undefined when the connection broke (the outcome is unknown to the client). */
async function sendKey(worker: string, key: string): Promise<Answer | undefined> {
  try {
    const response = await sendJson(`${worker}/api/v1/events/outbox/planning`, body(key), { headers: { ...AUTH, 'idempotency-key': `"${key}"` } });
    return { status: response.status, text: response.text, replayed: response.headers['idempotent-replayed'] === 'true' };
  } catch {
    // The kill cut this request: the client does not know whether it committed, so it retries.
    return undefined;
  }
}

/** Runs `keys` through CONCURRENCY clients; stops taking new keys once `stopped()` says so. */
async function drive(keys: string[], send: (key: string) => Promise<void>, stopped: () => boolean): Promise<void> {
  let next = 0;
  const client = async () => {
    while (!stopped() && next < keys.length) await send(keys[next++]!);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, client));
}

test('a keyed write survives SIGKILL at any instant: after restart every retried key has exactly one effect and replays its first answer', { timeout: 120_000 }, async (t) => {
  const root = tempRoot();
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-governance-crash-'));
  t.after(() => {
    root.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const first = new Map<string, Answer>();
  const attempted: string[] = [];
  let pending: string[] = [];

  for (let round = 1; round <= KILLS; round++) {
    const { child, worker } = await start(root.root, dataDir);
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    let dead = false;
    let timer: NodeJS.Timeout | undefined;
    const fresh = Array.from({ length: KEYS_PER_ROUND }, () => randomUUID());
    attempted.push(...fresh);
    // Keys cut by the last kill go first, mixed with new ones: the kill lands among both.
    const keys = [...pending, ...fresh];
    pending = [];
    await drive(keys, async (key) => {
      const answer = await sendKey(worker, key);
      timer ??= setTimeout(() => child.kill('SIGKILL'), 30 + Math.random() * 300);
      if (answer === undefined || answer.status === 409) pending.push(key);
      else {
        assert.equal(answer.status, 201, `round ${round}, key ${key}: ${answer.text}`);
        if (!first.has(key)) first.set(key, answer);
      }
    }, () => dead);
    child.once('exit', () => (dead = true));
    assert.equal(await exited, 'SIGKILL', `round ${round}: the service ended by itself`);
    dead = true;
    pending.push(...keys.filter((key) => !first.has(key) && !pending.includes(key)));
    t.diagnostic(`round ${round}: ${first.size} keys answered so far, ${pending.length} cut or unsent`);
  }

  // The last restart: every key is sent again and must be settled by now.
  const { child, worker } = await start(root.root, dataDir);
  try {
    await drive(attempted, async (key) => {
      const answer = await sendKey(worker, key);
      assert.ok(answer, `key ${key}: no answer after restart`);
      assert.equal(answer.status, 201, `key ${key}: ${answer.text}`);
      assert.equal(answer.replayed || !first.has(key), true, `key ${key}: answered before a kill, yet not replayed`);
      const original = first.get(key);
      if (original) assert.equal(answer.text, original.text, `key ${key}: the replay differs from the first answer`);
      else first.set(key, answer);
      // A key that ran after restart replays from now on.
      const again = await sendKey(worker, key);
      assert.equal(again?.replayed, true, `key ${key}: a second retry ran again`);
    }, () => false);
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }

  const sqlite = new DatabaseSync(join(dataDir, 'governance.sqlite'), { readOnly: true });
  try {
    const rows = sqlite.prepare(`SELECT json_extract(payload, '$.correlation_id') AS key, count(*) AS n FROM outbox_records WHERE json_extract(payload, '$.source') = 'outbox_api' GROUP BY key`).all();
    const effects = new Map(rows.map((row) => [String(row['key']), Number(row['n'])]));
    const doubled = [...effects].filter(([, n]) => n !== 1);
    assert.deepEqual(doubled, [], `${doubled.length} keys own more than one row`);
    const missing = attempted.filter((key) => !effects.has(key));
    assert.deepEqual(missing, [], `${missing.length} keys have no effect`);
    t.diagnostic(`${attempted.length} keys over ${KILLS} kills: each has exactly one row`);
  } finally {
    sqlite.close();
  }
});
