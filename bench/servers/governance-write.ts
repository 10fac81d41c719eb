// The governance service as control-api on a throwaway data directory, for the governance-keyed-write
// bench scenario: contract truth from the repository, port 0, a known operator token.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runService } from '../../src/kernel/index.ts';
import { createGovernanceService, readGovernanceConfig } from '../../src/governance/index.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'airlock-bench-governance-write-'));
process.once('exit', () => rmSync(dataDir, { recursive: true, force: true }));

await runService(() => createGovernanceService(readGovernanceConfig({
  argv: ['--role', 'control-api'],
  env: { ...process.env, AIRLOCK_DATA_DIR: dataDir, GOVERNANCE_WORKER_LISTEN: '127.0.0.1:0', GOVERNANCE_OPERATOR_TOKEN: 'bench-operator-token-0001' },
})));
