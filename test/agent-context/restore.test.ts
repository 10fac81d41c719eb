// Agent-context outlives its host (docs/replication.md): the service in sync replication mode on
// a real nats-server with JetStream patches, dispatches, pauses and proposes, is SIGKILLed and its
// data directory deleted; evidence_restore rebuilds it and the service started there answers its
// reads as before, refuses a retried write as it did before (no second effect: the retry's
// precondition reads the restored evidence), and carries on. Everything it reads is evidence
// (its state is folded from the rows) but schema_info, which its migration writes again.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { send, sendJson } from '../helpers/http.ts';
import { startNatsServer } from '../helpers/nats-server.ts';
import type { RunningNatsServer } from '../helpers/nats-server.ts';
import { runEntry, startServiceProcess, syncReplicationEnv } from '../helpers/service-process.ts';
import type { ServiceProcess } from '../helpers/service-process.ts';
import { rootEnv } from '../governance/_fixtures.ts';
import type { TempRoot } from '../governance/_fixtures.ts';
import { OPERATOR_TOKEN, startGovernance } from '../governance/_service.ts';
import type { RunningGovernance } from '../governance/_service.ts';
import { AUTH, authority, INTENTS, stackRoot, TOKEN } from './_stack.ts';

let server: RunningNatsServer;
let governance: RunningGovernance;
let root: TempRoot;
let dir: string;
const running: ServiceProcess[] = [];

before(async () => {
  server = await startNatsServer({ jetstream: true });
  root = stackRoot();
  governance = await startGovernance({ role: 'test', env: rootEnv(root.root) });
  dir = mkdtempSync(join(tmpdir(), 'airlock-agent-context-restore-'));
});
after(async () => {
  for (const service of running) await service.stop('SIGKILL');
  await governance.stop();
  root.cleanup();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function startAgentContext(dataDir: string): Promise<{ url: string; process: ServiceProcess }> {
  const service = await startServiceProcess('src/agent-context/main.ts', {
    env: { AIRLOCK_DATA_DIR: dataDir, AGENT_CONTEXT_TOKEN: TOKEN, AGENT_CONTEXT_SERVICE_AUTH_TOKEN: OPERATOR_TOKEN, GOVERNANCE_URL: governance.worker!, ...syncReplicationEnv(server.url) },
  });
  running.push(service);
  return { url: Object.values(service.urls)[0]!, process: service };
}

async function write(url: string, path: string, intent: string, body: Record<string, unknown>, actor?: string) {
  const response = await sendJson(`${url}${path}`, { ...body, authority_context: authority(intent, actor) }, { headers: AUTH });
  return { status: response.status, body: response.json() as Record<string, any> };
}

/** The reads whose answers are a function of the evidence alone (the inventory also names this process). */
async function reads(url: string): Promise<Record<string, unknown>> {
  const paths = ['/api/v1/persistent-agents', '/api/v1/rollouts/audit', '/api/v1/control-agent/status'];
  const answers: Record<string, unknown> = {};
  for (const path of paths) {
    const response = await send(`${url}${path}`, { headers: AUTH });
    assert.equal(response.status, 200, `${path}: ${response.text}`);
    answers[path] = response.json();
  }
  return answers;
}

test('agent-context: a lost host is restored from the stream; reads answer the same, a retried write takes no second effect, work carries on', { timeout: 120_000 }, async () => {
  const lost = join(dir, 'lost');
  let service = await startAgentContext(lost);
  assert.equal((await write(service.url, '/api/v1/agent-runtime/patch/apply', INTENTS.patch, { agent_id: 'agent-1', runtime: 'node', version: '1.0.0', reason: 'first' })).status, 201);
  assert.equal((await write(service.url, '/api/v1/agent-runtime/patch/apply', INTENTS.patch, { agent_id: 'agent-1', runtime: 'node', version: '1.1.0', reason: 'upgrade' })).status, 201);
  assert.equal((await write(service.url, '/api/v1/execution/runs', INTENTS.execution, { agent_id: 'agent-1', run_id: 'run-1', action: 'summarize' })).status, 201);
  assert.equal((await write(service.url, '/api/v1/execution/runs/run-1/result', INTENTS.execution, { outcome: 'succeeded', observed_version: '1.1.0' })).status, 201);
  assert.equal((await write(service.url, '/api/v1/learning-proposals', INTENTS.propose, { proposal_id: 'proposal-1', agent_id: 'agent-1', summary: 'Cache lookups' })).status, 201);
  // Readiness reports the replication beside the database (docs/replication.md).
  const ready = (await send(`${service.url}/ready`)).json() as { checks: Record<string, { status: string; mode: string; observedValue: number }[]> };
  assert.deepEqual(ready.checks['evidence:replication']!.map((c) => [c.status, c.mode, c.observedValue]), [['pass', 'sync', 0]]);
  assert.equal((await write(service.url, '/api/v1/control-agent/pause', INTENTS.control, { reason: 'maintenance' })).status, 201);
  const retried = await write(service.url, '/api/v1/execution/runs', INTENTS.execution, { agent_id: 'agent-1', run_id: 'run-1', action: 'summarize' });
  assert.equal(retried.status, 409);
  const before = await reads(service.url);
  await service.process.stop('SIGKILL');
  rmSync(lost, { recursive: true, force: true });

  const restoredDir = join(dir, 'restored');
  const restored = await runEntry('scripts/evidence_restore.ts', ['--service', 'agent-context', '--nats', server.url, '--data-dir', restoredDir, '--json']);
  assert.equal(restored.status, 0, restored.stderr);

  service = await startAgentContext(restoredDir);
  assert.deepEqual(await reads(service.url), before);
  // The retries answer as they did before the loss: refused by state, nothing appended.
  const audit = (await reads(service.url))['/api/v1/rollouts/audit'];
  assert.deepEqual(await write(service.url, '/api/v1/execution/runs', INTENTS.execution, { agent_id: 'agent-1', run_id: 'run-1', action: 'summarize' }), retried);
  assert.equal((await write(service.url, '/api/v1/agent-runtime/patch/apply', INTENTS.patch, { agent_id: 'agent-1', runtime: 'node', version: '1.1.0', reason: 'again' })).status, 409);
  assert.equal((await write(service.url, '/api/v1/learning-proposals', INTENTS.propose, { proposal_id: 'proposal-1', agent_id: 'agent-1', summary: 'again' })).status, 409);
  assert.deepEqual((await reads(service.url))['/api/v1/rollouts/audit'], audit);
  // The state carries on: still paused; resumed, a rollback restores the version before.
  assert.equal((await write(service.url, '/api/v1/control-agent/resume', INTENTS.control, { reason: 'done' })).status, 201);
  const rolled = await write(service.url, '/api/v1/agent-runtime/patch/rollback', INTENTS.patch, { agent_id: 'agent-1', reason: 'regression' });
  assert.deepEqual([rolled.status, rolled.body['desired_version']], [201, '1.0.0']);
  await service.process.stop('SIGTERM');

  const verified = await runEntry('scripts/verify_evidence_chain.ts', ['--nats', server.url, '--service', 'agent-context', '--db', join(restoredDir, 'agent-context.sqlite'), '--json']);
  assert.equal(verified.status, 0, verified.stdout + verified.stderr);
  assert.ok((JSON.parse(verified.stdout) as { heads: { agree: boolean }[] }).heads.every((h) => h.agree));
});
