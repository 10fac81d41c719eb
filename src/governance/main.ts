// dist/bin/governance-api.mjs: the governance publication service. --role (or
// GOVERNANCE_DEPLOYMENT_ROLE) picks the listeners: platform-api, control-api, or test (both).

import { runService } from '../kernel/index.ts';
import { GOVERNANCE_CONFIG, readGovernanceConfig } from './config.ts';
import { createGovernanceService } from './service.ts';

const HELP = `Usage: governance-api [--role control-api|platform-api|test]

Runs the governance publication service (seed 001).
  platform-api  the public read-only platform listener (GET and HEAD, no credentials), default 127.0.0.1:18010
  control-api   the worker listener (loopback only, Authorization: Bearer <operator token>), default 127.0.0.1:18011
  test          both listeners in one process
Without a role both listeners run and /health reports deployment_role "unknown".
Each listener prints {"msg":"listening","service":"governance","listener":"platform"|"worker","url":...} on stdout.

Environment:
${Object.entries(GOVERNANCE_CONFIG).map(([name, spec]) => `  ${name}${'default' in spec ? ` (default ${String(spec.default)})` : ''}\n      ${spec.description}`).join('\n')}
  Secrets may also come from the file named by <NAME>_FILE.

Exit codes: 0 stopped by SIGTERM/SIGINT, 2 invalid configuration or address.
`;

await runService(() => createGovernanceService(readGovernanceConfig({ argv: process.argv.slice(2) })), { help: HELP });
