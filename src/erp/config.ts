// The ERP service's configuration, read once at start from the environment (secrets also from
// <NAME>_FILE). Every problem is reported together; a secret that could never verify anything
// (an empty value, a whsec_ value that is not base64) refuses the start.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AirlockError, checkSecret, readConfig } from '../kernel/index.ts';
import type { ConfigSpec, ListenAddress, SignatureScheme } from '../kernel/index.ts';
import { DATABASE_FILE, DEFAULT_LISTEN } from './identity.ts';
import { OUTBOUND_SPEC, outboundConfig } from './outbound-config.ts';
import type { OutboundConfig } from './outbound-config.ts';
import { parseUsers } from './frappe/users.ts';
import type { ErpUser } from './frappe/users.ts';
import { parseSuppliers } from './suppliers.ts';
import type { Supplier } from './suppliers.ts';

/** The secret of each signed surface (DESIGN.md "Signed requests"), with its scheme. */
export const WEBHOOK_SECRETS = {
  PAYMENT_A_WEBHOOK_SECRET: 'stripe',
  PAYMENT_B_WEBHOOK_SECRET: 'standard-webhooks',
  AUTOMATION_SHARED_SECRET: 'house',
  ERP_API_SHARED_SECRET: 'house',
  WORKSPACE_SHARED_SECRET: 'house',
  AGENT_RUNTIME_CALLBACK_SECRET: 'house',
} as const satisfies Record<string, SignatureScheme>;

export type WebhookSecretName = keyof typeof WEBHOOK_SECRETS;

export const ERP_SPEC = {
  ERP_LISTEN: { type: 'listen', default: DEFAULT_LISTEN, description: 'host:port of the listener (--listen wins)' },
  AIRLOCK_DATA_DIR: { type: 'string', default: './var', description: `Directory of ${DATABASE_FILE}` },
  PAYMENT_A_WEBHOOK_SECRET: { type: 'secret', description: 'Stripe-compatible signing secret of webhooks.payment_a (comma-separated values rotate)' },
  PAYMENT_B_WEBHOOK_SECRET: { type: 'secret', description: 'Standard Webhooks secret (whsec_<base64>) of webhooks.payment_b' },
  AUTOMATION_SHARED_SECRET: { type: 'secret', description: 'House-scheme secret of webhooks.supplier_intake' },
  ERP_API_SHARED_SECRET: { type: 'secret', description: 'House-scheme secret of webhooks.website_contact_intake' },
  WORKSPACE_SHARED_SECRET: { type: 'secret', description: 'House-scheme secret of guest/service callers of workspace_binding.* (with X-Workspace-Caller)' },
  WORKSPACE_ADMITTED_CALLERS: { type: 'list', default: [], description: 'Caller ids admitted in X-Workspace-Caller, comma-separated (empty: no guest caller is admitted)' },
  AGENT_RUNTIME_CALLBACK_SECRET: { type: 'secret', description: 'House-scheme secret of callbacks.agent_runtime_approval' },
  AGENT_RUNTIME_URL: { type: 'url', description: 'Agent runtime base URL; when set, approval requests carry its dispatch bundle' },
  ERP_WORKER_INTERVAL_MS: { type: 'int', default: 1000, min: 10, max: 60000, description: 'How often the dispatch worker polls for due jobs (DESIGN.md: 1 s)' },
  ERP_DISPATCH_MAX_ATTEMPTS: { type: 'int', default: 6, min: 1, max: 100, description: 'Delivery attempts before a Dispatch Job becomes a Dead Letter' },
  ERP_DISPATCH_BACKOFF_BASE_MS: { type: 'int', default: 1000, min: 1, max: 600000, description: 'First retry delay; doubled per attempt, capped, plus up to 20 % jitter' },
  ERP_DISPATCH_BACKOFF_CAP_MS: { type: 'int', default: 60000, min: 1, max: 3600000, description: 'Largest retry delay' },
  ERP_DISPATCH_TIMEOUT_MS: { type: 'int', default: 10000, min: 10, max: 120000, description: 'Timeout of one delivery to the agent runtime' },
  ERP_API_KEYS: { type: 'secret', description: 'Token auth pairs api_key:api_secret, comma-separated (Authorization: token key:secret)' },
  ERP_USERS_FILE: { type: 'string', description: 'JSON file of login users {"users":[{"usr","full_name","password":"scrypt$..."}]}' },
  ERP_SUPPLIERS_FILE: { type: 'string', description: 'JSON file of known suppliers {"suppliers":[{"name","default_currency"}]} for posting' },
  ERP_SESSION_TTL_SECONDS: { type: 'int', default: 86400, min: 60, max: 30 * 86400, description: 'Lifetime of a login session (sid cookie)' },
  ERP_MIGRATION_WAIT_SECONDS: { type: 'int', default: 30, min: 0, max: 600, description: 'How long start-up waits for a locked or missing database before giving up (seed: 30 s)' },
  MCP_GATEWAY_HEALTHCHECK_INTERVAL: { type: 'int', default: 120, min: 1, max: 86400, description: 'Seconds between gateway healthchecks (seed default 120)' },
  ...OUTBOUND_SPEC,
} as const satisfies ConfigSpec;

export interface ApiKey {
  key: string;
  /** "key:secret", compared as one token in constant time. */
  pair: string;
}

