// erp-api: the ERP integration service (seed 002) on loopback, Frappe's wire conventions on
// /api/method/erp_core.api.*. Configuration comes from the environment (see --help); --listen
// overrides ERP_LISTEN.

import { parseArgs } from 'node:util';
import { runService } from '../kernel/index.ts';
import { ERP_SPEC, loadErpConfig } from './config.ts';
import { createErpService } from './service.ts';

const HELP = [
  'Usage: erp-api [--listen HOST:PORT] [--help]',
  '',
  'Serves the ERP integration API (signed webhooks, posting lanes, owner readback, health) on loopback',
  'with Frappe\'s wire conventions. See docs/erp.md.',
  '',
  'Environment:',
  ...Object.entries(ERP_SPEC).map(([name, spec]) => `  ${name.padEnd(34)} ${spec.description}${'default' in spec ? ` (default ${String(spec.default)})` : ''}${spec.type === 'secret' ? ` (or ${name}_FILE)` : ''}`),
  '',
  'Prints one JSON "listening" line on stdout; logs JSON lines on stderr; drains and exits 0 on SIGTERM or SIGINT.',
  'Exit codes: 0 stopped cleanly, 2 configuration, database or address error (every problem listed).',
  '',
].join('\n');

await runService(() => {
  const { values } = parseArgs({ options: { listen: { type: 'string' } }, strict: true });
  return createErpService(loadErpConfig(process.env, values.listen === undefined ? {} : { listen: values.listen }));
}, { help: HELP });
