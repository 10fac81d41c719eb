// The ERP service (erp-api) at scale. Its evidence grows through the performance gate's own request
// mix (scripts/_erp/load-mix.ts: signed payment_a, payment_b, supplier_intake and
// website_contact_intake webhooks, each a fresh Integration Event, plus the posting calls on what
// was staged), sent over HTTP to the running service. A business event is one Integration Event.

import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { openErpDatabase } from '../../../src/erp/database/open-erp-database.ts';
import type { ErpDeps } from '../../../src/erp/erp-route.ts';
import { normalizeStandardEvent, normalizeStripeEvent } from '../../../src/erp/webhooks/payment-events.ts';
import { recordDelivery } from '../../../src/erp/webhooks/record-delivery.ts';
import type { Delivery, Effect } from '../../../src/erp/webhooks/record-delivery.ts';
import { stageRevenueEvent } from '../../../src/erp/webhooks/stage-revenue-event.ts';
import { normalizeSupplierIntake, stageSupplierIntake } from '../../../src/erp/webhooks/supplier-intake.ts';
import { normalizeContactIntake, upsertLead } from '../../../src/erp/webhooks/website-contact.ts';
import { createLoadMix } from '../../../scripts/_erp/load-mix.ts';
import type { PlannedRequest } from '../../../scripts/_erp/load-mix.ts';
import type { GrowOutcome, ReadRoute, ScaleProfile, WriteLoadResult } from '../profile.ts';

const SECRETS = {
  PAYMENT_A_WEBHOOK_SECRET: 'whsec_scale_bench_stripe',
  PAYMENT_B_WEBHOOK_SECRET: `whsec_${Buffer.from('scale-bench-standard-webhooks-32').toString('base64')}`,
  AUTOMATION_SHARED_SECRET: 'scale-bench-automation',
  ERP_API_SHARED_SECRET: 'scale-bench-erp-api',
};
const API_KEY_PAIR = 'scalebench:scalebenchsecret';
const AUTH = { authorization: `token ${API_KEY_PAIR}` };
const WEBHOOKS = new Set(['payment_a', 'payment_b', 'supplier_intake', 'website_contact_intake']);
const GROW_CONCURRENCY = 32;

const resource = (doctype: string, query: string) => `/api/resource/${encodeURIComponent(doctype)}${query === '' ? '' : `?${query}`}`;
const filters = (value: unknown) => `filters=${encodeURIComponent(JSON.stringify(value))}`;
const get = (name: string, path: string, headers: Record<string, string> = AUTH): ReadRoute => ({ name, request: { path, headers } });

function post(agent: Agent, url: URL, planned: PlannedRequest): Promise<number> {
  return new Promise((resolve) => {
    const req = request(new URL(planned.path, url), { method: planned.method, agent, headers: { ...planned.headers, ...(planned.body && { 'content-length': String(planned.body.length) }) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        if (res.statusCode === 200 && planned.onAnswer) planned.onAnswer((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { message: Record<string, unknown> }).message);
        resolve(res.statusCode ?? 0);
      });
    });
    req.on('error', () => resolve(0));
    req.end(planned.body);
  });
}

/** What the webhook route of `planned.kind` hands recordDelivery() after its signature check (webhooks/routes.ts). */
function deliveryOf(planned: PlannedRequest): [Omit<Delivery, 'rawBody'>, Effect] {
  const body: unknown = JSON.parse(planned.body!.toString('utf8'));
  switch (planned.kind) {
    case 'payment_a': {
      const payment = normalizeStripeEvent(body);
      return [{ source: 'payment_a', providerEventId: payment.providerEventId, eventType: payment.eventType, normalized: { ...payment } }, stageRevenueEvent('payment_a', payment)];
    }
    case 'payment_b': {
      const payment = normalizeStandardEvent(body, planned.headers['webhook-id']!);
      return [{ source: 'payment_b', providerEventId: payment.providerEventId, eventType: payment.eventType, normalized: { ...payment } }, stageRevenueEvent('payment_b', payment)];
    }
    case 'supplier_intake': {
      const { eventId, fields } = normalizeSupplierIntake(body);
      return [{ source: 'supplier_intake', providerEventId: eventId, eventType: 'supplier.intake', normalized: fields }, stageSupplierIntake(fields)];
    }
    default: {
      const intake = normalizeContactIntake(body);
      return [{ source: 'website_contact_intake', providerEventId: intake.eventId, eventType: 'website.contact', normalized: intake.lead }, upsertLead(intake)];
    }
  }
}

