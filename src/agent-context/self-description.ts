// The open self-description routes: /health (liveness), /ready (readiness with warnings,
// capability keys and references to the other self-description routes), /version (the canonical
// version truth) and /governance-manifest.json (this service's own manifest entry).

import { buildGovernanceManifest, health, json, replicationHealthCheck } from '../kernel/index.ts';
import type { HealthCheck, Reply, Store } from '../kernel/index.ts';
import type { GovernanceClient } from './governance-client.ts';
import { CAPABILITIES, EXECUTABLE, SERVICE_NAME } from './identity.ts';
import { manifest } from './manifest.ts';

export const SELF_DESCRIPTION = {
  health: '/health',
  ready: '/ready',
  version: '/version',
  metrics: '/metrics',
  openapi: '/openapi.json',
  governance_manifest: '/governance-manifest.json',
} as const;

export function healthReply(version: string): Reply {
  return health({ version, checks: { process: [{ status: 'pass', output: `${SERVICE_NAME} answers` }] } });
}

export function versionReply(version: string): Reply {
  return json({ service: SERVICE_NAME, executable: EXECUTABLE, version, api: 'v1', node: process.version });
}

/** This service's entry of governance-manifest.json, exactly as `npm run contracts` writes it. */
export function manifestEntry(): Record<string, unknown> {
  return (buildGovernanceManifest([manifest])['services'] as Record<string, unknown>[])[0]!;
}

export async function readyReply(options: { version: string; store: () => Store; governance: GovernanceClient }): Promise<Reply> {
  const warnings: string[] = [];
  let database: HealthCheck;
  try {
    const owner = options.store().sqlite.prepare(`SELECT value FROM schema_info WHERE name = 'service'`).get()?.['value'];
    database = owner === SERVICE_NAME ? { status: 'pass' } : { status: 'fail', output: `schema_info names "${String(owner)}", expected "${SERVICE_NAME}"` };
  } catch (error) {
    database = { status: 'fail', output: `the database does not answer: ${(error as Error).message}` };
  }
  let governance: HealthCheck;
  if (!options.governance.configured) {
    governance = { status: 'warn', output: 'GOVERNANCE_URL or AGENT_CONTEXT_SERVICE_AUTH_TOKEN is not set: writes and the live upstream context path fail closed' };
  } else {
    const answer = await options.governance.truth('/health');
    governance = answer.ok ? { status: 'pass' } : { status: 'warn', output: `${answer.reason}: writes fail closed until it answers` };
  }
  if (governance.status !== 'pass') warnings.push(governance.output!);
  // With evidence replication on, its lag and state (docs/replication.md).
  let replication: HealthCheck | undefined;
  try {
    const status = options.store().replication();
    if (status !== undefined) replication = replicationHealthCheck(status);
  } catch {
    // The database check above already says why the store does not answer.
  }
  return health({
    version: options.version,
    checks: { database: [database], governance: [governance], ...(replication && { 'evidence:replication': [replication] }) },
    extra: { service: SERVICE_NAME, warnings, capabilities: [...CAPABILITIES], self_description: SELF_DESCRIPTION },
  });
}
