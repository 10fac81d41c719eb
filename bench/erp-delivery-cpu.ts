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

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { defineCommand, EXIT_OK, main, wholeNumberOption } from '../src/kernel/index.ts';
import type { Reply, RequestContext, Route, Store } from '../src/kernel/index.ts';
import { runAlternatingSlices } from './lib/cpu-slices.ts';
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
    const context = {
      method: 'POST',
      path: PATH,
      query: new URLSearchParams(),
      params: {},
      headers: { 'content-type': 'application/json' },
      requestId: '',
      listener: 'main',
      remoteAddress: '127.0.0.1',
      rawBody,
      body: undefined,
      principal: undefined,
      signature: { id: `msg_${name}_${n}`, timestamp: Math.floor(Date.now() / 1000) },
      log: undefined,
    } as unknown as RequestContext;
    const reply: Reply = await route.handler(context);
    if (reply.status !== 200 || !String(reply.raw).includes('"revenue_event_staged"')) throw new Error(`A delivery answered ${reply.status}: ${String(reply.raw)}`);
  };
  return { name, write, store };
}

const command = defineCommand({
  name: 'erp-delivery-cpu',
  summary: 'Times the ERP side of a payment_b delivery in process: CPU microseconds per delivery (and an older tree\'s, slices interleaved)',
  options: {
    baseline: { type: 'string', valueName: 'DIR', description: 'Another checkout of this project to time beside (optional)' },
    runs: { type: 'string', default: '3', valueName: 'N', description: 'Runs, each reporting its own medians' },
    slices: { type: 'string', default: '10', valueName: 'N', description: 'Slices per subject in one run' },
    slice: { type: 'string', default: '1000', valueName: 'N', description: 'Deliveries per slice' },
    concurrency: { type: 'string', default: '50', valueName: 'N', description: 'Deliveries in flight' },
    warmup: { type: 'string', default: '3000', valueName: 'N', description: 'Deliveries per subject before the first slice' },
  },
  async run({ values, json, print }) {
    const runs = wholeNumberOption('--runs', values.runs);
    const slices = wholeNumberOption('--slices', values.slices);
    const count = wholeNumberOption('--slice', values.slice);
    const concurrency = wholeNumberOption('--concurrency', values.concurrency);
    const warmup = wholeNumberOption('--warmup', values.warmup, 0);
    const dir = mkdtempSync(join(tmpdir(), 'airlock-bench-erp-delivery-cpu-'));
    const subjects: CpuSubject[] = [];
    try {
      subjects.push(await subjectOf('ours', join(import.meta.dirname, '..'), join(dir, 'ours')));
      if (values.baseline !== undefined) subjects.push(await subjectOf('baseline', resolve(values.baseline), join(dir, 'baseline')));
      await runAlternatingSlices(subjects, { runs, slices, count, concurrency, warmup, unit: 'delivery', json, print });
    } finally {
      for (const subject of subjects) await subject.store.close();
      rmSync(dir, { recursive: true, force: true });
    }
    return EXIT_OK;
  },
});

await main(command);
