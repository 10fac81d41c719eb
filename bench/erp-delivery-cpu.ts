// node bench/erp-delivery-cpu.ts [--baseline DIR] [--runs N] [--slices N] [--slice N] [--concurrency N] [--json]
// The ERP side of one payment_b delivery, in process, as CPU per delivery: the route's own handler
// (src/erp/webhooks/routes.ts: strict JSON parse, normalizeStandardEvent(), recordDelivery() with
// stageRevenueEvent(): the redelivery check, two names, the Revenue Event and the Integration
// Event in one unit of the group committer), on the ERP database as openErpDatabase() makes it
// (synchronous=FULL, its migrations, tables, indexes and triggers). Each delivery is a fresh
// webhook-id and payment, as in the erp-payment-b scenario. Left out: HTTP and the Standard
// Webhooks signature check, which the kernel runs before the handler (the scenario has them).
//
// 50 deliveries in flight; slices of `--slice` deliveries timed with process.cpuUsage(), and with
// --baseline DIR (another checkout: `git archive <commit> | tar -x -C DIR` and a node_modules
// link) its slices alternate with this tree's in one process (bench/lib/cpu-slices.ts). The
// baseline must be a tree with the same module layout (src/erp/webhooks/routes.ts exporting
// webhookRoutes, src/erp/database/open-erp-database.ts).

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Reply, Route, Store } from '../src/kernel/index.ts';
import { runCpuHarness } from './lib/cpu-slices.ts';
import { postContext } from './lib/post-context.ts';
import type { CpuSubject } from './lib/cpu-slices.ts';

const PATH = '/api/method/erp_core.api.webhooks.payment_b';

/** The payment_b delivery of `root`'s tree (this checkout or --baseline), on a new ERP database in `dir`. */
async function subjectOf(name: string, root: string, dir: string): Promise<CpuSubject> {
  const load = (path: string) => import(pathToFileURL(join(root, path)).href);
  const { openErpDatabase } = await load('src/erp/database/open-erp-database.ts');
  const { webhookRoutes } = await load('src/erp/webhooks/routes.ts');
  const store: Store = await openErpDatabase(join(dir, 'erp.sqlite'), { now: () => new Date() });
  // recordDelivery() reads the store and the clock of the service's dependencies, nothing else.
  const deps = { store, now: Date.now };
  const route = (webhookRoutes(() => deps) as Route[]).find((r) => r.path === PATH);
  if (route === undefined) throw new Error(`No route ${PATH} in ${root}`);
  let n = 0;
  const write = async () => {
    n++;
    // The erp-payment-b scenario's body (bench/scenarios/erp-payment-b.ts).
    const rawBody = Buffer.from(JSON.stringify({ type: 'payment.succeeded', timestamp: '2026-01-01T00:00:00Z', data: { id: `pay_${name}_${n}`, amount: '12.30', currency: 'EUR', customer: `c${n}@example.test` } }));
    const context = postContext(PATH, rawBody, { signature: { id: `msg_${name}_${n}`, timestamp: Math.floor(Date.now() / 1000) } });
    const reply: Reply = await route.handler(context);
    if (reply.status !== 200 || !String(reply.raw).includes('"revenue_event_staged"')) throw new Error(`A delivery answered ${reply.status}: ${String(reply.raw)}`);
  };
  return { name, write, store };
}

await runCpuHarness({
  name: 'erp-delivery-cpu',
  summary: 'Times the ERP side of a payment_b delivery in process: CPU microseconds per delivery (and an older tree\'s, slices interleaved)',
  unit: 'delivery',
  slice: 1000,
  warmup: 3000,
  subjectOf,
});
