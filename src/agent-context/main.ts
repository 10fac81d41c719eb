// agent-context-api: the agent-context service on loopback (default 127.0.0.1:18050).
// Configuration comes from the environment (see --help); --listen overrides AGENT_CONTEXT_LISTEN.

import { parseArgs } from 'node:util';
import { runService } from '../kernel/index.ts';
import { CONFIG_SPEC, loadAgentContextConfig } from './config.ts';
import { createAgentContextService } from './service.ts';

const HELP = [
  'Usage: agent-context-api [--listen HOST:PORT] [--help]',
  '',
  'Serves the agent-context API: open /health, /ready, /version, /metrics, /openapi.json and',
  '/governance-manifest.json; internal reads and writes behind Authorization: Bearer AGENT_CONTEXT_TOKEN.',
  '',
  'Environment:',
  ...Object.entries(CONFIG_SPEC).map(([name, spec]) => `  ${name.padEnd(44)}${spec.description}${'default' in spec ? ` (default: ${String(spec.default)})` : ''}`),
  '',
  'Secrets may also come from a file: AGENT_CONTEXT_TOKEN_FILE, AGENT_CONTEXT_SERVICE_AUTH_TOKEN_FILE.',
  'Prints one JSON "listening" line on stdout; logs JSON lines on stderr; drains and exits 0 on SIGTERM or SIGINT.',
  'Exit codes: 0 stopped cleanly, 2 configuration or address error (every problem listed).',
  '',
].join('\n');

await runService(() => {
  const { values } = parseArgs({ options: { listen: { type: 'string' } }, strict: true });
  return createAgentContextService(loadAgentContextConfig(process.env, values.listen === undefined ? {} : { listen: values.listen }));
}, { help: HELP });
