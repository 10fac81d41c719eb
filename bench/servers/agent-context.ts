// agent-context on a throwaway data directory for the agent-context bench scenario, wired to a
// governance service (role test) in the same process as npm start wires them; ten persistent
// agents are recorded first so the internal read has state to fold. Prints agent-context's
// listening line only.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, runService } from '../../src/kernel/index.ts';
import { createGovernanceService, readGovernanceConfig } from '../../src/governance/index.ts';
import { loadAgentContextConfig } from '../../src/agent-context/config.ts';
import { runtimePatches } from '../../src/agent-context/database.ts';
import { createAgentContextService } from '../../src/agent-context/service.ts';

export const BENCH_TOKEN = 'bench-agent-context-token-0001';
const OPERATOR = 'bench-governance-operator-0001';
const dataDir = mkdtempSync(join(tmpdir(), 'airlock-bench-agent-context-'));
process.once('exit', () => rmSync(dataDir, { recursive: true, force: true }));

const governance = await createGovernanceService(
  readGovernanceConfig({ argv: ['--role', 'test'], env: { ...process.env, AIRLOCK_DATA_DIR: join(dataDir, 'governance'), GOVERNANCE_PLATFORM_LISTEN: '127.0.0.1:0', GOVERNANCE_WORKER_LISTEN: '127.0.0.1:0', GOVERNANCE_OPERATOR_TOKEN: OPERATOR } }),
  { log: createLogger({ name: 'governance', write: () => {} }) },
);
const worker = (await governance.listen()).find((l) => l.listener === 'worker')!.url;

await runService(async () => {
  const service = createAgentContextService(loadAgentContextConfig({
    ...process.env, AIRLOCK_DATA_DIR: dataDir, AGENT_CONTEXT_LISTEN: '127.0.0.1:0', AGENT_CONTEXT_TOKEN: BENCH_TOKEN, AGENT_CONTEXT_SERVICE_AUTH_TOKEN: OPERATOR, GOVERNANCE_URL: worker,
  }));
  for (let i = 0; i < 10; i++) {
    await service.store.append(runtimePatches, { agent_id: `agent-${i}`, action: 'apply', payload: { runtime: 'node', version: '1.0.0', config_sha256: null, reason: 'bench', actor: 'bench' } });
  }
  return service;
});
