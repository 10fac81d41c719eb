// erp-payment-b: signed Standard Webhooks payment_b intake on the ERP service (verify the
// signature over the raw bytes, parse, durable Integration Event plus staged Revenue Event, Frappe
// answer), every request a fresh webhook-id, beside the bare node:http baseline answering the
// same POST. Target (issue 14): at least 0.5 of the baseline's requests/s, 0 errors, concurrency 50.
import { fileURLToPath } from 'node:url';
import { signRequest } from '../../src/kernel/index.ts';
import { compareHttp } from '../lib/compare-http.ts';
import type { Scenario } from '../lib/scenario.ts';

export const SECRET = `whsec_${Buffer.from('bench-erp-payment-b-key-32-bytes').toString('base64')}`;
let counter = 0;

/** A fresh signed payment_b delivery (new payment id and webhook-id). */
export function delivery() {
  const n = counter++;
  const body = Buffer.from(JSON.stringify({ type: 'payment.succeeded', timestamp: '2026-01-01T00:00:00Z', data: { id: `pay_${n}`, amount: '12.30', currency: 'EUR', customer: `c${n}@example.test` } }));
  const headers = signRequest('standard-webhooks', { rawBody: body, secret: SECRET, now: Math.floor(Date.now() / 1000), id: `msg_bench_${process.pid}_${n}` });
  return { body, headers: { ...headers, 'content-type': 'application/json' } };
}

export const scenario: Scenario = {
  name: 'erp-payment-b',
  description: 'Signed payment_b (Standard Webhooks) intake on the ERP service -> Integration Event + Revenue Event (synchronous=FULL) vs bare node:http',
  async run(options) {
    const record = await compareHttp({
      scenario: 'erp-payment-b',
      server: fileURLToPath(new URL('../servers/erp-payment-b.ts', import.meta.url)),
      env: { PAYMENT_B_WEBHOOK_SECRET: SECRET },
      request: { path: '/api/method/erp_core.api.webhooks.payment_b', method: 'POST', body: delivery },
      baselineRequest: { path: '/', method: 'POST', body: delivery },
      expectStatus: 200,
    }, options);
    return [{ ...record, target_ratio: 0.5 }];
  },
};
