// Starts governance (role test, on a temporary install root whose manifest declares both
// governance and agent-context) and agent-context in-process, both on port 0, for agent-context
// tests. Bodies with a complete authority context for each action intent.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildGovernanceManifest, buildStackContract, createLogger } from '../../src/kernel/index.ts';
import type { ReadPool } from '../../src/kernel/index.ts';
import { manifest as governanceManifest } from '../../src/governance/manifest.ts';
import { manifest as agentContextManifest } from '../../src/agent-context/manifest.ts';
import { loadAgentContextConfig } from '../../src/agent-context/config.ts';
import { createAgentContextService } from '../../src/agent-context/service.ts';
import type { AgentContextService } from '../../src/agent-context/service.ts';
import { rootEnv, tempRoot } from '../governance/_fixtures.ts';
import type { TempRoot } from '../governance/_fixtures.ts';
import { OPERATOR_TOKEN, startGovernance } from '../governance/_service.ts';
import type { RunningGovernance } from '../governance/_service.ts';

export const TOKEN = 'test-agent-context-token-0001';
export const AUTH = { authorization: `Bearer ${TOKEN}` };

export interface Stack {
  url: string;
  service: AgentContextService;
  governance: RunningGovernance | undefined;
  root: TempRoot | undefined;
  logs: string[];
  stop(): Promise<void>;
}

/** A temporary governance install root whose manifest and stack contract declare both services. */
export function stackRoot(): TempRoot {
  const root = tempRoot();
  const text = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  root.write('governance-manifest.json', text(buildGovernanceManifest([governanceManifest, agentContextManifest])));
  root.write('configs/stack-contract.json', text(buildStackContract([governanceManifest, agentContextManifest])));
  return root;
}

/**
 * Starts the stack. `governance: false` leaves GOVERNANCE_URL pointing at nothing that answers;
 * `serviceAuthToken: ''` leaves AGENT_CONTEXT_SERVICE_AUTH_TOKEN unset.
 */
export async function startStack(options: { governance?: boolean; serviceAuthToken?: string; env?: Record<string, string>; editRoot?: (root: TempRoot) => void; wrapReads?: (pool: ReadPool) => ReadPool } = {}): Promise<Stack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-agent-context-'));
  let root: TempRoot | undefined;
  let governance: RunningGovernance | undefined;
  if (options.governance ?? true) {
    root = stackRoot();
    options.editRoot?.(root);
    governance = await startGovernance({ role: 'test', env: rootEnv(root.root) });
  }
  const token = options.serviceAuthToken ?? OPERATOR_TOKEN;
  const logs: string[] = [];
  const config = loadAgentContextConfig({
    AIRLOCK_DATA_DIR: dataDir,
    AGENT_CONTEXT_TOKEN: TOKEN,
    ...(token !== '' && { AGENT_CONTEXT_SERVICE_AUTH_TOKEN: token }),
    // Port 9 on loopback: fetch refuses it at once (a blocked port), so governance is unreachable.
    GOVERNANCE_URL: governance?.worker ?? 'http://127.0.0.1:9',
    AGENT_CONTEXT_UPSTREAM_TIMEOUT_MS: '2000',
    ...options.env,
  }, { listen: '127.0.0.1:0' });
  const service = createAgentContextService(config, { version: '0.0.0-test', log: createLogger({ name: 'agent-context', service: 'agent-context', write: (line) => void logs.push(line) }), ...(options.wrapReads && { wrapReads: options.wrapReads }) });
  await service.listen();
  await service.started;
  return {
    url: service.url(),
    service,
    governance,
    root,
    logs,
    async stop() {
      await service.close();
      await governance?.stop();
      root?.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const INTENTS = {
  patch: 'patch_agent_runtime',
  execution: 'dispatch_execution',
  control: 'control_agent',
  propose: 'write_learning_proposal',
  review: 'review_learning_proposal',
} as const;

/** A complete authority context for `intent`, within the agent-runtime-control module. */
export function authority(intent: string, actor = 'ops-alice'): Record<string, string> {
  return { role: 'operator', module_key: 'agent-runtime-control', action_intent: intent, actor };
}

/** Rows per evidence table, read straight from the service's database. */
export function rowCounts(stack: Stack): Record<string, number> {
  const tables = ['runtime_patches', 'execution_runs', 'control_commands', 'learning_proposals', 'authority_decisions', 'outbox_events'];
  return Object.fromEntries(tables.map((t) => [t, Number(stack.service.store.sqlite.prepare(`SELECT count(*) AS n FROM ${t}`).get()?.['n'])]));
}

/** [path, intent, a body valid but for its authority_context]. */
export const WRITES: readonly (readonly [string, string, Record<string, unknown>])[] = [
  ['/api/v1/agent-runtime/patch/apply', INTENTS.patch, { agent_id: 'agent-1', runtime: 'node', version: '1.0.0', reason: 'first rollout' }],
  ['/api/v1/agent-runtime/patch/rollback', INTENTS.patch, { agent_id: 'agent-1', reason: 'regression' }],
  ['/api/v1/execution/runs', INTENTS.execution, { agent_id: 'agent-1', run_id: 'run-1', action: 'summarize' }],
  ['/api/v1/execution/runs/run-1/result', INTENTS.execution, { outcome: 'succeeded', observed_version: '1.0.0' }],
  ['/api/v1/control-agent/pause', INTENTS.control, { reason: 'maintenance' }],
  ['/api/v1/control-agent/resume', INTENTS.control, { reason: 'done' }],
  ['/api/v1/learning-proposals', INTENTS.propose, { proposal_id: 'proposal-1', agent_id: 'agent-1', summary: 'Cache lookups' }],
  ['/api/v1/learning-proposals/proposal-1/review', INTENTS.review, { decision: 'approved' }],
];
