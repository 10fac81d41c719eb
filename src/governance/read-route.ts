// A read route of the governance service as data: what it publishes (a member of a contract
// artifact, or a computation over artifacts, manifests and the database), which capability it
// serves, and what it answers. stampReadRoutes() turns the one list into kernel routes on both
// listeners, so no handler is written twice.

import { json, JSON_TYPE, problem } from '../kernel/index.ts';
import type { JsonSchema, ParameterSpec, Reply, RequestContext, ResponseSpec, Route } from '../kernel/index.ts';
import { PLATFORM_LISTENER, WORKER_LISTENER } from './config.ts';
import { familyOf } from './identity.ts';
import type { Capability } from './identity.ts';
import type { GovernanceRuntime } from './runtime.ts';

export type Compute = (runtime: GovernanceRuntime, context: RequestContext) => Reply | Promise<Reply>;

export interface ReadRoute {
  path: string;
  summary: string;
  capability: Capability;
  /** Artifacts the answer is built from: when any is missing or invalid the route answers 503. */
  artifacts: readonly string[];
  /** Publish this member of `artifacts[0]` as it is. */
  member?: string;
  compute?: Compute;
  /** The answer depends only on what was read at start: compute it once. */
  cached?: boolean;
  params?: Readonly<Record<string, ParameterSpec>>;
  query?: Readonly<Record<string, ParameterSpec>>;
  /** The 200 body's schema (published members share one) and media type (JSON by default). */
  schema?: JsonSchema;
  contentType?: string;
  /** Other documented outcomes beside 200 and the fail-closed 503. */
  responses?: readonly ResponseSpec[];
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
 * The kernel routes for `reads`: each once on the worker listener (operator) and once on the
 * platform listener (no credentials). Platform copies come last so the export, which keeps
 * one operation per path, describes the public listener a sweep runs against.
 */
export function stampReadRoutes(reads: readonly ReadRoute[], runtime: () => GovernanceRuntime): Route[] {
  const handlers = reads.map((read) => readHandler(read, runtime));
  const stamp = (listener: string, auth: string): Route[] =>
    reads.map((read, i) => ({
      method: 'GET',
      path: read.path,
      listener,
      auth,
      summary: read.summary,
      tags: [familyOf(read.path)],
      ...(read.params && { params: read.params }),
      ...(read.query && { query: read.query }),
      responses: [
        { status: 200, description: read.summary, schema: read.schema ?? (read.member !== undefined ? PUBLISHED_MEMBER_SCHEMA : { type: 'object' }), ...(read.contentType && { contentType: read.contentType }) },
        ...(read.responses ?? []),
        ...(read.responses?.some((r) => r.status === 503) ? [] : [{ status: 503, description: 'Fail closed: contract truth missing or invalid', schema: FAIL_CLOSED_SCHEMA, contentType: 'application/problem+json' }]),
      ],
      handler: handlers[i]!,
    }));
  return [...stamp(WORKER_LISTENER, 'operator'), ...stamp(PLATFORM_LISTENER, 'none')];
}

function readHandler(read: ReadRoute, getRuntime: () => GovernanceRuntime): (context: RequestContext) => Promise<Reply> {
  if ((read.member === undefined) === (read.compute === undefined)) throw new TypeError(`Read route "${read.path}" needs exactly one of member and compute`);
  return async (context) => {
    const runtime = getRuntime();
    for (const id of read.artifacts) {
      const artifact = runtime.artifacts.get(id);
      if (artifact.state !== 'valid') {
        return failClosed(`Cannot publish "${read.path}": contract artifact "${artifact.file}" is ${artifact.state}: ${artifact.reasons[0] ?? 'unknown reason'}`, {
          reason: `artifact_${artifact.state}`,
          artifact_id: id,
          errors: artifact.reasons.slice(0, 20),
        });
      }
    }
    if (!read.cached && read.member === undefined) return read.compute!(runtime, context);
    const key = `reply ${read.path}`;
    let reply = runtime.cache.get(key) as Reply | undefined;
    if (reply === undefined) {
      const fresh = read.member !== undefined ? publishMember(runtime, read.artifacts[0]!, read.member) : await read.compute!(runtime, context);
      // Only a 200 is kept: a failure is recomputed, never frozen for the process's lifetime.
      if (fresh.status !== 200 || fresh.raw !== undefined || fresh.body === undefined) return fresh;
      reply = { status: 200, raw: JSON.stringify(fresh.body), contentType: fresh.contentType ?? JSON_TYPE, ...(fresh.headers && { headers: fresh.headers }) };
      runtime.cache.set(key, reply);
    }
    return reply;
  };
}

function publishMember(runtime: GovernanceRuntime, artifactId: string, member: string): Reply {
  const artifact = runtime.artifacts.get(artifactId);
  const body = artifact.document!.content[member];
  if (body === undefined) {
    return failClosed(`Cannot publish member "${member}": contract artifact "${artifact.file}" has no such member`, { reason: 'member_missing', artifact_id: artifactId });
  }
  return json({
    member,
    ...body,
    artifact: { id: artifact.id, version: artifact.version, sha256: artifact.sha256, schema: artifact.schemaId },
  });
}
