// Configuration of the semantic API and worker, from environment variables. readConfig lists
// every problem at once; loadApiConfig adds the checks that need more than one variable or a
// file (allowlist prefixes, loopback upstreams, the consumer tokens file) to the same list.

import { join } from 'node:path';
import { AirlockError, isAirlockError, isLoopbackHost, readConfig } from '../kernel/index.ts';
import type { ConfigSpec, ConfigValues, ListenAddress } from '../kernel/index.ts';
import { MIN_CONSUMER_TOKEN_LENGTH, readConsumerTokens } from './consumer-tokens.ts';
import type { ConsumerToken } from './consumer-tokens.ts';

export const ACTIVATION_STAGES = ['S0', 'S1_read_only', 'stage_2'] as const;
export type ActivationStage = (typeof ACTIVATION_STAGES)[number];

export const CASE_REF_PREFIX = 'ts02:';
/** DESIGN.md and seed 000: receipts live at most one hour. */
export const MAX_RECEIPT_TTL_SECONDS = 3600;
export const DEFAULT_LISTEN = '127.0.0.1:18020';
export const DATABASE_FILE = 'semantic.sqlite';

export const DATA_SPEC = {
  AIRLOCK_DATA_DIR: { type: 'string', default: './var', description: `Directory of the control database ${DATABASE_FILE}` },
} as const;

export const API_SPEC = {
  ...DATA_SPEC,
  SEMANTIC_LISTEN: { type: 'listen', default: DEFAULT_LISTEN, description: 'host:port of the semantic API (loopback unless AIRLOCK_ALLOW_NON_LOOPBACK=1)' },
  SEMANTIC_OPERATOR_TOKEN: { type: 'secret', required: true, description: 'Value of the X-Semantic-Operator-Token header (comma-separated values rotate)' },
  SEMANTIC_CONSUMER_TOKENS_FILE: { type: 'string', description: 'JSON file: consumer id -> bearer token, for status and context readback' },
  SEMANTIC_PROJECTION_CASE_ALLOWLIST: { type: 'list', description: 'Admitted ts02: case refs; absent or empty: projection verification answers 503' },
  SEMANTIC_ACTIVATION_STAGE: { type: 'enum', values: ACTIVATION_STAGES, default: 'S0', description: 'Activation stage reported and applied' },
  SEMANTIC_RUNTIME_OWNER_ARTIFACT: { type: 'string', description: 'Path of the runtime-owner JSON artifact (topology and runtime metrics)' },
  SEMANTIC_MONITORING_PROFILE: { type: 'string', default: 'loopback-readback', description: 'Name of the non-secret monitoring profile' },
  SEMANTIC_CANARY_TENANT_ID: { type: 'string', description: 'Non-secret id of the canary tenant' },
  SEMANTIC_MODEL_RUNTIME_URL: { type: 'url', description: 'Base URL of the local model runtime (GET /readyz, /v1/models, POST /v1/embeddings)' },
  SEMANTIC_VECTOR_STORE_URL: { type: 'url', description: 'Base URL of the vector store (GET /readyz, collections, search)' },
  SEMANTIC_GOVERNANCE_URL: { type: 'url', description: 'Base URL of the governance service (GET /health, /api/v1/contracts/registry)' },
  SEMANTIC_ALLOW_NON_LOOPBACK_UPSTREAMS: { type: 'boolean', default: false, description: 'Admit upstream URLs that are not loopback' },
  SEMANTIC_RECEIPT_TTL_SECONDS: { type: 'int', default: 900, min: 1, max: MAX_RECEIPT_TTL_SECONDS, description: 'Lifetime of synthetic receipts (expires_at - issued_at)' },
} as const;

export const WORKER_SPEC = {
  ...DATA_SPEC,
  SEMANTIC_WORKER_BATCH: { type: 'int', default: 100, min: 1, max: 1000, description: 'Most inbox records one reconciliation run takes' },
  SEMANTIC_WORKER_INTERVAL_MS: { type: 'int', default: 2000, min: 50, max: 600_000, description: 'Pause between runs when the inbox is drained' },
} as const;

export type UpstreamName = 'model_runtime' | 'vector_store' | 'governance';

export interface ApiConfig {
  dataDir: string;
  databasePath: string;
  listen: ListenAddress;
  operatorTokens: readonly string[];
  consumerTokens: readonly ConsumerToken[];
  caseAllowlist: readonly string[];
  stage: ActivationStage;
  runtimeOwnerArtifact: string | undefined;
  monitoringProfile: string;
  canaryTenantId: string | undefined;
  upstreams: Readonly<Record<UpstreamName, string | undefined>>;
  receiptTtlSeconds: number;
}

const UPSTREAM_VARIABLES: Record<UpstreamName, keyof typeof API_SPEC> = {
  model_runtime: 'SEMANTIC_MODEL_RUNTIME_URL',
  vector_store: 'SEMANTIC_VECTOR_STORE_URL',
  governance: 'SEMANTIC_GOVERNANCE_URL',
};

/**
 * Reads the API's configuration; throws one AirlockError('config_invalid') listing every problem.
 *
 * @example
 * const config = loadApiConfig(process.env, { listen: '127.0.0.1:0' });
 */
