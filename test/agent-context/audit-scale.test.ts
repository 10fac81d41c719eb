// Issue 24: the rollouts audit reads one page of patches by seq and verifies only the patches
// appended since the previous audit: after the first, an audit costs the same SQLite steps over
// 3000 patches as over 50; the page, total, next_after_seq and the chain stay exact.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { TestContext } from 'node:test';
import { createReadPool } from '../../src/kernel/index.ts';
import type { Store } from '../../src/kernel/index.ts';
import { openAgentContextDatabase, runtimePatches } from '../../src/agent-context/database.ts';
import type { ReadDeps } from '../../src/agent-context/reads.ts';
import { rolloutsAuditReply } from '../../src/agent-context/reads.ts';

interface Audit {
  rollouts: { seq: number; version: string }[];
  total: number;
  page: { after_seq: number; limit: number; next_after_seq: number | null };
  chain: { verified: boolean; rows?: number; head?: string; seq?: number };
}

/** A store of `patches` patches, and an audit that reports the SQLite steps it took. */
async function auditedStore(t: TestContext, patches: number) {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-agent-audit-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = openAgentContextDatabase(join(dir, 'agent-context.sqlite'), dir);
  t.after(() => store.close());
  const append = (from: number, count: number) => store.write((_sqlite, tx) => {
    for (let n = from; n < from + count; n++) tx.append(runtimePatches, { agent_id: `a${n % 7}`, action: 'apply', payload: { runtime: 'node', version: `1.${n}.0`, config_sha256: null, reason: 'r', actor: 'ops' } });
  });
  await append(0, patches);
  const statements = new Set<StatementSync>();
  const sqlite = new Proxy(store.sqlite, {
    get(target, property) {
      if (property === 'prepare') {
        return (sql: string) => {
          const prepared = target.prepare(sql);
          statements.add(prepared);
          return prepared;
        };
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as DatabaseSync;
  const view = { sqlite } as Store;
  const reads = createReadPool(store.path, { threads: 1 });
  t.after(() => reads.close());
  const deps = { store: () => view, reads: () => reads, governance: { truth: async () => ({ ok: false, outcome: 'not_configured', reason: 'test' }) } } as unknown as ReadDeps;
  const audit = async (query = '') => {
    for (const s of statements) (s as unknown as { resetStats(): void }).resetStats();
    const pooled = reads.stats().totalSteps;
    const reply = await rolloutsAuditReply(deps, new URLSearchParams(query));
    const steps = [...statements].reduce((sum, s) => sum + (s as unknown as { stat(c: 'vmStep'): number }).stat('vmStep'), 0) + reads.stats().totalSteps - pooled;
    const body = 'raw' in reply ? JSON.parse(String(reply.raw)) as Audit : undefined;
    return { status: reply.status, body: body!, steps };
  };
  return { audit, append: (count: number) => append(patches, count) };
}

test('after the first audit, one costs the same steps over 3000 patches as over 50', async (t) => {
  const small = await auditedStore(t, 50);
  const large = await auditedStore(t, 3000);
  const first = await large.audit('limit=10');
  assert.equal(first.body.chain.verified, true);
  assert.equal(first.body.chain.rows, 3000);
  await small.audit('limit=10');
  await small.append(1);
  await large.append(1);
  const [s, l] = [await small.audit('limit=10'), await large.audit('limit=10')];
  assert.equal(l.body.chain.rows, 3001);
  assert.equal(l.body.total, 3001);
  assert.equal(s.body.total, 51);
  assert.equal(l.steps, s.steps, `steps at 3001 patches ${l.steps}, at 51 ${s.steps}`);
  // The old audit read and verified every patch on each request: its steps were thousands here.
  assert.ok(first.steps > 20 * l.steps, `first audit ${first.steps} steps, later ${l.steps}`);
});

test('the audit pages by after_seq: each page in order, next_after_seq until the last, total exact', async (t) => {
  const { audit } = await auditedStore(t, 250);
  const seen: number[] = [];
  let after = 0;
  for (;;) {
    const { status, body } = await audit(`after_seq=${after}&limit=100`);
    assert.equal(status, 200);
    assert.equal(body.total, 250);
    seen.push(...body.rollouts.map((r) => r.seq));
    if (body.page.next_after_seq === null) break;
    assert.equal(body.page.next_after_seq, body.rollouts.at(-1)!.seq);
    after = body.page.next_after_seq;
  }
  assert.deepEqual(seen, Array.from({ length: 250 }, (_, i) => i + 1));
  const first = await audit();
  assert.deepEqual([first.body.rollouts.length, first.body.page], [100, { after_seq: 0, limit: 100, next_after_seq: 100 }]);
  assert.deepEqual(Object.keys(first.body), ['rollouts', 'total', 'page', 'chain', 'governance_version_truth']);
});

test('each audited patch carries its fields in order, rolled_back_from only on a rollback', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-agent-audit-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = openAgentContextDatabase(join(dir, 'agent-context.sqlite'), dir);
  t.after(() => store.close());
  await store.append(runtimePatches, { agent_id: 'a1', action: 'apply', payload: { runtime: 'node', version: '2.0.0', config_sha256: null, reason: 'first "quoted" \\ é', actor: 'ops' } });
  const rollback = await store.append(runtimePatches, { agent_id: 'a1', action: 'rollback', payload: { runtime: 'node', version: '1.0.0', config_sha256: null, reason: 'r', actor: 'ops', rolled_back_from: '2.0.0' } });
  const reads = createReadPool(store.path, { threads: 1 });
  t.after(() => reads.close());
  const deps = { store: () => store, reads: () => reads, governance: { truth: async () => ({ ok: true, status: 200, body: { v: 1 } }) } } as unknown as ReadDeps;
  const reply = await rolloutsAuditReply(deps, new URLSearchParams());
  const body = JSON.parse(Buffer.from((reply as { raw: Uint8Array }).raw).toString('utf8')) as { rollouts: Record<string, unknown>[]; governance_version_truth: unknown };
  assert.deepEqual(body.rollouts.map((r) => Object.keys(r)), [
    ['seq', 'recorded_at', 'agent_id', 'action', 'runtime', 'version', 'actor', 'reason', 'sha256'],
    ['seq', 'recorded_at', 'agent_id', 'action', 'runtime', 'version', 'rolled_back_from', 'actor', 'reason', 'sha256'],
  ]);
  assert.deepEqual(body.rollouts[1], { seq: 2, recorded_at: rollback.recorded_at, agent_id: 'a1', action: 'rollback', runtime: 'node', version: '1.0.0', rolled_back_from: '2.0.0', actor: 'ops', reason: 'r', sha256: rollback.sha256 });
  assert.equal(body.rollouts[0]!['reason'], 'first "quoted" \\ é');
  assert.deepEqual(body.governance_version_truth, { v: 1 });
});

test('a bad page is a 400 naming what is allowed', async (t) => {
  const { audit } = await auditedStore(t, 3);
  for (const query of ['limit=0', 'limit=501', 'limit=ten', 'after_seq=-1', 'after_seq=1.5', 'after_seq=99999999999999999', 'page=2', 'limit=']) {
    const { status } = await audit(query);
    assert.equal(status, 400, query);
  }
});
