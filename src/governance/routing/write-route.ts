// A guarded write of the governance service as data: its POST path, the lane that may call it,
// the request schema the kernel checks first (422), whether Idempotency-Key is required, the
// artifact members it reads, and its handler. stampWriteRoutes() puts each on the worker
// listener only: the platform listener never answers a write (405 or 404).

import { MIN_IDEMPOTENCY_RETENTION_MS, lazyIdempotencyStore, problem } from '../../kernel/index.ts';
import type { Reply, RequestContext, Route } from '../../kernel/index.ts';
import { WORKER_LISTENER } from '../config.ts';
import { familyOf } from '../identity.ts';
import { artifactUnavailable, splitRef } from './read-route.ts';
import type { Compute } from './read-route.ts';
import type { WriteDeclaration } from './route-declarations.ts';
import type { GovernanceRuntime } from '../runtime.ts';

/** A write route: its declaration and the handler that performs the write. */
export interface WriteRoute extends WriteDeclaration {
  handle: Compute;
}

/** How long Idempotency-Keys are kept, as the export publishes it. */
export const IDEMPOTENCY_RETENTION_MS = MIN_IDEMPOTENCY_RETENTION_MS;

/** The worker-listener routes for `writes`. */
export function stampWriteRoutes(writes: readonly WriteRoute[], getRuntime: () => GovernanceRuntime): Route[] {
  // The kernel needs the key store when the table is built; the database opens later.
  const store = lazyIdempotencyStore(() => getRuntime().idempotency, IDEMPOTENCY_RETENTION_MS);
  return writes.map((write) => ({
    method: 'POST',
    path: write.path,
    listener: WORKER_LISTENER,
    auth: write.auth,
    summary: write.summary,
    tags: [familyOf(write.path)],
    ...(write.params && { params: write.params }),
    ...(write.members && { members: write.members }),
    request: { ...write.request, schema: write.schema },
    ...(write.idempotency !== 'delivery_id' && { idempotency: { store, required: write.idempotency === 'required', ...(write.keyJoinsEffect && { claimWithEffect: true }) } }),
    responses: write.responses,
    handler: writeHandler(write, getRuntime),
  }));
}

function writeHandler(write: WriteRoute, getRuntime: () => GovernanceRuntime): (context: RequestContext) => Promise<Reply> {
  const gated = [...new Set((write.uses ?? []).map((ref) => splitRef(ref).artifact))];
  const familyPrefix = write.path.endsWith('/*') ? write.path.slice(0, -1) : undefined;
  return async (context) => {
    const runtime = getRuntime();
    if (familyPrefix !== undefined && !write.members?.includes(context.params['*'] ?? '')) {
      return problem(404, 'Not found', { detail: `No route for "${context.path}": the members are ${(write.members ?? []).join(', ')}` });
    }
    for (const id of gated) {
      const artifact = runtime.artifacts.get(id);
      if (artifact.state !== 'valid') return artifactUnavailable(write.path, artifact);
    }
    return write.handle(runtime, context);
  };
}
