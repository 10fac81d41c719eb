// The bundles end to end: governance-api (control-api, worker listener) and agent-context-api as
// separate processes wired as an operator wires them; a guarded write is projected through the
// governance composer, the reads and metrics show it, SIGTERM drains both, and
// verify_evidence_chain accepts the agent-context database offline.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { sharedBuild } from '../helpers/shared-build.ts';
import { send, sendJson } from '../helpers/http.ts';
import { rootEnv } from '../governance/_fixtures.ts';
import { OPERATOR_TOKEN } from '../governance/_service.ts';
import { authority, INTENTS, stackRoot, TOKEN } from './_stack.ts';

async function start(bundle: string, env: Record<string, string>, args: string[] = []): Promise<{ child: ChildProcess; url: string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [bundle, ...args], { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  for await (const line of createInterface({ input: child.stdout! })) return { child, url: (JSON.parse(line) as { url: string }).url, exited };
  throw new Error(`${bundle} exited before listening: ${stderr}`);
}

test('agent-context-api and governance-api bundles together', { timeout: 60_000 }, async () => {
  const outdir = await sharedBuild();
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-agent-context-data-'));
  const root = stackRoot();
  const children: ChildProcess[] = [];
  try {
    const bin = (name: string) => join(outdir, 'bin', `${name}.mjs`);
    assert.equal(spawnSync(process.execPath, [bin('agent-context-api'), '--help']).status, 0);
    const unconfigured = spawnSync(process.execPath, [bin('agent-context-api'), '--listen', '127.0.0.1:0'], { env: { PATH: process.env['PATH'] ?? '', AIRLOCK_DATA_DIR: dataDir, GOVERNANCE_URL: 'http://10.1.2.3:18011' }, encoding: 'utf8' });
    assert.equal(unconfigured.status, 2);
    assert.match(unconfigured.stderr, /AGENT_CONTEXT_TOKEN: missing/);
    const governance = await start(bin('governance-api'), {
      ...rootEnv(root.root), AIRLOCK_DATA_DIR: dataDir, GOVERNANCE_DEPLOYMENT_ROLE: 'control-api', GOVERNANCE_WORKER_LISTEN: '127.0.0.1:0', GOVERNANCE_OPERATOR_TOKEN: OPERATOR_TOKEN,
    });
    children.push(governance.child);
    const agentContext = await start(bin('agent-context-api'), {
      AIRLOCK_DATA_DIR: dataDir, AGENT_CONTEXT_TOKEN: TOKEN, AGENT_CONTEXT_SERVICE_AUTH_TOKEN: OPERATOR_TOKEN, GOVERNANCE_URL: governance.url,
    }, ['--listen', '127.0.0.1:0']);
    children.push(agentContext.child);
    const a = agentContext.url;
    const auth = { authorization: `Bearer ${TOKEN}` };

    assert.equal(((await send(`${a}/ready`)).json() as { status: string }).status, 'pass');
    const applied = await sendJson(`${a}/api/v1/agent-runtime/patch/apply`, { agent_id: 'agent-1', runtime: 'node', version: '1.0.0', reason: 'e2e', authority_context: authority(INTENTS.patch) }, { headers: auth });
    assert.equal(applied.status, 201, applied.text);
    assert.equal((await sendJson(`${a}/api/v1/agent-runtime/patch/apply`, { agent_id: 'agent-1', runtime: 'node', version: '2.0.0', reason: 'e2e' }, { headers: auth })).status, 403);
    assert.deepEqual(((await send(`${a}/api/v1/drift/summary`, { headers: auth })).json() as { findings: unknown[] }).findings, []);
    assert.equal(((await send(`${a}/api/v1/persistent-agents`, { headers: auth })).json() as { count: number }).count, 1);
    // The governance side kept its own evidence of the composition that admitted the write.
    const evidence = (await send(`${governance.url}/api/v1/tools/runtime-evidence`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } })).json() as { tables: { table: string; rows: number }[] };
    assert.equal(evidence.tables.find((t) => t.table === 'context_compositions')?.rows, 1);
    assert.match((await send(`${a}/metrics`)).text, /^agent_context_authority_decisions_total\{reason="authority_context_missing",verdict="refused"\} 1$/m);

    agentContext.child.kill('SIGTERM');
    governance.child.kill('SIGTERM');
    assert.deepEqual(await Promise.all([agentContext.exited, governance.exited]), [0, 0]);
    const chain = spawnSync(process.execPath, [bin('verify_evidence_chain'), '--db', join(dataDir, 'agent-context.sqlite'), '--json'], { encoding: 'utf8' });
    assert.equal(chain.status, 0, chain.stdout + chain.stderr);
  } finally {
    for (const child of children) child.kill('SIGKILL');
    root.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