export function loadApiConfig(env: NodeJS.ProcessEnv, overrides: { listen?: string } = {}): ApiConfig {
  const merged = overrides.listen === undefined ? env : { ...env, SEMANTIC_LISTEN: overrides.listen };
  const { values, problems } = readEach(API_SPEC, merged);
  for (const ref of values.SEMANTIC_PROJECTION_CASE_ALLOWLIST ?? []) {
    if (!ref.startsWith(CASE_REF_PREFIX) || ref.length === CASE_REF_PREFIX.length) {
      problems.push(`SEMANTIC_PROJECTION_CASE_ALLOWLIST: case ref "${ref}" must start with "${CASE_REF_PREFIX}" and name a case`);
    }
  }
  const upstreams = {} as Record<UpstreamName, string | undefined>;
  for (const [name, variable] of Object.entries(UPSTREAM_VARIABLES) as [UpstreamName, keyof typeof API_SPEC][]) {
    const url = values[variable] as string | undefined;
    upstreams[name] = url;
    if (url !== undefined && values.SEMANTIC_ALLOW_NON_LOOPBACK_UPSTREAMS !== true && !isLoopbackHost(new URL(url).hostname)) {
      problems.push(`${variable}: "${url}" is not a loopback URL; set SEMANTIC_ALLOW_NON_LOOPBACK_UPSTREAMS=1 to opt in`);
    }
  }
  let consumerTokens: ConsumerToken[] = [];
  if (values.SEMANTIC_CONSUMER_TOKENS_FILE !== undefined) {
    const read = readConsumerTokens(values.SEMANTIC_CONSUMER_TOKENS_FILE);
    problems.push(...read.reasons.map((reason) => `SEMANTIC_CONSUMER_TOKENS_FILE: ${reason}`));
    consumerTokens = read.tokens;
  }
  if (values.SEMANTIC_OPERATOR_TOKEN !== undefined) problems.push(...checkOperatorToken(values.SEMANTIC_OPERATOR_TOKEN, consumerTokens));
  if (problems.length > 0) {
    const noun = problems.length === 1 ? 'problem' : 'problems';
    throw new AirlockError('config_invalid', `Invalid configuration: ${problems.length} ${noun}`, { details: problems.sort() });
  }
  const all = values as ConfigValues<typeof API_SPEC>;
  return {
    dataDir: all.AIRLOCK_DATA_DIR,
    databasePath: join(all.AIRLOCK_DATA_DIR, DATABASE_FILE),
    listen: all.SEMANTIC_LISTEN,
    operatorTokens: [all.SEMANTIC_OPERATOR_TOKEN],
    consumerTokens,
    caseAllowlist: all.SEMANTIC_PROJECTION_CASE_ALLOWLIST ?? [],
    stage: all.SEMANTIC_ACTIVATION_STAGE,
    runtimeOwnerArtifact: all.SEMANTIC_RUNTIME_OWNER_ARTIFACT,
    monitoringProfile: all.SEMANTIC_MONITORING_PROFILE,
    canaryTenantId: all.SEMANTIC_CANARY_TENANT_ID,
    upstreams,
    receiptTtlSeconds: all.SEMANTIC_RECEIPT_TTL_SECONDS,
  };
}

/**
 * The operator token opens more than any consumer token, so it is at least as long, and no
 * consumer may hold it (a consumer would then be an operator). Reasons never quote a token.
 */
export function checkOperatorToken(value: string, consumerTokens: readonly ConsumerToken[]): string[] {
  const problems: string[] = [];
  value.split(',').map((v) => v.trim()).forEach((token, index, all) => {
    const which = all.length === 1 ? 'SEMANTIC_OPERATOR_TOKEN' : `SEMANTIC_OPERATOR_TOKEN: value ${index + 1} of ${all.length}`;
    if (token.length < MIN_CONSUMER_TOKEN_LENGTH) {
      problems.push(`${which} is shorter than ${MIN_CONSUMER_TOKEN_LENGTH} characters (the consumer-token minimum): generate a longer one`);
    }
    const holder = consumerTokens.find((c) => c.token === token);
    if (holder !== undefined) problems.push(`${which} equals the token of consumer "${holder.consumer}": give the operator a token of its own`);
  });
  return problems;
}

export interface WorkerConfig {
  databasePath: string;
  dataDir: string;
  batchSize: number;
  intervalMs: number;
}

/** Reads the worker's configuration; throws AirlockError('config_invalid') listing every problem. */
export function loadWorkerConfig(env: NodeJS.ProcessEnv): WorkerConfig {
  const values = readConfig(WORKER_SPEC, env);
  return {
    dataDir: values.AIRLOCK_DATA_DIR,
    databasePath: join(values.AIRLOCK_DATA_DIR, DATABASE_FILE),
    batchSize: values.SEMANTIC_WORKER_BATCH,
    intervalMs: values.SEMANTIC_WORKER_INTERVAL_MS,
  };
}

/**
 * readConfig() one variable at a time, so that checks across variables can still run on the
 * ones that parsed while every problem is collected. A refused variable is left undefined.
 */
function readEach<S extends ConfigSpec>(spec: S, env: NodeJS.ProcessEnv): { values: Partial<ConfigValues<S>>; problems: string[] } {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, varSpec] of Object.entries(spec)) {
    try {
      values[name] = readConfig({ [name]: varSpec }, env)[name];
    } catch (error) {
      if (!isAirlockError(error, 'config_invalid')) throw error;
      problems.push(...error.details);
    }
  }
  return { values: values as Partial<ConfigValues<S>>, problems };
}
