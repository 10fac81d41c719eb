// messaging-mailbox: the mailbox adapter. POST /api/v1/mailboxes/{mailbox}/messages publishes to
// the bus (NATS when NATS_URL is set, the embedded bus otherwise); GET /healthz names the bus.

import { parseArgs } from 'node:util';
import { helpText, runService } from '../kernel/index.ts';
import { MAILBOX_SPEC } from './config.ts';
import { createMailboxService } from './mailbox-adapter.ts';

const HELP = helpText({
  usage: 'messaging-mailbox [--listen HOST:PORT] [--help]',
  summary: 'Serves the mailbox adapter on loopback: publishes each message to subject mailbox.<mailbox> and answers once the bus holds it.',
  spec: MAILBOX_SPEC,
  notes: [
    'Prints one JSON "listening" line on stdout; logs JSON lines on stderr; drains and exits 0 on SIGTERM or SIGINT.',
    'Exit codes: 0 stopped cleanly, 2 configuration error or NATS server unreachable at start.',
  ],
});

await runService(async () => {
  const { values } = parseArgs({ options: { listen: { type: 'string' } }, strict: true });
  return createMailboxService(values.listen === undefined ? {} : { listen: values.listen });
}, { help: HELP });
