// Configuration of agent-context-api, from environment variables (DESIGN.md "Seed 002"): the
// listener, the internal bearer token, the governance service it projects authority from, and
// the service auth token its guarded live upstream context path presents there.

import { join } from 'node:path';
import { AirlockError, isLoopbackHost, readConfig } from '../kernel/index.ts';
import type { ListenAddress } from '../kernel/index.ts';

export const SERVICE_NAME = 'agent-context';
export const DEFAULT_LISTEN = '127.0.0.1:18050';
export const DATABASE_FILE = 'agent-context.sqlite';

export const CONFIG_SPEC = {
  AIRLOCK_DATA_DIR: { type: 'string', default: './var', description: `Directory of the evidence database ${DATABASE_FILE}` },
  AGENT_CONTEXT_LISTEN: { type: 'listen', default: DEFAULT_LISTEN, description: 'host:port of the listener (loopback unless AIRLOCK_ALLOW_NON_LOOPBACK=1)' },
  AGENT_CONTEXT_TOKEN: { type: 'secret', required: true, description: 'Bearer token of every internal route (comma-separated values rotate)' },
  AGENT_CONTEXT_SERVICE_AUTH_TOKEN: { type: 'secret', description: 'Bearer token presented to the governance worker listener (its operator token); unset: the live upstream context path and every write fail closed with 503' },
  GOVERNANCE_URL: { type: 'url', description: 'Base URL of the governance worker listener, e.g. http://127.0.0.1:18011; unset: governance truth is unavailable and what needs it fails closed' },
  AGENT_CONTEXT_ALLOW_NON_LOOPBACK_UPSTREAMS: { type: 'boolean', default: false, description: 'Admit a GOVERNANCE_URL that is not loopback' },
  AGENT_CONTEXT_UPSTREAM_TIMEOUT_MS: { type: 'int', default: 5000, min: 100, max: 60_000, description: 'Timeout of each call to the governance service' },
} as const;

export interface AgentContextConfig {
  dataDir: string;
  databasePath: string;
  listen: ListenAddress;
  tokens: readonly string[];
  /** Empty when unset: the live upstream path then fails closed. */
  serviceAuthToken: string;
  governanceUrl: string | undefined;
  upstreamTimeoutMs: number;
}

/**
 * Reads the configuration; throws one AirlockError('config_invalid') listing every problem.
 *
 * @example
 * const config = loadAgentContextConfig(process.env, { listen: '127.0.0.1:0' });
 */
export function loadAgentContextConfig(env: NodeJS.ProcessEnv, overrides: { listen?: string } = {}): AgentContextConfig {
  const merged = overrides.listen === undefined ? env : { ...env, AGENT_CONTEXT_LISTEN: overrides.listen };
  const values = readConfig(CONFIG_SPEC, merged);
  const governanceUrl = values.GOVERNANCE_URL;
  const tokens = values.AGENT_CONTEXT_TOKEN.split(',').map((t) => t.trim()).filter((t) => t !== '');
  const problems: string[] = [];
  // Set but only commas and blanks: no token at all, so every internal route would refuse everyone.
  if (tokens.length === 0) problems.push('AGENT_CONTEXT_TOKEN: holds no token (only commas and blanks); set one, or comma-separated ones to rotate');
  const upstream = governanceUrl === undefined ? undefined : new URL(governanceUrl);
  // fetch() refuses such a URL, and the reason, naming it, would reach the open /ready.
  if (upstream !== undefined && (upstream.username !== '' || upstream.password !== '')) {
    problems.push('GOVERNANCE_URL: credentials in the URL are not used (and would be shown where it is named); give the operator token in AGENT_CONTEXT_SERVICE_AUTH_TOKEN');
  } else if (upstream !== undefined && !values.AGENT_CONTEXT_ALLOW_NON_LOOPBACK_UPSTREAMS && !isLoopbackHost(upstream.hostname)) {
    problems.push(`GOVERNANCE_URL: "${governanceUrl}" is not a loopback URL; set AGENT_CONTEXT_ALLOW_NON_LOOPBACK_UPSTREAMS=1 to opt in`);
  }
  if (problems.length > 0) {
    throw new AirlockError('config_invalid', `Invalid configuration: ${problems.length} problem${problems.length === 1 ? '' : 's'}`, { details: problems });
  }
  return {
    dataDir: values.AIRLOCK_DATA_DIR,
    databasePath: join(values.AIRLOCK_DATA_DIR, DATABASE_FILE),
    listen: values.AGENT_CONTEXT_LISTEN,
    tokens,
    serviceAuthToken: (values.AGENT_CONTEXT_SERVICE_AUTH_TOKEN ?? '').trim(),
    governanceUrl,
    upstreamTimeoutMs: values.AGENT_CONTEXT_UPSTREAM_TIMEOUT_MS,
  };
}
