// Readiness routes: each runs the checks its artifact member names (`readiness_checks`, or the
// `criteria` of production readiness) plus the validity of that artifact, and answers
// application/health+json, 200 when ready and 503 when not. "Ready" speaks for this service's
// publication of the subsystem; `subsystem_state` says whether the subsystem itself runs.

import { health, HEALTH_TYPE } from '../kernel/index.ts';
import type { HealthCheck, Reply } from '../kernel/index.ts';
import { runChecks, worstOf } from './checks.ts';
import { artifactMember, splitRef } from './read-route.ts';
import type { ReadRoute } from './read-route.ts';
import type { GovernanceRuntime } from './runtime.ts';

export const READINESS_SCHEMA = {
  type: 'object',
  required: ['status', 'version', 'subsystem', 'ready', 'subsystem_state', 'checks'],
  properties: {
    status: { enum: ['pass', 'warn', 'fail'] },
    version: { type: 'string' },
    subsystem: { type: 'string' },
    ready: { type: 'boolean' },
    subsystem_state: { type: 'string' },
    checks: { type: 'object', additionalProperties: { type: 'array', items: { type: 'object', required: ['status'] } } },
  },
} as const;

const NOT_READY = [{ status: 503, description: 'Not ready: at least one check failed (the body says which)', schema: READINESS_SCHEMA, contentType: HEALTH_TYPE }];

/** A `.../readiness` route for `subsystem`, running the checks of artifact member `ref`. */
/** Subsystem states that mean the owner's truth is missing: such a subsystem is never ready. */
const OWNERLESS_STATES = new Set(['awaiting_transport_owner', 'fail_closed']);

export function readinessRoute(path: string, subsystem: string, ref: string): ReadRoute {
  return healthRoute(path, `Readiness of ${subsystem}: database, artifacts and dependencies, checked now`, ref, async (runtime) => {
    const member = artifactMember(runtime, ref);
    const names = Array.isArray(member?.['readiness_checks']) ? (member['readiness_checks'] as string[]) : [];
    return readinessReply(runtime, subsystem, ref, await runChecks(runtime, names));
  });
}

/** A production-readiness route: one check per criterion of artifact member `ref`. */
export function productionReadinessRoute(path: string, subsystem: string, ref: string): ReadRoute {
  return healthRoute(path, `Production readiness of the ${subsystem}: each criterion checked now`, ref, async (runtime) => {
    const criteria = (artifactMember(runtime, ref)?.['criteria'] ?? []) as { criterion: string; check: string }[];
    const results = await runChecks(runtime, criteria.map((c) => c.check));
    const checks: Record<string, HealthCheck[]> = {};
    for (const { criterion, check } of criteria) checks[check] = (results[check] ?? []).map((c) => ({ ...c, criterion }));
    return readinessReply(runtime, subsystem, ref, checks);
  });
}

/** A health+json read route that reports its artifact's state instead of failing closed. */
function healthRoute(path: string, summary: string, ref: string, compute: (runtime: GovernanceRuntime) => Promise<Reply>): ReadRoute {
  return { path, summary, capability: 'readiness-publication', uses: [ref], gate: false, schema: READINESS_SCHEMA, contentType: HEALTH_TYPE, responses: NOT_READY, compute };
}

function readinessReply(runtime: GovernanceRuntime, subsystem: string, ref: string, checks: Record<string, HealthCheck[]>): Reply {
  const { artifact: id } = splitRef(ref);
  const artifact = runtime.artifacts.get(id);
  const member = artifactMember(runtime, ref);
  const state = member?.projection_state ?? 'fail_closed';
  const all: Record<string, HealthCheck[]> = {
    [`artifact:${id}`]: [artifact.state === 'valid' ? { status: 'pass', observedValue: artifact.version } : { status: 'fail', output: `${artifact.file} is ${artifact.state}: ${artifact.reasons[0] ?? ''}` }],
    // Missing owner truth is not ready (seed 001: fail closed), whatever the other checks say.
    ...(OWNERLESS_STATES.has(String(state)) && { [`owner:${subsystem}`]: [{ status: 'fail', output: `subsystem state is "${String(state)}": the owner service is not connected, so nothing here can be ready` }] }),
    ...checks,
  };
  const status = worstOf(all);
  return health({
    version: runtime.version,
    status,
    checks: all,
    extra: { subsystem, ready: status !== 'fail', subsystem_state: state },
  });
}
