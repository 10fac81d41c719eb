// A governance route as data, without the function that answers it: what it publishes or
// accepts, for whom, and which contract artifacts it reads. The runtime keeps these (the matrix,
// drift, capabilities and docs checks read them); read-route.ts and write-route.ts add the
// handler. Kept apart so the runtime and the route stamping do not import each other.

import type { JsonSchema, ParameterSpec, RequestSpec, ResponseSpec } from '../../kernel/index.ts';
import type { Capability } from '../identity.ts';
import type { LaneAuth, RouteAuth } from '../lanes.ts';

export interface ReadDeclaration {
  path: string;
  summary: string;
  capability: Capability;
  /** Publish this artifact member as it is: `<artifact_id>/<member>` (a member may contain "/"). */
  publish?: string;
  /** Artifact members a computation reads (`<artifact_id>/<member>`); the drift check counts them as used. */
  uses?: readonly string[];
  /** Answer 503 when an artifact it publishes or uses is missing or invalid (default); readiness reports it instead. */
  gate?: boolean;
  /** The answer depends only on what was read at start: compute it once. */
  cached?: boolean;
  /**
   * A lane-scoped read: this lane authenticator on both listeners (the worker's gate admits any
   * lane token first). Without it: the operator on the worker, no credential on the platform.
   */
  auth?: LaneAuth;
  params?: Readonly<Record<string, ParameterSpec>>;
  query?: Readonly<Record<string, ParameterSpec>>;
  /** The 200 body's schema (published members share one) and media type (JSON by default). */
  schema?: JsonSchema;
  contentType?: string;
  /** Other documented outcomes beside 200 and the fail-closed 503. */
  responses?: readonly ResponseSpec[];
}

export interface WriteDeclaration {
  path: string;
  summary: string;
  auth: Exclude<RouteAuth, 'none'>;
  capability: Capability;
  /** The request body's JSON Schema, checked by the kernel before anything else. */
  schema: JsonSchema;
  /**
   * `required`: a request without Idempotency-Key is 400; `optional`: honoured when sent;
   * `delivery_id`: the route deduplicates on the git host's delivery id itself.
   */
  idempotency: 'required' | 'optional' | 'delivery_id';
  /**
   * The handler's only effect is the one it commits through writeReply(): a fresh key is then
   * claimed in that effect's own transaction (the kernel's IdempotencySpec.claimWithEffect).
   */
  keyJoinsEffect?: true;
  /** Artifact members the handler reads (`<artifact_id>/<member>`): 503 fail closed when invalid. */
  uses?: readonly string[];
  params?: Readonly<Record<string, ParameterSpec>>;
  /** For a `/*` family: its members (others answer 404). */
  members?: readonly string[];
  /** Body options beside the schema (raw bytes for a signed route, a smaller limit). */
  request?: Omit<RequestSpec, 'schema'>;
  /** Documented outcomes; the kernel adds 400, 401, 403, 404, 409, 413, 415 and 422. */
  responses: readonly ResponseSpec[];
}
