// The ERP service itself (src/erp), configured over a temporary data directory, receiving signed
// Standard Webhooks payment_b deliveries: verify, parse, one durable Integration Event and a staged
// Revenue Event per delivery (group commit, synchronous=FULL), Frappe answer. The secret comes
// from PAYMENT_B_WEBHOOK_SECRET. Prints the kernel's listening line.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, runService } from '../../src/kernel/index.ts';
import { loadErpConfig } from '../../src/erp/config.ts';
import { createErpService } from '../../src/erp/service.ts';

const dir = mkdtempSync(join(tmpdir(), 'airlock-bench-erp-'));
const service = await runService(() =>
  createErpService(loadErpConfig({ ...process.env, AIRLOCK_DATA_DIR: dir, ERP_LISTEN: '127.0.0.1:0' }), { log: createLogger({ name: 'erp', level: 'error' }) }),
);
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
void service;
