// messaging-api: the messaging API (also `jhf-shuttle serve`): health and status of the bus, the
// mailbox adapter, the lane observers and restart recovery.

import { parseArgs } from 'node:util';
import { helpText, runService } from '../kernel/index.ts';
import { API_SPEC } from './config.ts';
import { createMessagingApi } from './messaging-api.ts';

const API_HELP = helpText({
  usage: 'messaging-api [--listen HOST:PORT] [--help]',
  summary: 'Serves the messaging API on loopback: GET /api/v1/health and GET /api/v1/status (bus, mailbox adapter, lane observers, last restart recovery). No /readyz and no /metrics.',
  spec: API_SPEC,
  notes: [
    'Prints one JSON "listening" line on stdout; logs JSON lines on stderr; drains and exits 0 on SIGTERM or SIGINT.',
    'Exit codes: 0 stopped cleanly, 2 configuration error (observer or recovery bounds outside the seed\'s limits included) or NATS unreachable at start.',
  ],
});

await runService(async () => {
  const { values } = parseArgs({ options: { listen: { type: 'string' } }, strict: true });
  return createMessagingApi(values.listen === undefined ? {} : { listen: values.listen });
}, { help: API_HELP });