export interface ErpConfig {
  listen: ListenAddress;
  databasePath: string;
  secrets: Record<WebhookSecretName, string | undefined>;
  apiKeys: readonly ApiKey[];
  agentRuntimeUrl: string | undefined;
  /** The dispatch worker's poll interval, retry budget and backoff. */
  dispatch: { intervalMs: number; maxAttempts: number; backoffBaseMs: number; backoffCapMs: number; timeoutMs: number };
  /** Caller ids a guest/service caller of workspace_binding.* may name. */
  workspaceCallers: readonly string[];
  users: readonly ErpUser[];
  suppliers: readonly Supplier[];
  sessionTtlSeconds: number;
  migrationWaitSeconds: number;
  gatewayHealthcheckInterval: number;
  /** Which optional files were configured (integration_status reports presence, never content). */
  usersFile: string | undefined;
  suppliersFile: string | undefined;
  /** Support desk, governance handoff, identity truth, MCP (outbound-config.ts). */
  outbound: OutboundConfig;
}

/** Reads and checks the configuration; throws AirlockError('config_invalid') listing every problem. */
export function loadErpConfig(env: NodeJS.ProcessEnv, overrides: { listen?: string } = {}): ErpConfig {
  const values = readConfig(ERP_SPEC, overrides.listen === undefined ? env : { ...env, ERP_LISTEN: overrides.listen });
  const problems: string[] = [];
  for (const [name, scheme] of Object.entries(WEBHOOK_SECRETS)) {
    const value = values[name as WebhookSecretName];
    if (value === undefined) continue;
    const check = checkSecret(scheme, value);
    if (!check.ok) problems.push(`${name}: ${check.detail}`);
  }
  const apiKeys = parseApiKeys(values.ERP_API_KEYS, problems);
  const outbound = outboundConfig(values, problems);
  if (values.SUPPORT_DESK_WEBHOOK_SECRET !== undefined && !checkSecret('house', values.SUPPORT_DESK_WEBHOOK_SECRET).ok) problems.push('SUPPORT_DESK_WEBHOOK_SECRET: must not be empty');
  const users = values.ERP_USERS_FILE === undefined ? [] : readJsonFile(values.ERP_USERS_FILE, 'ERP_USERS_FILE', parseUsers, problems);
  const suppliers = values.ERP_SUPPLIERS_FILE === undefined ? [] : readJsonFile(values.ERP_SUPPLIERS_FILE, 'ERP_SUPPLIERS_FILE', parseSuppliers, problems);
  if (problems.length > 0) {
    throw new AirlockError('config_invalid', `Invalid configuration: ${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}`, { details: problems });
  }
  return {
    listen: values.ERP_LISTEN,
    databasePath: join(values.AIRLOCK_DATA_DIR, DATABASE_FILE),
    secrets: {
      PAYMENT_A_WEBHOOK_SECRET: values.PAYMENT_A_WEBHOOK_SECRET,
      PAYMENT_B_WEBHOOK_SECRET: values.PAYMENT_B_WEBHOOK_SECRET,
      AUTOMATION_SHARED_SECRET: values.AUTOMATION_SHARED_SECRET,
      ERP_API_SHARED_SECRET: values.ERP_API_SHARED_SECRET,
      WORKSPACE_SHARED_SECRET: values.WORKSPACE_SHARED_SECRET,
      AGENT_RUNTIME_CALLBACK_SECRET: values.AGENT_RUNTIME_CALLBACK_SECRET,
    },
    agentRuntimeUrl: values.AGENT_RUNTIME_URL,
    dispatch: {
      intervalMs: values.ERP_WORKER_INTERVAL_MS,
      maxAttempts: values.ERP_DISPATCH_MAX_ATTEMPTS,
      backoffBaseMs: values.ERP_DISPATCH_BACKOFF_BASE_MS,
      backoffCapMs: values.ERP_DISPATCH_BACKOFF_CAP_MS,
      timeoutMs: values.ERP_DISPATCH_TIMEOUT_MS,
    },
    workspaceCallers: values.WORKSPACE_ADMITTED_CALLERS,
    apiKeys,
    users: users ?? [],
    suppliers: suppliers ?? [],
    sessionTtlSeconds: values.ERP_SESSION_TTL_SECONDS,
    migrationWaitSeconds: values.ERP_MIGRATION_WAIT_SECONDS,
    gatewayHealthcheckInterval: values.MCP_GATEWAY_HEALTHCHECK_INTERVAL,
    usersFile: values.ERP_USERS_FILE,
    suppliersFile: values.ERP_SUPPLIERS_FILE,
    outbound,
  };
}

function parseApiKeys(text: string | undefined, problems: string[]): ApiKey[] {
  if (text === undefined) return [];
  const keys: ApiKey[] = [];
  text.split(',').map((p) => p.trim()).filter((p) => p !== '').forEach((pair, index) => {
    const colon = pair.indexOf(':');
    // The position, never the value: the pair holds a secret.
    if (colon < 1 || colon === pair.length - 1) problems.push(`ERP_API_KEYS: pair ${index + 1} is not api_key:api_secret`);
    else keys.push({ key: pair.slice(0, colon), pair });
  });
  return keys;
}

function readJsonFile<T>(path: string, variable: string, parse: (value: unknown) => T | string, problems: string[]): T | undefined {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    problems.push(`${variable}: cannot read "${path}": ${code ?? 'not JSON'}`);
    return undefined;
  }
  const parsed = parse(value);
  if (typeof parsed === 'string') {
    problems.push(`${variable}: "${path}" ${parsed}`);
    return undefined;
  }
  return parsed;
}
