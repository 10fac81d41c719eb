// The governance service's configuration: deployment role (from --role or the environment),
// the two listener addresses, the token of each lane and the git-host secret, where contract
// truth is read from, the signing key store, and the CRM assertion's upstream. Every problem is
// reported at once (exit 2).

import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { AirlockError, isLoopbackHost, readConfig, secretValues } from '../kernel/index.ts';
import type { ConfigSpec, ListenAddress } from '../kernel/index.ts';

export const DEPLOYMENT_ROLES = ['control-api', 'platform-api', 'test'] as const;
export type DeploymentRole = (typeof DEPLOYMENT_ROLES)[number];

export const PLATFORM_LISTENER = 'platform';
export const WORKER_LISTENER = 'worker';
export type ListenerName = typeof PLATFORM_LISTENER | typeof WORKER_LISTENER;

/**
 * The install root: two levels above this file, in a checkout (src/governance/) and in a
 * bundle (dist/bin/) alike, so contracts/ and governance-manifest.json are found beside both.
 */
export const DEFAULT_ROOT = resolve(import.meta.dirname, '..', '..');

export const GOVERNANCE_CONFIG = {
  GOVERNANCE_DEPLOYMENT_ROLE: { type: 'enum', values: DEPLOYMENT_ROLES, description: 'Deployment role when --role is not given: control-api (worker listener), platform-api (platform listener) or test (both)' },
  GOVERNANCE_PLATFORM_LISTEN: { type: 'listen', default: '127.0.0.1:18010', description: 'host:port of the public read-only platform listener' },
  GOVERNANCE_WORKER_LISTEN: { type: 'listen', default: '127.0.0.1:18011', description: 'host:port of the worker listener (loopback only)' },
  GOVERNANCE_OPERATOR_TOKEN: { type: 'secret', description: 'Operator bearer token(s) for the worker listener, comma-separated for rotation' },
  GOVERNANCE_BFF_TOKEN: { type: 'secret', description: 'Token of the one BFF consumer admitted to create_session and answer_turn, and to read its planning sessions' },
  GOVERNANCE_MAIL_PRODUCER_TOKEN: { type: 'secret', description: 'Token of the mail-management producer: writes administrator truth (worker listener)' },
  GOVERNANCE_MAIL_CONSUMER_TOKEN: { type: 'secret', description: 'Token of the mail-management consumer: reads decisions, mail admissions and revocations' },
  GOVERNANCE_ENTITLEMENT_PRODUCER_TOKEN: { type: 'secret', description: 'Token of the product-entitlement producer: writes entitlement truth (worker listener)' },
  GOVERNANCE_ENTITLEMENT_CONSUMER_TOKEN: { type: 'secret', description: 'Token of the product-entitlement consumer: reads entitlement decisions' },
  GOVERNANCE_GIT_HOST_WEBHOOK_SECRET: { type: 'secret', description: 'HMAC secret(s) of the git-host webhook (X-Hub-Signature-256), comma-separated for rotation' },
  GOVERNANCE_MAIL_ADMISSION_KEY_FILE: { type: 'string', description: 'Ed25519 signing key of mail admissions (JWK, mode 0600); when unset, <AIRLOCK_DATA_DIR>/governance-mail-admission-key.json is created at first start' },
  GOVERNANCE_MAIL_ADMISSION_FILE: { type: 'string', description: 'The materialized mail-admission file the admission readback serves (default <AIRLOCK_DATA_DIR>/mail-admission.json, where materialize_mail_admission --apply writes it)' },
  AIRLOCK_DATA_DIR: { type: 'string', default: './var', description: 'Directory of governance.sqlite' },
  GOVERNANCE_ROOT: { type: 'string', description: 'Install root holding contracts/, configs/, docs/ and governance-manifest.json' },
  GOVERNANCE_CONTRACTS_DIR: { type: 'string', description: 'Directory of the governance contract artifacts (default <root>/contracts/governance)' },
  GOVERNANCE_MANIFEST_PATH: { type: 'string', description: 'Path of governance-manifest.json (default <root>/governance-manifest.json)' },
  GOVERNANCE_SEMANTIC_CONTRACTS_DIR: { type: 'string', description: 'Directory of the semantic service contracts (default <root>/contracts)' },
  GOVERNANCE_CRM_UPSTREAM_URL: { type: 'url', description: 'Base URL of the CRM adapter that answers context-capability assertions' },
  GOVERNANCE_CRM_KNOWN_COMPANIES: { type: 'list', description: 'Admitted tenant_id/company_id pairs, comma-separated; any other company is denied before the upstream' },
  GOVERNANCE_CRM_TIMEOUT_MS: { type: 'int', default: 2000, min: 100, max: 30_000, description: 'Timeout of one CRM upstream call' },
  GOVERNANCE_DRY_RUN_PROBE_TIMEOUT_MS: { type: 'int', default: 3000, min: 100, max: 30_000, description: 'Admission dry-run step 5: time limit of the live-target probe' },
  GOVERNANCE_DRY_RUN_VERIFY_TIMEOUT_MS: { type: 'int', default: 30_000, min: 100, max: 300_000, description: 'Admission dry-run step 5: time limit of a shipped verify command' },
} as const satisfies ConfigSpec;

