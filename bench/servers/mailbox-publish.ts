// The mailbox adapter itself (createMailboxService) on a free port, publishing to the NATS server
// named by NATS_URL, with its database in BENCH_DATA_DIR.
import { runService } from '../../src/kernel/index.ts';
import { createMailboxService } from '../../src/messaging/mailbox-adapter.ts';

await runService(() => createMailboxService({ env: { ...process.env, AIRLOCK_DATA_DIR: process.env['BENCH_DATA_DIR'] ?? './var' }, listen: '127.0.0.1:0' }));
