// The governance service as platform-api on a throwaway data directory, for the governance-read
// bench scenario: contract truth from the repository, port 0, one listening line.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runService } from '../../src/kernel/index.ts';
import { createGovernanceService, readGovernanceConfig } from '../../src/governance/index.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'airlock-bench-governance-'));
process.once('exit', () => rmSync(dataDir, { recursive: true, force: true }));

await runService(() => createGovernanceService(readGovernanceConfig({
  argv: ['--role', 'platform-api'],
  env: { ...process.env, AIRLOCK_DATA_DIR: dataDir, GOVERNANCE_PLATFORM_LISTEN: '127.0.0.1:0' },
})));