/** Bearer-token lanes: each has its own token and is refused on the others' routes. */
export const LANE_VARIABLES = {
  operator: 'GOVERNANCE_OPERATOR_TOKEN',
  bff: 'GOVERNANCE_BFF_TOKEN',
  mail_producer: 'GOVERNANCE_MAIL_PRODUCER_TOKEN',
  mail_consumer: 'GOVERNANCE_MAIL_CONSUMER_TOKEN',
  entitlement_producer: 'GOVERNANCE_ENTITLEMENT_PRODUCER_TOKEN',
  entitlement_consumer: 'GOVERNANCE_ENTITLEMENT_CONSUMER_TOKEN',
} as const;
export type Lane = keyof typeof LANE_VARIABLES;
export const LANES = Object.keys(LANE_VARIABLES) as Lane[];

export const DEFAULT_SIGNING_KEY_FILE = 'governance-mail-admission-key.json';

export interface GovernanceConfig {
  /** The role the process runs as; `unknown` when neither --role nor the variable says. */
  role: DeploymentRole | 'unknown';
  /** The listeners this role runs. */
  listeners: Partial<Record<ListenerName, ListenAddress>>;
  /** Both listeners' configured addresses, whichever this role runs (a dry run verifies the other role's too). */
  addresses: Record<ListenerName, ListenAddress>;
  /** Accepted operator tokens; empty when none is configured (the worker then refuses everyone). */
  operatorTokens: readonly string[];
  /** Accepted tokens of every lane (the operator's included); a lane without tokens admits nobody. */
  laneTokens: Readonly<Record<Lane, readonly string[]>>;
  /** HMAC secrets of the git-host webhook; empty: every delivery is refused. */
  gitHostSecrets: readonly string[];
  /** The materialized mail-admission file (materialize_mail_admission --apply). */
  mailAdmissionFile: string;
  /** The mail-admission signing key: its file, and whether a missing file may be created (only the default one). */
  signingKey: { file: string; create: boolean };
  dataDir: string;
  paths: {
    root: string;
    contractsDir: string;
    manifest: string;
    stackContract: string;
    openapi: string;
    semanticContractsDir: string;
  };
  crm: { upstreamUrl: string | undefined; knownCompanies: readonly string[]; timeoutMs: number };
  /** Admission dry-run step 5: time limits of the live-target probe and of a shipped verify command. */
  dryRun: { probeTimeoutMs: number; verifyTimeoutMs: number };
  /** Values to redact from every log line. */
  secrets: readonly string[];
}

export const ROLE_LISTENERS: Record<DeploymentRole | 'unknown', readonly ListenerName[]> = {
  'platform-api': [PLATFORM_LISTENER],
  'control-api': [WORKER_LISTENER],
  test: [PLATFORM_LISTENER, WORKER_LISTENER],
  unknown: [PLATFORM_LISTENER, WORKER_LISTENER],
};

/**
 * Reads --role from `argv` and everything else from `env`. Throws AirlockError `usage` for a bad
 * argument and `config_invalid` listing every configuration problem.
 */
