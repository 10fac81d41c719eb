// Embedded defaults for `npm start`: generated dev tokens kept in var/dev-secrets.json (mode
// 0600, other services' entries preserved), a consumer tokens file for the three admitted
// consumers, a sample runtime-owner artifact, an allowlist with one sample case ref, and one
// working curl line per endpoint group. Tokens never appear in the curl lines: each line reads
// its token from the secrets file when it runs.

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeFileAtomic } from '../kernel/index.ts';
import { isObject } from './_json.ts';
import { CONSUMER_MATRIX } from './cdc-matrix.ts';
import { DEFAULT_LISTEN } from './config.ts';
import { CONTEXT_PATH, FIXTURE_PREFIX, PROJECTION_PATH, STATUS_PATH, TOPOLOGY_PATH } from './routes.ts';

export const DEV_SECRETS_FILE = 'dev-secrets.json';
export const DEV_CASE_REF = 'ts02:sample-case-001';

interface SemanticDevSecrets {
  operator_token: string;
  consumer_tokens: Record<string, string>;
}

/**
 * Prepares `varDir` and returns the environment of the semantic executables and the curl lines
 * to print. Calling it again keeps the tokens and files it made.
 *
 * @example
 * const { env, curl } = semanticDevDefaults('var');
 */
export function semanticDevDefaults(varDir: string, options: { listen?: string } = {}): { env: Record<string, string>; curl: string[] } {
  const dir = resolve(varDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const secretsPath = join(dir, DEV_SECRETS_FILE);
  const secrets = ensureSecrets(secretsPath);
  const tokensPath = join(dir, 'semantic-consumer-tokens.json');
  writeFileAtomic(tokensPath, `${JSON.stringify(secrets.consumer_tokens, null, 2)}\n`, { mode: 0o600 });
  const artifactPath = join(dir, 'semantic-runtime-owner.json');
  if (!existsSync(artifactPath)) writeFileSync(artifactPath, `${JSON.stringify(sampleArtifact(), null, 2)}\n`, { mode: 0o600 });
  const listen = options.listen ?? DEFAULT_LISTEN;
  const env = {
    SEMANTIC_LISTEN: listen,
    SEMANTIC_OPERATOR_TOKEN: secrets.operator_token,
    SEMANTIC_CONSUMER_TOKENS_FILE: tokensPath,
    SEMANTIC_PROJECTION_CASE_ALLOWLIST: DEV_CASE_REF,
    SEMANTIC_RUNTIME_OWNER_ARTIFACT: artifactPath,
    SEMANTIC_CANARY_TENANT_ID: 'dev-canary-tenant',
  };
  return { env, curl: curlLines(`http://${listen}`, secretsPath) };
}

function ensureSecrets(path: string): SemanticDevSecrets {
  let all: unknown = {};
  if (existsSync(path)) {
    try {
      all = JSON.parse(readFileSync(path, 'utf8'));
    } catch {
      // The parser's message would quote the file, tokens and all.
      throw new TypeError(`Dev secrets file "${path}" is not JSON: remove it to regenerate`);
    }
  }
  if (!isObject(all)) throw new TypeError(`Dev secrets file "${path}" does not hold a JSON object: remove it to regenerate`);
  const current = isObject(all['semantic']) ? all['semantic'] : {};
  const consumers = isObject(current['consumer_tokens']) ? (current['consumer_tokens'] as Record<string, string>) : {};
  const admitted = CONSUMER_MATRIX.filter((c) => c.status === 'admitted').map((c) => c.consumer);
  const semantic: SemanticDevSecrets = {
    operator_token: typeof current['operator_token'] === 'string' ? current['operator_token'] : newToken(),
    consumer_tokens: Object.fromEntries(admitted.map((consumer) => [consumer, typeof consumers[consumer] === 'string' ? consumers[consumer] : newToken()])),
  };
  writeFileAtomic(path, `${JSON.stringify({ ...all, semantic }, null, 2)}\n`, { mode: 0o600 });
  return semantic;
}

function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/** Writes through a temporary file so a reader never sees half a file; mode 0600 either way. */

function sampleArtifact(): Record<string, unknown> {
  return {
    artifact: 'semantic_runtime_owner',
    version: 1,
    sample: true,
    runtime_owner: 'npm-start sample (replace with the runtime owner\'s artifact)',
    environment: 'development',
    generated_at: '2026-01-01T00:00:00Z',
    topology_metrics: {
      graph_nodes_total: 0,
      graph_edges_total: 0,
      hidden_edges_total: 0,
      isolation_domains_active: 0,
      tenant_compartments_active: 0,
    },
    runtime_metrics: {},
  };
}

function curlLines(base: string, secretsPath: string): string[] {
  const token = (expression: string) => `$(node -p 'require(process.argv[1]).semantic.${expression}' ${shellQuote(secretsPath)})`;
  const operator = `-H "X-Semantic-Operator-Token: ${token('operator_token')}"`;
  const consumer = `-H "Authorization: Bearer ${token('consumer_tokens["live-runtime-contract-check"]')}"`;
  const post = (path: string, body: unknown) => `curl -sS ${operator} -H 'Content-Type: application/json' -d ${shellQuote(JSON.stringify(body))} ${base}${path}`;
  return [
    `curl -sS ${base}/readyz`,
    `curl -sS ${consumer} ${base}${STATUS_PATH}`,
    `curl -sS ${consumer} ${base}${CONTEXT_PATH}`,
    `curl -sS ${operator} ${base}${TOPOLOGY_PATH}`,
    post(PROJECTION_PATH, { correlation_id: 'demo-1', source_event_id: 'demo-event-1', case_ref: DEV_CASE_REF }),
    post(`${FIXTURE_PREFIX}/deletion-restore`, { fixture_id: 'deletion-restore.subject-001', scope_type: 'subject' }),
  ];
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