export function erpProfile(): ScaleProfile {
  const mix = createLoadMix({ ...SECRETS, apiKeyPair: API_KEY_PAIR });
  const grown: GrowOutcome = { events: 0, rawBytes: 0 };
  const year = new Date().getUTCFullYear();
  return {
    service: 'erp',
    businessEvent: 'integration event',
    entry: fileURLToPath(new URL('../../../src/erp/main.ts', import.meta.url)),
    bundle: 'erp-api.mjs',
    env: (dataDir) => ({ ...SECRETS, ERP_API_KEYS: API_KEY_PAIR, AIRLOCK_DATA_DIR: dataDir, ERP_LISTEN: '127.0.0.1:0' }),
    database: (dataDir) => join(dataDir, 'erp.sqlite'),
    writeLoad: {
      name: 'erp_performance_gate (c=50)',
      run: (url, _dataDir, seconds) => performanceGate(url, seconds),
    },
    async grow(url, target) {
      const agent = new Agent({ keepAlive: true, maxSockets: GROW_CONCURRENCY });
      const base = new URL(url);
      let failures = 0;
      const worker = async () => {
        while (grown.events < target) {
          const planned = mix.next();
          if (planned.kind === 'status') continue;
          const webhook = WEBHOOKS.has(planned.kind);
          // Claimed before the answer, so the workers together send exactly `target` webhooks.
          if (webhook) grown.events++;
          const status = await post(agent, base, planned);
          if (webhook && status === 200) grown.rawBytes += planned.body!.length;
          else if (webhook) {
            grown.events--;
            if (++failures > 100) throw new Error(`erp refused ${failures} webhooks while growing (last status ${status})`);
          }
        }
      };
      try {
        await Promise.all(Array.from({ length: GROW_CONCURRENCY }, worker));
      } finally {
        agent.destroy();
      }
      return { ...grown };
    },
    async growDirect(dataDir, target) {
      const store = await openErpDatabase(join(dataDir, 'erp.sqlite'), { now: () => new Date() });
      // recordDelivery() reads only the store and the clock of the service's dependencies.
      const deps = { store, now: Date.now } as unknown as ErpDeps;
      try {
        while (grown.events < target) {
          const batch: Promise<unknown>[] = [];
          while (batch.length < 2000 && grown.events < target) {
            const planned = mix.next();
            if (!WEBHOOKS.has(planned.kind)) continue;
            const [delivery, effect] = deliveryOf(planned);
            grown.events++;
            grown.rawBytes += planned.body!.length;
            batch.push(recordDelivery(deps, { ...delivery, rawBody: planned.body! }, effect));
          }
          await Promise.all(batch);
        }
      } finally {
        await store.close();
      }
      return { ...grown };
    },
    reads: [
      get('GET /healthz', '/healthz', {}),
      get('GET /capability-inventory', '/capability-inventory', {}),
      get('GET health.integration_status', '/api/method/erp_core.api.health.integration_status', {}),
      get('GET frappe.auth.get_logged_user', '/api/method/frappe.auth.get_logged_user'),
      get('GET /api/resource/Integration Event?limit=20', resource('Integration Event', 'limit=20')),
      get('GET /api/resource/Integration Event (status filter, indexed)', resource('Integration Event', `${filters([['status', '=', 'processed']])}&limit=20`)),
      get('GET /api/resource/Integration Event (source filter, window)', resource('Integration Event', `${filters([['source', '=', 'payment_b']])}&fields=${encodeURIComponent('["name","source","status"]')}&limit=20`)),
      get('GET /api/resource/Integration Event (creation asc, page 10)', resource('Integration Event', 'order_by=creation%20asc&limit_start=200&limit=20')),
      get('GET /api/resource/Revenue Event?limit=20', resource('Revenue Event', 'limit=20')),
      get('GET /api/resource/Lead?limit=20', resource('Lead', 'limit=20')),
      get('GET /api/resource/Supplier Intake (status filter, window)', resource('Supplier Intake', `${filters([['status', '=', 'Staged']])}&limit=20`)),
      get('GET /api/resource/Sales Invoice?limit=20', resource('Sales Invoice', 'limit=20')),
      get('GET /api/resource/Integration Event/{name}', resource('Integration Event', '').replace(/$/, `/INT-EVT-${year}-00001`)),
    ],
    // It walks the whole window of 5000 and, finding nothing there, is refused (ValidationError,
    // 417) once the DocType holds more: the refusal is its answer at every measured size.
    heaviest: { ...get('GET /api/resource/Integration Event (unindexed like filter over the whole window)', resource('Integration Event', `${filters([['event_type', 'like', '%never%']])}&limit=20`)), expectStatus: 417 },
    readiness: get('GET /healthz', '/healthz', {}),
  };
}

const GATE = fileURLToPath(new URL('../../../scripts/erp_performance_gate.ts', import.meta.url));

/** The seed's own load gate against the service at `url`, as an operator runs it (c=50). */
function performanceGate(url: string, seconds: number): Promise<WriteLoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [GATE, '--base-url', url, '--duration', String(seconds), '--concurrency', '50', '--json'], {
      env: { ...process.env, ...SECRETS, ERP_API_KEYS: API_KEY_PAIR },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', () => {
      try {
        const result = JSON.parse(out) as WriteLoadResult & { errors: number };
        resolve({ requests: result.requests, errors: result.errors, p50_ms: result.p50_ms, p95_ms: result.p95_ms, p99_ms: result.p99_ms });
      } catch {
        reject(new Error(`erp_performance_gate printed no JSON result: ${out.slice(0, 300)}`));
      }
    });
  });
}