export function readGovernanceConfig(options: { env?: NodeJS.ProcessEnv; argv?: readonly string[] } = {}): GovernanceConfig {
  const env = options.env ?? process.env;
  const flagRole = parseRoleFlag(options.argv ?? []);
  const values = readConfig(GOVERNANCE_CONFIG, env);
  const role = flagRole ?? values.GOVERNANCE_DEPLOYMENT_ROLE ?? 'unknown';
  const split = (value: string | undefined) => (value ?? '').split(',').map((t) => t.trim()).filter((t) => t !== '');
  const laneTokens = Object.fromEntries(LANES.map((lane) => [lane, split(values[LANE_VARIABLES[lane]])])) as Record<Lane, string[]>;
  const operatorTokens = laneTokens.operator;
  const listenerNames = ROLE_LISTENERS[role];
  const problems: string[] = [];
  const owners = new Map<string, Lane>();
  for (const lane of LANES) {
    for (const token of laneTokens[lane]) {
      const other = owners.get(token);
      if (other !== undefined && other !== lane) problems.push(`${LANE_VARIABLES[lane]}: shares a token with ${LANE_VARIABLES[other]}; each lane needs its own token`);
      owners.set(token, lane);
    }
  }
  if (listenerNames.includes(WORKER_LISTENER)) {
    if (!isLoopbackHost(values.GOVERNANCE_WORKER_LISTEN.host)) {
      problems.push(`GOVERNANCE_WORKER_LISTEN: host "${values.GOVERNANCE_WORKER_LISTEN.host}" is not loopback; the worker listener is loopback-only`);
    }
    if (role !== 'unknown' && operatorTokens.length === 0) {
      problems.push(`GOVERNANCE_OPERATOR_TOKEN: missing; role "${role}" runs the worker listener, set GOVERNANCE_OPERATOR_TOKEN or GOVERNANCE_OPERATOR_TOKEN_FILE`);
    }
  }
  for (const pair of values.GOVERNANCE_CRM_KNOWN_COMPANIES ?? []) {
    if (!/^[^/\s]+\/[^/\s]+$/.test(pair)) problems.push(`GOVERNANCE_CRM_KNOWN_COMPANIES: "${pair}" is not tenant_id/company_id`);
  }
  if (problems.length > 0) {
    throw new AirlockError('config_invalid', `Invalid configuration: ${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}`, { details: problems });
  }
  const root = resolve(values.GOVERNANCE_ROOT ?? DEFAULT_ROOT);
  const dataDir = resolve(values.AIRLOCK_DATA_DIR);
  const keyFile = values.GOVERNANCE_MAIL_ADMISSION_KEY_FILE;
  const listen = { [PLATFORM_LISTENER]: values.GOVERNANCE_PLATFORM_LISTEN, [WORKER_LISTENER]: values.GOVERNANCE_WORKER_LISTEN };
  return {
    role,
    listeners: Object.fromEntries(listenerNames.map((name) => [name, listen[name]])),
    addresses: listen,
    operatorTokens,
    laneTokens,
    gitHostSecrets: split(values.GOVERNANCE_GIT_HOST_WEBHOOK_SECRET),
    mailAdmissionFile: resolve(values.GOVERNANCE_MAIL_ADMISSION_FILE ?? join(dataDir, 'mail-admission.json')),
    signingKey: keyFile === undefined ? { file: join(dataDir, DEFAULT_SIGNING_KEY_FILE), create: true } : { file: resolve(keyFile), create: false },
    dataDir,
    paths: {
      root,
      contractsDir: resolve(values.GOVERNANCE_CONTRACTS_DIR ?? join(root, 'contracts', 'governance')),
      manifest: resolve(values.GOVERNANCE_MANIFEST_PATH ?? join(root, 'governance-manifest.json')),
      stackContract: join(root, 'configs', 'stack-contract.json'),
      openapi: join(root, 'contracts', 'api', 'governance_openapi_v1.json'),
      semanticContractsDir: resolve(values.GOVERNANCE_SEMANTIC_CONTRACTS_DIR ?? join(root, 'contracts')),
    },
    dryRun: { probeTimeoutMs: values.GOVERNANCE_DRY_RUN_PROBE_TIMEOUT_MS, verifyTimeoutMs: values.GOVERNANCE_DRY_RUN_VERIFY_TIMEOUT_MS },
    crm: {
      upstreamUrl: values.GOVERNANCE_CRM_UPSTREAM_URL,
      knownCompanies: values.GOVERNANCE_CRM_KNOWN_COMPANIES ?? [],
      timeoutMs: values.GOVERNANCE_CRM_TIMEOUT_MS,
    },
    secrets: secretValues(GOVERNANCE_CONFIG, values),
  };
}

function parseRoleFlag(argv: readonly string[]): DeploymentRole | undefined {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: { role: { type: 'string' } }, strict: true, allowPositionals: false });
  } catch (error) {
    throw new AirlockError('usage', `Invalid arguments: ${(error as Error).message}`, { cause: error });
  }
  const role = parsed.values.role;
  if (role === undefined) return undefined;
  if (!(DEPLOYMENT_ROLES as readonly string[]).includes(role)) {
    throw new AirlockError('usage', `Invalid --role "${role}": use ${DEPLOYMENT_ROLES.join(', ')}`);
  }
  return role as DeploymentRole;
}
