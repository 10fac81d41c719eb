// messaging-owner-readback: the owner-readback service in owner-readback-only mode (three routes
// behind Authorization: Bearer OWNER_READBACK_API_TOKEN; everything else is 404).

import { parseArgs } from 'node:util';
import { helpText, runService } from '../kernel/index.ts';
import { READBACK_SPEC } from './config.ts';
import { createOwnerReadbackService } from './owner-readback.ts';

const HELP = helpText({
  usage: 'messaging-owner-readback [--listen HOST:PORT] [--help]',
  summary: 'Serves GET /healthz, GET /readyz and GET /api/v1/evidence/plan-studio-review-transport on loopback, read-only, each behind Authorization: Bearer OWNER_READBACK_API_TOKEN. Without the token or the owner it fails closed (503).',
  spec: READBACK_SPEC,
  notes: ['Prints one JSON "listening" line on stdout; logs JSON lines on stderr; drains and exits 0 on SIGTERM or SIGINT.', 'Exit codes: 0 stopped cleanly, 2 configuration error.'],
});

await runService(() => {
  const { values } = parseArgs({ options: { listen: { type: 'string' } }, strict: true });
  return createOwnerReadbackService(values.listen === undefined ? {} : { listen: values.listen });
}, { help: HELP });
