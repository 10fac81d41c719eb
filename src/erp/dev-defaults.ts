// Embedded defaults for `npm start`: generated webhook secrets, one API key pair and one login
// password, kept in var/dev-secrets.json (mode 0600, other services' entries preserved); a users
// file with the password's scrypt hash; a sample supplier master; and working curl lines. No line
// shows a secret: each reads it from the secrets file when it runs, and signs with node's crypto.

import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ensureDevSecrets, writeFileAtomic } from '../kernel/index.ts';
import { hashPassword } from './frappe/users.ts';
import { DEFAULT_LISTEN, SERVICE_NAME, methodPath } from './identity.ts';

export const DEV_USER = 'dev@airlock.local';

const SECRET_NAMES = ['payment_a_secret', 'payment_b_secret', 'automation_secret', 'erp_api_shared_secret', 'api_key', 'api_secret', 'password', 'support_desk_secret'] as const;

function generate(name: (typeof SECRET_NAMES)[number]): string {
  if (name === 'payment_b_secret') return `whsec_${randomBytes(32).toString('base64')}`;
  if (name === 'payment_a_secret') return `whsec_${randomBytes(24).toString('base64url')}`;
  return randomBytes(name === 'api_key' ? 8 : 24).toString(name === 'api_key' ? 'hex' : 'base64url');
}

/**
 * Prepares `varDir` and returns the ERP environment and the curl lines to print. Calling it again
 * keeps the secrets it made.
 *
 * @example
 * const { env, curl } = erpDevDefaults('var');
 */
export function erpDevDefaults(varDir: string, options: { listen?: string } = {}): { env: Record<string, string>; curl: string[] } {
  const dir = resolve(varDir);
  const { path: secretsPath, secrets } = ensureDevSecrets(dir, SERVICE_NAME, SECRET_NAMES, generate);
  const usersPath = join(dir, 'erp-users.json');
  writeFileAtomic(usersPath, `${JSON.stringify({ users: [{ usr: DEV_USER, full_name: 'Airlock Developer', password: hashPassword(secrets.password) }] }, null, 2)}\n`, { mode: 0o600 });
  const suppliersPath = join(dir, 'erp-suppliers.json');
  if (!existsSync(suppliersPath)) {
    writeFileAtomic(suppliersPath, `${JSON.stringify({ suppliers: [{ name: 'Acme Parts GmbH', default_currency: 'EUR', tax_id: 'DE123456789' }, { name: 'Performance Gate Supplier', default_currency: 'EUR' }] }, null, 2)}\n`, { mode: 0o600 });
  }
  const listen = options.listen ?? DEFAULT_LISTEN;
  return {
    env: {
      ERP_LISTEN: listen,
      PAYMENT_A_WEBHOOK_SECRET: secrets.payment_a_secret,
      PAYMENT_B_WEBHOOK_SECRET: secrets.payment_b_secret,
      AUTOMATION_SHARED_SECRET: secrets.automation_secret,
      ERP_API_SHARED_SECRET: secrets.erp_api_shared_secret,
      SUPPORT_DESK_WEBHOOK_SECRET: secrets.support_desk_secret,
      ERP_API_KEYS: `${secrets.api_key}:${secrets.api_secret}`,
      ERP_USERS_FILE: usersPath,
      ERP_SUPPLIERS_FILE: suppliersPath,
    },
    curl: curlLines(`http://${listen}`, secretsPath),
  };
}

function curlLines(base: string, secretsPath: string): string[] {
  const quoted = `'${secretsPath.replace(/'/g, `'\\''`)}'`;
  const read = (name: string) => `$(node -p 'require(process.argv[1]).${SERVICE_NAME}.${name}' ${quoted})`;
  const token = `-H "Authorization: token ${read('api_key')}:${read('api_secret')}"`;
  // House scheme: X-Signature v1=<hex HMAC-SHA256(secret, "<ts>.<body>")>, signed by node's crypto.
  const signed = (fn: string, secret: string, body: unknown) => signedTo(`webhooks.${fn}`, secret, body);
  const signedTo = (dotted: string, secret: string, body: unknown) =>
    `body='${JSON.stringify(body)}'; ts=$(date +%s); ` +
    `sig=$(node -p 'require("crypto").createHmac("sha256", process.argv[1]).update(process.argv[2] + "." + process.argv[3]).digest("hex")' -- "${read(secret)}" "$ts" "$body"); ` +
    `curl -sS -H 'Content-Type: application/json' -H "X-Signature-Timestamp: $ts" -H "X-Signature: v1=$sig" -d "$body" ${base}${methodPath(dotted)}`;
  return [
    `curl -sS ${base}${methodPath('health.integration_status')}`,
    `curl -sS ${base}/healthz`,
    `curl -sS ${base}/capability-inventory`,
    // Without GOVERNANCE_URL the handoff fails closed: 503, ok=false, reason governance_support_handoff_failed.
    signedTo('support_cases.support_desk_inbound', 'support_desk_secret', { event_id: 'dev-1', kind: 'ticket', ticket_id: 1, sequence: 1, state: 'new', priority: '2 normal' }),
    `curl -sS ${token} -H 'Content-Type: application/json' -d '${JSON.stringify({ users: [{ name: 'ada@example.test', enabled: 1, user_type: 'System User', roles: ['Workboard User'] }], employees: [{ name: 'HR-EMP-00001', employee_name: 'Ada', status: 'Active', user_id: 'ada@example.test' }] })}' ${base}${methodPath('identity_projections.load_identity_truth')}`,
    `curl -sS ${token} -d technical_subject=ada@example.test ${base}${methodPath('identity_projections.workboard_access_fact')}`,
    signed('website_contact_intake', 'erp_api_shared_secret', { contact: { email: 'ada@example.test', first_name: 'Ada' }, interest: { product: 'erp' } }),
    signed('supplier_intake', 'automation_secret', { vendor: { name: 'Acme Parts GmbH' }, invoice: { number: 'DEV-1', currency: 'EUR' }, totals: { grand_total: '0.30' }, line_items: [{ description: 'Bolts', amount: '0.10' }, { description: 'Nuts', amount: '0.20' }] }),
    `curl -sS ${token} -d name=SUP-INT-$(date -u +%Y)-00001 ${base}${methodPath('workflows.post_supplier_intake')}`,
    `curl -sS ${token} -G --data-urlencode 'fields=["name","email_id","lead_name"]' ${base}/api/resource/Lead`,
    `curl -sS -c "\${TMPDIR:-/tmp}/erp-dev-cookies" -d usr=${DEV_USER} --data-urlencode "pwd=${read('password')}" ${base}/api/method/login`,
    `curl -sS -b "\${TMPDIR:-/tmp}/erp-dev-cookies" ${base}/api/method/frappe.auth.get_logged_user`,
  ];
}
