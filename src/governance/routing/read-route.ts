// A read route of the governance service as data: what it publishes (a member of a contract
// artifact, or a computation over artifacts, manifests and the database), which capability it
// serves, and what it answers. stampReadRoutes() turns the one list into kernel routes on both
// listeners, so no handler is written twice.

import { READ_SCHEMAS } from './read-schemas.ts';
import { json, JSON_TYPE, problem } from '../../kernel/index.ts';
import type { Reply, RequestContext, Route } from '../../kernel/index.ts';
import { PLATFORM_LISTENER, WORKER_LISTENER } from '../config.ts';
import { familyOf } from '../identity.ts';
import type { ArtifactMember, LoadedArtifact } from '../contracts/artifacts.ts';
import type { ReadDeclaration } from './route-declarations.ts';
import type { GovernanceRuntime } from '../runtime.ts';

export type Compute = (runtime: GovernanceRuntime, context: RequestContext) => Reply | Promise<Reply>;

/** A read route: its declaration, and either a member it publishes or the computation that answers it. */
export interface ReadRoute extends ReadDeclaration {
  compute?: Compute;
}

/** Splits `<artifact_id>/<member>`; the member keeps any further "/". */
export function splitRef(ref: string): { artifact: string; member: string } {
  const at = ref.indexOf('/');
  return at === -1 ? { artifact: ref, member: '' } : { artifact: ref.slice(0, at), member: ref.slice(at + 1) };
}

/** The artifact ids a read route publishes from or uses, in order, without repeats. */
export function routeArtifacts(read: ReadDeclaration): string[] {
  return [...new Set([...(read.publish ? [read.publish] : []), ...(read.uses ?? [])].map((ref) => splitRef(ref).artifact))];
}

/** The body of a published member: the member's fields plus where they came from. */
export const PUBLISHED_MEMBER_SCHEMA = {
  type: 'object',
  required: ['member', 'summary', 'projection_state', 'artifact'],
  properties: {
    member: { type: 'string' },
    summary: { type: 'string' },
    projection_state: { enum: ['published', 'planned', 'disabled', 'enabled', 'not_deployed', 'awaiting_transport_owner'] },
    artifact: {
      type: 'object',
      required: ['id', 'version', 'sha256', 'schema'],
      properties: { id: { type: 'string' }, version: { type: 'string' }, sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' }, schema: { type: 'string' } },
    },
  },
} as const;

/** A fail-closed answer: problem+json with the projection-state marker and the reason. */
export const FAIL_CLOSED_SCHEMA = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'projection_state', 'reason'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { const: 503 },
    detail: { type: 'string' },
    projection_state: { enum: ['fail_closed', 'awaiting_transport_owner'] },
    reason: { type: 'string' },
    artifact_id: { type: 'string' },
    errors: { type: 'array', items: { type: 'string' } },
  },
} as const;

/** Refuses to publish from a missing or invalid artifact (or other owner truth). */
export function failClosed(detail: string, extensions: { reason: string; projection_state?: string; [extra: string]: unknown }): Reply {
  return problem(503, 'Contract truth unavailable', {
    type: 'contract-truth-unavailable',
    detail,
    extensions: { projection_state: 'fail_closed', ...extensions },
  });
}

/**
 * The kernel routes for `reads`: each once on the worker listener (the operator, or the read's
 * lane) and once on the platform listener (no credentials, or the read's lane). The export keeps
 * one operation per path and method, described by the first route (the worker's) and naming both
 * listeners; a sweep of the platform reads a secured operation's 401 as "credential required".
 */
export function stampReadRoutes(reads: readonly ReadRoute[], runtime: () => GovernanceRuntime): Route[] {
  const handlers = reads.map((read) => readHandler(read, runtime));
  const stamp = (listener: string, auth: string): Route[] =>
    reads.map((read, i) => ({
      method: 'GET',
      path: read.path,
      listener,
      auth: read.auth ?? auth,
      summary: read.summary,
      tags: [familyOf(read.path)],
      ...(read.params && { params: read.params }),
      ...(read.query && { query: read.query }),
      responses: [
        { status: 200, description: read.summary, schema: read.schema ?? READ_SCHEMAS[read.path] ?? (read.publish !== undefined ? PUBLISHED_MEMBER_SCHEMA : { type: 'object' }), ...(read.contentType && { contentType: read.contentType }) },
        ...(read.responses ?? []),
        ...(read.responses?.some((r) => r.status === 503) ? [] : [{ status: 503, description: 'Fail closed: contract truth missing or invalid', schema: FAIL_CLOSED_SCHEMA, contentType: 'application/problem+json' }]),
      ],
      handler: handlers[i]!,
    }));
  return [...stamp(WORKER_LISTENER, 'operator'), ...stamp(PLATFORM_LISTENER, 'none')];
}

function readHandler(read: ReadRoute, getRuntime: () => GovernanceRuntime): (context: RequestContext) => Promise<Reply> {
  if ((read.publish === undefined) === (read.compute === undefined)) throw new TypeError(`Read route "${read.path}" needs exactly one of publish and compute`);
  const gated = read.gate === false ? [] : routeArtifacts(read);
  return async (context) => {
    const runtime = getRuntime();
    for (const id of gated) {
      const artifact = runtime.artifacts.get(id);
      if (artifact.state !== 'valid') return artifactUnavailable(read.path, artifact);
    }
    if ((!read.cached || read.auth !== undefined) && read.publish === undefined) return read.compute!(runtime, context);
    const key = `reply ${read.path}`;
    let reply = runtime.cache.get(key) as Reply | undefined;
    if (reply === undefined) {
      const fresh = read.publish !== undefined ? publishMember(runtime, read.publish) : await read.compute!(runtime, context);
      // Only a 200 is kept: a failure is recomputed, never frozen for the process's lifetime.
      if (fresh.status !== 200 || fresh.raw !== undefined || fresh.body === undefined) return fresh;
      reply = { status: 200, raw: JSON.stringify(fresh.body), contentType: fresh.contentType ?? JSON_TYPE, ...(fresh.headers && { headers: fresh.headers }) };
      runtime.cache.set(key, reply);
    }
    return reply;
  };
}

/** The 503 of a route whose artifact is missing or invalid. */
export function artifactUnavailable(path: string, artifact: LoadedArtifact): Reply {
  return failClosed(`Cannot publish "${path}": contract artifact "${artifact.file}" is ${artifact.state}: ${artifact.reasons[0] ?? 'unknown reason'}`, {
    reason: `artifact_${artifact.state}`,
    artifact_id: artifact.id,
    errors: artifact.reasons.slice(0, 20),
  });
}

/** A valid artifact's member, or undefined. */
export function artifactMember(runtime: GovernanceRuntime, ref: string): ArtifactMember | undefined {
  const { artifact, member } = splitRef(ref);
  const loaded = runtime.artifacts.get(artifact);
  return loaded.state === 'valid' ? loaded.document!.content[member] : undefined;
}

function publishMember(runtime: GovernanceRuntime, ref: string): Reply {
  const { artifact: id, member } = splitRef(ref);
  const artifact = runtime.artifacts.get(id);
  const body = artifact.document!.content[member];
  if (body === undefined) {
    return failClosed(`Cannot publish member "${member}": contract artifact "${artifact.file}" has no such member`, { reason: 'member_missing', artifact_id: id });
  }
  return json({
    member,
    ...body,
    artifact: { id: artifact.id, version: artifact.version, sha256: artifact.sha256, schema: artifact.schemaId },
  });
}
