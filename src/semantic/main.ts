// semantic-api: the semantic runtime service's loopback API. Configuration comes from the
// environment (see --help); --listen overrides SEMANTIC_LISTEN.

import { helpText, runService } from '../kernel/index.ts';
import { API_SPEC, loadApiConfig } from './config.ts';
import { createSemanticService } from './service.ts';

const HELP = helpText({
  usage: 'semantic-api [--listen HOST:PORT] [--help]',
  summary: 'Serves the semantic runtime API (health, readiness, status and context readback, topology metrics, projection verification, synthetic fixtures) on loopback.',
  spec: API_SPEC,
  notes: [
    'Prints one JSON "listening" line on stdout; logs JSON lines on stderr; drains and exits 0 on SIGTERM or SIGINT.',
    'Exit codes: 0 stopped cleanly, 2 configuration or address error (every problem listed).',
  ],
});

await runService((flags) => {
  const listen = flags['listen'];
  return createSemanticService(loadApiConfig(process.env, typeof listen === 'string' ? { listen } : {}));
}, { help: HELP, flags: { listen: { type: 'string' } } });
