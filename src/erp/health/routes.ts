// The health slice: health.integration_status (Frappe envelope, no auth), /healthz
// (application/health+json) and /capability-inventory. There is no /version route: version truth
// is in integration_status (seed 002 "Versioning").

import { health, HEALTH_TYPE, json, replicationHealthCheck, userVersion } from '../../kernel/index.ts';
import type { HealthCheck } from '../../kernel/index.ts';
import { frappeMessage } from '../frappe/envelope.ts';
import type { DepsRef, ErpRoute } from '../erp-route.ts';
import { methodPath } from '../identity.ts';
import { capabilityInventory } from './capability-inventory.ts';
import { integrationStatus } from './integration-status.ts';

export const HEALTHZ_PATH = '/healthz';
export const INVENTORY_PATH = '/capability-inventory';
export const STATUS_PATH = methodPath('health.integration_status');

export function healthRoutes(deps: DepsRef): ErpRoute[] {
  const probe = { family: 'health', stability: 'stable', method: 'GET', auth: 'none', etag: false } as const;
  return [
    { ...probe, path: STATUS_PATH, summary: 'Runtime and integration-status snapshot: database, evidence chain heads, last intake per source, backlog, secrets present, version truth', handler: () => frappeMessage(integrationStatus(deps())) },
    {
      ...probe,
      path: HEALTHZ_PATH,
      summary: 'Liveness, database reachability and, when on, evidence replication lag (application/health+json)',
      responses: [{ status: 200, description: 'Pass or warn', contentType: HEALTH_TYPE, schema: { type: 'object', required: ['status', 'version', 'checks'] } }, { status: 503, description: 'Fail: the database does not answer, or evidence replication stopped or is refused', contentType: HEALTH_TYPE, schema: { type: 'object', required: ['status', 'version', 'checks'] } }],
      handler: () => {
        let database: HealthCheck;
        try {
          database = { status: 'pass', observedValue: userVersion(deps().store.sqlite), observedUnit: 'schema_version' };
        } catch (error) {
          database = { status: 'fail', output: `database unreachable: ${(error as Error).message}` };
        }
        const replication = deps().store.replication();
        return health({ version: deps().version, checks: { 'erp:database': [database], ...(replication && { 'evidence:replication': [replicationHealthCheck(replication)] }) } });
      },
    },
    { ...probe, path: INVENTORY_PATH, summary: 'Every endpoint with method, auth and stability label, generated from the route table', handler: () => json(capabilityInventory(deps().routes(), deps().version)) },
  ];
}
