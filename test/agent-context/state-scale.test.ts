// Issue 24: agent-context's folds do not re-read the history. Reads fold only the rows appended
// since the last read; a write's precondition reads one agent's patches by its index; the control
// state is its last command.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import type { TestContext } from 'node:test';
import { readRows, statement } from '../../src/kernel/index.ts';
import type { RequestContext, Store } from '../../src/kernel/index.ts';
import { ensureRunCounts, readRunCounts, RUN_COUNTS_TABLE } from '../../src/agent-context/run-counts.ts';
import type { RunCounts } from '../../src/agent-context/run-counts.ts';
import { PROPOSAL_WRITE, RUN_DISPATCH } from '../../src/agent-context/writes.ts';
import { controlCommands, executionRuns, openAgentContextDatabase, runtimePatches } from '../../src/agent-context/database.ts';
import { agentKnown, agentRuntime, controlState, createAgentsFold, LAST_CONTROL_COMMAND_SQL } from '../../src/agent-context/state.ts';

function openStore(t: TestContext) {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-agent-state-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = openAgentContextDatabase(join(dir, 'agent-context.sqlite'), dir);
  t.after(() => store.close());
  return store;
}

/** `sqlite` with every SQL text it prepares pushed onto `seen`. */
function recordingPrepares(sqlite: DatabaseSync, seen: string[]): DatabaseSync {
  return new Proxy(sqlite, {
    get(target, property) {
      if (property === 'prepare') return (sql: string) => (seen.push(sql), target.prepare(sql));
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const patch = (agent: string, version: string) => ({ agent_id: agent, action: 'apply', payload: { runtime: 'node', version, config_sha256: null, reason: 'r', actor: 'ops' } });

test('createAgentsFold() folds only the patches appended since its last advance, and reads no execution run', async (t) => {
  const store = openStore(t);
  await store.append(runtimePatches, patch('a1', '1.0.0'));
  await store.write((_sqlite, tx) => {
    for (let i = 0; i < 2000; i++) tx.append(executionRuns, { run_id: `r${i}`, agent_id: 'a1', kind: 'dispatched', payload: { action: 'x', actor: 'ops' } });
  });
  const fold = createAgentsFold();
  const seen: string[] = [];
  assert.equal(fold.advance(recordingPrepares(store.sqlite, seen)).get('a1')!.runs.dispatched, 2000);
  assert.equal(fold.folded(), 1);
  assert.ok(!seen.some((sql) => /execution_runs/.test(sql)), `the first read after a start read execution runs:\n${seen.join('\n')}`);
  await store.append(executionRuns, { run_id: 'r0', agent_id: 'a1', kind: 'completed', payload: { outcome: 'succeeded', observed_version: '1.0.0', actor: 'ops' } });
  await store.append(runtimePatches, patch('a1', '1.1.0'));
  const agent = fold.advance(store.sqlite).get('a1')!;
  assert.equal(fold.folded(), 2);
  assert.deepEqual([agent.desired_version, agent.previous_versions, agent.runs, agent.observed_version, agent.last_run_id], ['1.1.0', ['1.0.0'], { dispatched: 2000, succeeded: 1, failed: 0 }, '1.0.0', 'r1999']);
});

/** The run counts as folding every execution run gives them (what the readbacks showed before the counters). */
function foldedCounts(sqlite: DatabaseSync): Record<string, RunCounts> {
  const counts: Record<string, RunCounts> = {};
  for (const row of readRows(sqlite, executionRuns)) {
    const c = (counts[row.agent_id] ??= { dispatched: 0, succeeded: 0, failed: 0, last_run_id: null, observed_version: null });
    const p = row.payload as { outcome?: unknown; observed_version?: unknown };
    if (row.kind === 'dispatched') {
      c.dispatched += 1;
      c.last_run_id = row.run_id;
    } else {
      if (p.outcome === 'succeeded') c.succeeded += 1;
      else c.failed += 1;
      if (typeof p.observed_version === 'string') c.observed_version = p.observed_version;
    }
  }
  return counts;
}

/** Runs of three agents with every kind of completion: succeeded, failed, odd outcomes, versions or none. */
function appendMixedRuns(store: Store, from: number, count: number): Promise<void> {
  return store.write((_sqlite, tx) => {
    for (let i = from; i < from + count; i++) {
      const agent = `a${i % 3}`;
      tx.append(executionRuns, { run_id: `r${i}`, agent_id: agent, kind: 'dispatched', payload: { action: 'x', actor: 'ops' } });
      if (i % 4 === 3) continue;
      const outcome = [`succeeded`, 'failed', 'timed_out', 7][i % 5 === 0 ? 3 : i % 3];
      const observed = i % 6 === 0 ? { observed_version: 42 } : i % 7 === 0 ? {} : { observed_version: `1.${i}.0` };
      tx.append(executionRuns, { run_id: `r${i}`, agent_id: agent, kind: 'completed', payload: { outcome, ...observed, actor: 'ops' } as never });
    }
  });
}

test('the run counters a trigger keeps equal the fold of every execution run, for a database that had runs before the counters too', async (t) => {
  const store = openStore(t);
  await appendMixedRuns(store, 0, 300);
  assert.deepEqual(Object.fromEntries(readRunCounts(store.sqlite)), foldedCounts(store.sqlite), 'kept by the trigger');
  // A database from before the counters: drop them, then open it again as a start after the upgrade does.
  store.sqlite.exec(`DROP TRIGGER execution_runs_count; DROP TABLE ${RUN_COUNTS_TABLE};`);
  await appendMixedRuns(store, 300, 50);
  ensureRunCounts(store.sqlite, executionRuns.name);
  assert.deepEqual(Object.fromEntries(readRunCounts(store.sqlite)), foldedCounts(store.sqlite), 'counted once at the upgrade');
  await appendMixedRuns(store, 350, 40);
  assert.deepEqual(Object.fromEntries(readRunCounts(store.sqlite)), foldedCounts(store.sqlite), 'kept after the upgrade');
});

test('agentRuntime() reads one agent\'s patches by the agent_id index and no execution run', async (t) => {
  const store = openStore(t);
  await store.write((_sqlite, tx) => {
    for (let i = 0; i < 500; i++) tx.append(runtimePatches, patch(`other-${i}`, '1.0.0'));
    tx.append(runtimePatches, patch('a1', '1.0.0'));
    tx.append(runtimePatches, patch('a1', '2.0.0'));
    for (let i = 0; i < 500; i++) tx.append(executionRuns, { run_id: `r${i}`, agent_id: 'a1', kind: 'dispatched', payload: { action: 'x', actor: 'ops' } });
  });
  const seen: string[] = [];
  const recording = recordingPrepares(store.sqlite, seen);
  const agent = agentRuntime(recording, 'a1')!;
  assert.deepEqual([agent.desired_version, agent.previous_versions], ['2.0.0', ['1.0.0']]);
  assert.equal(agentRuntime(recording, 'nobody'), undefined);
  assert.ok(seen.length > 0 && seen.every((sql) => /FROM runtime_patches WHERE agent_id = \?/.test(sql)), seen.join('\n'));
});

test('controlState() reads the last control command only: the same steps at 2 and 1000 commands', async (t) => {
  const store = openStore(t);
  const command = (n: number) => ({ command: n % 2 === 0 ? 'pause' : 'resume', payload: { actor: 'ops', reason: `n${n}` } });
  const steps = () => {
    const last = statement(store.sqlite, LAST_CONTROL_COMMAND_SQL) as unknown as { resetStats(): void; stat(counter: 'vmStep'): number };
    last.resetStats();
    const state = controlState(store.sqlite);
    return { state, steps: last.stat('vmStep') };
  };
  assert.deepEqual(controlState(store.sqlite), { mode: 'running', commands: 0, last: null });
  await store.write((_sqlite, tx) => [0, 1].forEach((n) => tx.append(controlCommands, command(n))));
  const small = steps();
  await store.write((_sqlite, tx) => {
    for (let n = 2; n < 1000; n++) tx.append(controlCommands, command(n));
  });
  const large = steps();
  assert.equal(large.steps, small.steps);
  assert.deepEqual([small.state.mode, small.state.commands, large.state.mode, large.state.commands, large.state.last?.reason], ['running', 2, 'running', 1000, 'n999']);
});

test('agentKnown() (the dispatch and proposal precondition) reads one patch row: the same steps at 2 and 500 patches of the agent', async (t) => {
  const store = openStore(t);
  const steps = (agent: string) => {
    const query = statement(store.sqlite, 'SELECT 1 FROM runtime_patches WHERE agent_id = ? LIMIT 1') as unknown as { resetStats(): void; stat(counter: 'vmStep'): number };
    query.resetStats();
    const known = agentKnown(store.sqlite, agent);
    return { known, steps: query.stat('vmStep') };
  };
  await store.write((_sqlite, tx) => [0, 1].forEach((n) => tx.append(runtimePatches, patch('a1', `1.${n}.0`))));
  const small = steps('a1');
  await store.write((_sqlite, tx) => {
    for (let n = 2; n < 500; n++) tx.append(runtimePatches, patch('a1', `1.${n}.0`));
  });
  const large = steps('a1');
  assert.deepEqual([small.known, large.known, steps('nobody').known], [true, true, false]);
  assert.equal(large.steps, small.steps);
});

test('the dispatch and proposal preconditions read no agent\'s patch history', async (t) => {
  const store = openStore(t);
  await store.write((_sqlite, tx) => {
    for (let n = 0; n < 300; n++) tx.append(runtimePatches, patch('a1', `1.${n}.0`));
  });
  const seen: string[] = [];
  const recording = recordingPrepares(store.sqlite, seen);
  const context = (body: Record<string, unknown>) => ({ body, params: {} }) as unknown as RequestContext;
  const authority = { role: 'operator', module_key: 'm', action_intent: 'x', actor: 'ops', capability_class: 'c', governance_evidence: null };
  assert.equal(RUN_DISPATCH.check(recording, context({ agent_id: 'a1', run_id: 'r1', action: 'go' }), authority), undefined);
  assert.equal(PROPOSAL_WRITE.check(recording, context({ agent_id: 'a1', proposal_id: 'p1', summary: 's' }), authority), undefined);
  const patchReads = seen.filter((sql) => /FROM runtime_patches/.test(sql));
  assert.ok(patchReads.length > 0 && patchReads.every((sql) => /LIMIT 1$/.test(sql)), patchReads.join('\n'));
});
