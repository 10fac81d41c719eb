// The artifact registry and the schema catalog, computed from what was loaded at start: every
// artifact with its id, version and SHA-256, every schema served by its id.

import { json, problem } from '../../kernel/index.ts';
import type { Reply, RequestContext } from '../../kernel/index.ts';
import type { GovernanceRuntime } from '../runtime.ts';

export function registryReply(runtime: GovernanceRuntime): Reply {
  const artifacts = [...runtime.artifacts.artifacts.values()].map((a) => ({
    id: a.id,
    version: a.version ?? null,
    sha256: a.sha256 ?? null,
    file: `contracts/governance/${a.file}`,
    schema: a.schemaId ?? null,
    state: a.state,
    ...(a.state !== 'valid' && { reasons: a.reasons.slice(0, 20) }),
  }));
  return json({ artifacts, count: artifacts.length, valid: artifacts.filter((a) => a.state === 'valid').length });
}

export function schemasReply(runtime: GovernanceRuntime): Reply {
  return json({
    schemas: [...runtime.artifacts.schemas.values()].map((s) => ({ id: s.id, short_id: s.shortId, sha256: s.sha256, file: `contracts/governance/${s.file}`, ok: s.ok, route: `/api/v1/contracts/schemas/${s.shortId}`, ...(!s.ok && { reasons: s.reasons }) })),
  });
}

/** GET /api/v1/contracts/schemas/{schema_id}: the schema document, by short id or full $id. */
export function schemaReply(runtime: GovernanceRuntime, request: RequestContext): Reply {
  const wanted = request.params['schema_id'] ?? '';
  const schema = [...runtime.artifacts.schemas.values()].find((s) => s.shortId === wanted || s.id === wanted);
  if (!schema) return problem(404, 'Unknown schema', { detail: `No schema "${wanted}": see /api/v1/contracts/schemas` });
  if (!schema.ok) return problem(503, 'Schema unavailable', { type: 'contract-truth-unavailable', detail: `Schema "${schema.shortId}" is unusable: ${schema.reasons[0] ?? ''}`, extensions: { projection_state: 'fail_closed', reason: 'schema_invalid' } });
  return { status: 200, body: schema.document, contentType: 'application/schema+json' };
}
