// Platform truth computed from what the process read at start: version truth, the projection
// catalog, the capability list and the tool and policy metrics.

import { json } from '../../kernel/index.ts';
import type { Reply } from '../../kernel/index.ts';
import { computeDrift } from '../contracts/drift.ts';
import { toolRegistry } from '../contracts/crossrefs.ts';
import { CAPABILITIES, familyOf, OPENAPI_INFO, SERVICE_NAME } from '../identity.ts';
import { artifactMember, routeArtifacts, splitRef } from '../routing/read-route.ts';
import type { GovernanceRuntime } from '../runtime.ts';

export function versionTruthReply(runtime: GovernanceRuntime): Reply {
  return json({
    service: SERVICE_NAME,
    version: runtime.version,
    version_source: 'tag v0.x.y at HEAD, else 0.0.0+<short sha>; baked into bundles at build time',
    api_base: '/api/v1',
    openapi_info_version: OPENAPI_INFO.version,
    node: process.version,
    manifest_version: runtime.manifest.ok ? runtime.manifest.document.manifest_version : null,
    stack_contract_version: runtime.stackContract.ok ? runtime.stackContract.document.contract_version : null,
    artifacts: [...runtime.artifacts.artifacts.values()].map((a) => ({ id: a.id, version: a.version ?? null, state: a.state, sha256: a.sha256 ?? null })),
  });
}

/** How each read route is projected: a published member (with its state), or a computation. */
export function projectionCatalogReply(runtime: GovernanceRuntime): Reply {
  const projections = runtime.reads.map((read) => {
    const artifacts = routeArtifacts(read).map((id) => runtime.artifacts.get(id));
    const broken = artifacts.find((a) => a.state !== 'valid');
    const member = read.publish ? artifactMember(runtime, read.publish) : undefined;
    return {
      route: read.path,
      family: familyOf(read.path),
      source: read.publish ?? 'computed',
      uses: read.uses ?? [],
      projection_state: broken && read.gate !== false ? 'fail_closed' : (member?.projection_state ?? 'computed'),
    };
  });
  const counts: Record<string, number> = {};
  for (const p of projections) counts[p.projection_state] = (counts[p.projection_state] ?? 0) + 1;
  return json({ projections, counts });
}

export function capabilitiesReply(runtime: GovernanceRuntime): Reply {
  const declared = runtime.manifest.ok ? (runtime.manifest.document.services.find((s) => s.service === SERVICE_NAME)?.capabilities ?? []) : [];
  return json({
    service: SERVICE_NAME,
    capabilities: Object.entries(CAPABILITIES).map(([id, description]) => {
      const reads = runtime.reads.filter((r) => r.capability === id);
      const writes = runtime.writes.filter((w) => w.capability === id);
      const failing = [
        ...reads.filter((r) => r.gate !== false && routeArtifacts(r).some((a) => runtime.artifacts.get(a).state !== 'valid')).map((r) => r.path),
        ...writes.filter((w) => (w.uses ?? []).some((ref) => runtime.artifacts.get(splitRef(ref).artifact).state !== 'valid')).map((w) => `POST ${w.path}`),
      ];
      const routes = [...reads.map((r) => r.path), ...writes.map((w) => `POST ${w.path}`)];
      return { id, description, declared_in_manifest: declared.includes(id), routes, state: failing.length === 0 ? 'enabled' : 'degraded', failing_closed: failing };
    }),
  });
}

/** GET /api/v1/monitoring/metrics: tool and policy metrics as counts, computed from the artifacts. */
export function metricsReply(runtime: GovernanceRuntime): Reply {
  const tools = toolRegistry(runtime) ?? [];
  const count = (values: string[]) => Object.fromEntries([...new Set(values)].sort().map((v) => [v, values.filter((x) => x === v).length]));
  const artifacts = [...runtime.artifacts.artifacts.values()];
  const members = artifacts.flatMap((a) => (a.document ? Object.values(a.document.content) : []));
  const readiness = runtime.reads.filter((r) => r.capability === 'readiness-publication').length;
  const policies = (artifactMember(runtime, 'operations_posture/security')?.['controls'] ?? []) as unknown[];
  return json({
    tools: { total: tools.length, by_state: count(tools.map((t) => t.state)), by_capability_class: count(tools.map((t) => t.capability_class)), assertable: tools.filter((t) => t.assertable).length },
    policies: {
      artifacts: artifacts.length,
      artifacts_valid: artifacts.filter((a) => a.state === 'valid').length,
      artifacts_failing_closed: artifacts.filter((a) => a.state !== 'valid').length,
      schemas: runtime.artifacts.schemas.size,
      members_by_projection_state: count(members.map((m) => m.projection_state)),
      security_controls: policies.length,
      drift_entries: computeDrift(runtime).length,
    },
    routes: { read_routes: runtime.reads.length, readiness_routes: readiness, listeners: [...new Set(runtime.routes.map((r) => r.listener ?? 'main'))].sort() },
  });
}
