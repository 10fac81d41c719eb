// Governance runs two processes on one database. A keyed outbox write claims its key in the
// effect's own transaction, so across processes SQLite's write lock decides a race, not either
// process's memory: the same key sent to both processes at the same instant takes one effect, and
// the request that loses answers with the winner's stored answer, byte for byte (or 422 when its
// body differs).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { sendJson } from '../helpers/http.ts';
import { tempRoot } from './_fixtures.ts';
import { AUTH } from './_service.ts';
import { startWorkerProcess } from './_worker-process.ts';

const KEYS = 60;
const AT_ONCE = 10;

function body(key: string, occurredAt = '2026-11-21T12:00:00Z') {
  return {
    event: 'planning.owner_decision_recorded',
    occurred_at: occurredAt,
    payload: { session_id: 'ps_11111111-2222-4333-8444-555555555555', revision: 2, decision: 'approved', planning_event_seq: 7 },
    correlation_id: key,
  };
}

async function inBatches<T>(items: T[], run: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += AT_ONCE) await Promise.all(items.slice(i, i + AT_ONCE).map(run));
}

test('one Idempotency-Key sent to both governance processes at once: one effect, and the other answers with the same stored answer', { timeout: 120_000 }, async (t) => {
  const root = tempRoot();
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-governance-two-'));
  const processes = await Promise.all([startWorkerProcess(root.root, dataDir), startWorkerProcess(root.root, dataDir)]);
  t.after(async () => {
    for (const { child } of processes) child.kill('SIGTERM');
    await Promise.all(processes.map(({ child }) => new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(undefined)))));
    root.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const post = (worker: string, key: string, occurredAt?: string) =>
    sendJson(`${worker}/api/v1/events/outbox/planning`, body(key, occurredAt), { headers: { ...AUTH, 'idempotency-key': `"${key}"` } });

  const sameBody = Array.from({ length: KEYS }, () => randomUUID());
  await inBatches(sameBody, async (key) => {
    const answers = await Promise.all(processes.map(({ worker }) => post(worker, key)));
    assert.deepEqual(answers.map((a) => a.status), [201, 201], `key ${key}: ${answers.map((a) => a.text).join(' | ')}`);
    assert.equal(answers[0]!.text, answers[1]!.text, `key ${key}: both processes answer with the one stored answer`);
    assert.equal(answers.filter((a) => a.headers['idempotent-replayed'] === 'true').length, 1, `key ${key}: exactly one answer is a replay`);
  });

  const otherBody = Array.from({ length: KEYS }, () => randomUUID());
  await inBatches(otherBody, async (key) => {
    const answers = await Promise.all(processes.map(({ worker }, i) => post(worker, key, `2026-11-21T12:00:0${i}Z`)));
    assert.deepEqual(answers.map((a) => a.status).sort(), [201, 422], `key ${key}: ${answers.map((a) => a.text).join(' | ')}`);
  });

  const sqlite = new DatabaseSync(join(dataDir, 'governance.sqlite'), { readOnly: true });
  t.after(() => sqlite.close());
  const rows = sqlite.prepare("SELECT json_extract(payload, '$.correlation_id') AS key, count(*) AS n FROM outbox_records GROUP BY key").all();
  const effects = new Map(rows.map((r) => [String(r['key']), Number(r['n'])]));
  for (const key of [...sameBody, ...otherBody]) assert.equal(effects.get(key), 1, `key ${key}: ${effects.get(key) ?? 0} outbox rows`);
  t.diagnostic(`${sameBody.length + otherBody.length} keys, each sent to both processes at once: one row each`);
});
