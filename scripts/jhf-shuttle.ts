// jhf-shuttle: the message shuttle's command line. `publish` and `tail` talk to the bus
// (NATS_URL, or the embedded bus), `status` reads the messaging API, `serve` runs the messaging
// API itself (the same service as messaging-api).

import { EXIT_OK, EXIT_USAGE, LOG_LEVEL_HELP, main, runService } from '../src/kernel/index.ts';
import { createMessagingApi } from '../src/messaging/messaging-api.ts';
import { pingCommand } from './_shuttle/ping.ts';
import { publishCommand } from './_shuttle/publish.ts';
import { statusCommand } from './_shuttle/status.ts';
import { tailCommand } from './_shuttle/tail.ts';

const HELP = `Usage: jhf-shuttle COMMAND [options]

The message shuttle between agents, mailboxes and a workflow automation tool.

Commands:
  publish MAILBOX   publish one message to mailbox.<MAILBOX> and wait until the bus holds it
  tail [MAILBOX]    print messages as they arrive, each Nats-Msg-Id once
  status            the messaging API's status; exit 1 when the bus or the adapter is down
  ping              probe the bus itself (nats-server's monitoring /healthz with NATS_MONITOR_URL); exit 1 when down
  serve             run the messaging API (as messaging-api; --listen HOST:PORT or MESSAGING_LISTEN)

"jhf-shuttle COMMAND --help" shows a command's options. Every command takes --json.
The bus: NATS_URL (nats:// or tls://, with NATS_USER/NATS_PASSWORD or NATS_TOKEN), else the
embedded bus in $AIRLOCK_DATA_DIR/messaging.sqlite.
Exit codes: 0 every check passed, 1 a check failed, 2 usage or environment error
${LOG_LEVEL_HELP}
`;

const [verb, ...rest] = process.argv.slice(2);
switch (verb) {
  case 'publish':
    await main(publishCommand, rest);
    break;
  case 'tail':
    await main(tailCommand, rest);
    break;
  case 'status':
    await main(statusCommand, rest);
    break;
  case 'ping':
    await main(pingCommand, rest);
    break;
  case 'serve':
    await runService((flags) => {
      const listen = flags['listen'];
      return createMessagingApi(typeof listen === 'string' ? { listen } : {});
    }, {
      argv: rest,
      flags: { listen: { type: 'string' }, json: { type: 'boolean' } },
      help: 'Usage: jhf-shuttle serve [--listen HOST:PORT] [--help]\n\nRuns the messaging API, exactly as messaging-api does (see messaging-api --help for its environment).\n',
    });
    break;
  case undefined:
  case '--help':
  case '-h':
  case '--json': {
    // No command named: --help (in any order with --json) is the help, as every command's is.
    const top = process.argv.slice(2);
    const json = top.includes('--json');
    if (top.includes('--help') || top.includes('-h')) {
      process.stdout.write(json ? `${JSON.stringify({ help: HELP }, null, 2)}\n` : HELP);
      process.exitCode = EXIT_OK;
    } else if (json) {
      process.stdout.write(`${JSON.stringify({ ok: false, error: { code: 'usage', message: 'Name a command: publish, tail, status, ping or serve', details: [] } })}\n`);
      process.exitCode = EXIT_USAGE;
    } else {
      process.stdout.write(HELP);
      process.exitCode = EXIT_USAGE;
    }
    break;
  }
  default:
    process.stderr.write(`jhf-shuttle: unknown command "${verb}": use publish, tail, status, ping or serve\n`);
    process.exitCode = EXIT_USAGE;
}
