// Starts an ERP service in-process on port 0 over a temporary data directory, with every secret,
// one API key, one login user and two suppliers configured; and signs requests as each provider does.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signRequest } from '../../src/kernel/index.ts';
import type { Logger } from '../../src/kernel/index.ts';
import { loadErpConfig } from '../../src/erp/config.ts';
import { hashPassword } from '../../src/erp/frappe/users.ts';
import { createErpService } from '../../src/erp/service.ts';
import type { ErpService } from '../../src/erp/service.ts';
import { send } from '../helpers/http.ts';
import type { TestResponse } from '../helpers/http.ts';

export const SECRETS = {
  PAYMENT_A_WEBHOOK_SECRET: 'whsec_stripe_test_secret',
  PAYMENT_B_WEBHOOK_SECRET: `whsec_${Buffer.from('standard-webhooks-test-key-32byt').toString('base64')}`,
  AUTOMATION_SHARED_SECRET: 'automation-shared-secret',
  ERP_API_SHARED_SECRET: 'erp-api-shared-secret',
  WORKSPACE_SHARED_SECRET: 'workspace-shared-secret',
  AGENT_RUNTIME_CALLBACK_SECRET: 'agent-runtime-callback-secret',
};
export const WORKSPACE_CALLER = 'review-bot';
export const API_KEY = 'a1b2c3d4e5';
export const API_SECRET = 'f6g7h8i9j0';
export const TOKEN = `token ${API_KEY}:${API_SECRET}`;
export const USER = { usr: 'ops@example.test', pwd: 'correct horse battery staple' };

const PASSWORD_HASH = hashPassword(USER.pwd);

export interface Running {
  service: ErpService;
  url: string;
  dir: string;
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** The environment of a configured ERP service over `dir`. */
export function erpEnv(dir: string): Record<string, string> {
  const users = join(dir, 'users.json');
  const suppliers = join(dir, 'suppliers.json');
  writeFileSync(users, JSON.stringify({ users: [{ usr: USER.usr, full_name: 'Ops Person', password: PASSWORD_HASH }] }));
  writeFileSync(suppliers, JSON.stringify({ suppliers: [{ name: 'Acme Parts GmbH', default_currency: 'EUR', tax_id: 'DE123' }, { name: 'Globex LLC' }] }));
  return { ...SECRETS, AIRLOCK_DATA_DIR: dir, ERP_API_KEYS: `${API_KEY}:${API_SECRET}`, ERP_USERS_FILE: users, ERP_SUPPLIERS_FILE: suppliers, WORKSPACE_ADMITTED_CALLERS: WORKSPACE_CALLER, ERP_LISTEN: '127.0.0.1:0' };
}

export async function startErp(options: { now?: () => number; env?: Record<string, string>; log?: Logger } = {}): Promise<Running> {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-erp-'));
  const env = { ...erpEnv(dir), ...options.env };
  const service = await createErpService(loadErpConfig(env), { version: '0.0.0+test', ...(options.now && { now: options.now }), ...(options.log && { log: options.log }) });
  await service.listen();
  return {
    service,
    url: service.url(),
    dir,
    env,
    async stop() {
      await service.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const now = () => Math.floor(Date.now() / 1000);
let counter = 0;

/** A Stripe-signed POST, as Stripe's SDK signs it. */
export function postStripe(url: string, event: unknown, init: { secret?: string; at?: number } = {}): Promise<TestResponse> {
  const raw = Buffer.from(JSON.stringify(event));
  const headers = signRequest('stripe', { rawBody: raw, secret: init.secret ?? SECRETS.PAYMENT_A_WEBHOOK_SECRET, now: init.at ?? now() });
  return send(`${url}/api/method/erp_core.api.webhooks.payment_a`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: raw });
}

/** A Standard Webhooks POST with its webhook-id. */
export function postStandard(url: string, payload: unknown, init: { id?: string; at?: number; raw?: Buffer } = {}): Promise<TestResponse> {
  const raw = init.raw ?? Buffer.from(JSON.stringify(payload));
  const id = init.id ?? `msg_${Date.now()}_${counter++}`;
  const headers = signRequest('standard-webhooks', { rawBody: raw, secret: SECRETS.PAYMENT_B_WEBHOOK_SECRET, now: init.at ?? now(), id });
  return send(`${url}/api/method/erp_core.api.webhooks.payment_b`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: raw });
}

/** A house-scheme POST to supplier_intake or website_contact_intake. */
export function postHouse(url: string, fn: 'supplier_intake' | 'website_contact_intake', payload: unknown, init: { at?: number; raw?: Buffer; secret?: string } = {}): Promise<TestResponse> {
  const raw = init.raw ?? Buffer.from(JSON.stringify(payload));
  const secret = init.secret ?? (fn === 'supplier_intake' ? SECRETS.AUTOMATION_SHARED_SECRET : SECRETS.ERP_API_SHARED_SECRET);
  const headers = signRequest('house', { rawBody: raw, secret, now: init.at ?? now() });
  return send(`${url}/api/method/erp_core.api.webhooks.${fn}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: raw });
}

/** A Frappe client call: token header, JSON body. */
export function callMethod(url: string, dotted: string, args: Record<string, unknown>, init: { auth?: string | undefined } = {}): Promise<TestResponse> {
  const auth = 'auth' in init ? init.auth : TOKEN;
  return send(`${url}/api/method/erp_core.api.${dotted}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: auth }, body: JSON.stringify(args) });
}

/** Row counts of every ERP table, to prove a refused request changed nothing. */
export function tableCounts(service: Pick<ErpService, 'store'>): Record<string, number> {
  const tables = ['erp_documents', 'naming_series', 'integration_events', 'document_events', 'dispatch_jobs', 'approval_packets', 'dead_letters', 'agent_notifications'];
  return Object.fromEntries(tables.map((t) => [t, Number(service.store.sqlite.prepare(`SELECT count(*) AS n FROM ${t}`).get()!['n'])]));
}

/** Asserts the Frappe error shape and returns the one server message. */
export function frappeErrorText(response: TestResponse): { exc_type: string; message: string } {
  const body = response.json() as { exc_type: string; exception: string; _server_messages: string };
  const messages = JSON.parse(body._server_messages) as string[];
  const first = JSON.parse(messages[0]!) as { message: string };
  if (!body.exception.startsWith(`frappe.exceptions.${body.exc_type}: `)) throw new Error(`exception does not name ${body.exc_type}: ${body.exception}`);
  return { exc_type: body.exc_type, message: first.message };
}
