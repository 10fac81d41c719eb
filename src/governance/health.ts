// GET /health (outside /api/v1): liveness with the seed's fields, status, service and
// deployment_role, plus the database and artifact checks behind them.

import { health, replicationHealthCheck } from '../kernel/index.ts';
import type { Reply } from '../kernel/index.ts';
import { checkDatabase } from './database.ts';
import { routeArtifacts } from './routing/read-route.ts';
import { SERVICE_NAME } from './identity.ts';
import type { GovernanceRuntime } from './runtime.ts';

export const HEALTH_SCHEMA = {
  type: 'object',
  required: ['status', 'service', 'deployment_role', 'version', 'checks'],
  properties: {
    status: { enum: ['pass', 'warn', 'fail'] },
    service: { const: SERVICE_NAME },
    deployment_role: { enum: ['control-api', 'platform-api', 'test', 'unknown'] },
    version: { type: 'string' },
    checks: { type: 'object' },
  },
} as const;

/** pass; warn when some artifact fails closed (its routes answer 503); fail when the database is gone. */
export function healthReply(runtime: GovernanceRuntime): Reply {
  const database = checkDatabase(runtime.store);
  // Every artifact a route publishes or uses counts, so a deleted file shows here as well as a broken one.
  const expected = new Set([
    ...runtime.artifacts.artifacts.keys(),
    ...runtime.reads.flatMap(routeArtifacts),
  ]);
  const replication = runtime.store.replication();
  const broken = [...expected].sort().filter((id) => runtime.artifacts.get(id).state !== 'valid');
  return health({
    version: runtime.version,
    extra: { service: SERVICE_NAME, deployment_role: runtime.config.role },
    checks: {
      'database:migrated': [{ status: database.ok ? 'pass' : 'fail', ...(!database.ok && { output: database.reasons.join('; ') }) }],
      ...(replication && { 'evidence:replication': [replicationHealthCheck(replication)] }),
      'artifacts:valid': [{ status: broken.length === 0 ? 'pass' : 'warn', observedValue: expected.size, ...(broken.length > 0 && { output: `failing closed: ${broken.join(', ')}` }) }],
    },
  });
}
