// A service's routes are data: one table that the router, the OpenAPI export, the manifest
// check and the sweep runner all read. These types are that table's shape.

import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { SignatureScheme } from '../auth/index.ts';
import type { DatabaseSync } from 'node:sqlite';
import type { IdempotencyStore } from '../store/index.ts';
import type { Logger } from '../log.ts';

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A JSON Schema document (draft 2020-12), kept as plain data. */
export type JsonSchema = boolean | { readonly [keyword: string]: unknown };

/** What a handler returns; the kernel serializes it. */
export interface Reply {
  status: number;
  /** An `etag` here is sent as the representation's tag instead of hashing the bytes (the handler caches both). */
  headers?: Record<string, string>;
  /** A JSON value, serialized with JSON.stringify; ignored when `raw` is set. */
  body?: unknown;
  /** Bytes or text sent as they are, with `contentType`. */
  raw?: Uint8Array | string;
  /** A body streamed from a source of known length (a stored file); wins over `raw` and `body`. */
  stream?: { open: () => Readable; length: number };
  /** Defaults to application/json for `body`, text/plain for `raw`. */
  contentType?: string;
}

/** Everything a handler may know about the request. */
export interface RequestContext {
  method: Method;
  /** The path without its query. */
  path: string;
  query: URLSearchParams;
  /** Values of the route's `:name` segments, and `*` for the rest of a family route. */
  params: Readonly<Record<string, string>>;
  headers: IncomingHttpHeaders;
  requestId: string;
  listener: string;
  /** The peer's IP address as the socket saw it (no proxy headers are trusted). */
  remoteAddress: string;
  /** The raw body bytes, when the route declares a request body. */
  rawBody: Buffer | undefined;
  /** The unread request body, on a route whose request spec says `stream` (uploads). */
  bodyStream?: Readable;
  /** The parsed (and schema-checked) JSON body, when the route declares one. */
  body: unknown;
  /** What the route's authenticator admitted (a consumer id, an operator), if any. */
  principal: unknown;
  /** The verified signature's delivery or message id and timestamp, on a signed route. */
  signature: { id?: string; timestamp?: number } | undefined;
  log: Logger;
  /**
   * Set by the kernel while this request owns an Idempotency-Key whose store can complete inside
   * a transaction. Handlers do not call it themselves: they commit their effect through
   * `writeReply(context, ...)`, which joins the key's completion to the effect's transaction.
   */
  idempotency?: IdempotencyClaim;
}

/** The Idempotency-Key a request owns; see writeReply(). */
export interface IdempotencyClaim {
  /**
   * Stores `reply` as the key's response inside the open write unit whose connection is
   * `sqlite`, and returns the reply as it will be sent and replayed (its bytes). Throws when the
   * key was taken over meanwhile, so that the unit, and the effect with it, rolls back.
   */
  completeWithin(sqlite: DatabaseSync, reply: Reply): Reply;
  /** The reply stored by completeWithin, once a unit did; the kernel then sends exactly it. */
  readonly stored: Reply | undefined;
}

export type Handler = (context: RequestContext) => Reply | Promise<Reply>;

/** Outcome of an authenticator: admit with a principal, or answer with a reply (401/403/503). */
export type AuthOutcome = { ok: true; principal?: unknown } | { ok: false; reply: Reply };

export type Authenticator = (context: RequestContext) => AuthOutcome | Promise<AuthOutcome>;

export interface RequestSpec {
  /** The JSON Schema the parsed body must satisfy (422 otherwise). */
  schema?: JsonSchema;
  /** Body byte limit; 1 MiB unless a seed names another. */
  maxBytes?: number;
  /** Accepted media types (without parameters); application/json by default. */
  contentTypes?: readonly string[];
  /** Keep the body as bytes only: no JSON parse (a route that verifies a signature first parses itself). */
  raw?: boolean;
  /** An empty body (no Content-Type, no bytes) is allowed and leaves `body` undefined. */
  optional?: boolean;
  /** Leave the body unread: the handler consumes `context.bodyStream` itself (and enforces its limit); without `contentTypes` any type is let through. */
  stream?: boolean;
}

/** A signed route: the signature is checked over the raw bytes before anything parses them. */
export interface SignatureSpec {
  scheme: SignatureScheme;
  /** The configured secrets, read per request so a rotation needs no restart. */
  secrets: () => readonly string[];
}

/** DESIGN.md "Idempotency": Idempotency-Key replays, 422 for another body, 409 while in flight. */
export interface IdempotencySpec {
  store: IdempotencyStore;
  /** A request without the header is refused with 400. */
  required: boolean;
  /**
   * The handler's only effect is the one it commits through writeReply() (no call out, no other
   * write): a fresh key is then claimed in that effect's own transaction instead of one of its
   * own before the handler runs. A duplicate in this process is still 409 while the first runs;
   * one in another process on the same database runs, and whichever commits second rolls back
   * and answers with the first one's stored answer (Idempotent-Replayed).
   */
  claimWithEffect?: boolean;
}

export interface ResponseSpec {
  status: number;
  description: string;
  schema?: JsonSchema;
  /** The media type sent; the range of every type when it is the stored file's own. */
  contentType?: string;
  /** The answer has no body (a 202 with nothing to say); redirects, 204 and 304 never have one. */
  empty?: true;
}

/** A path or query parameter as the export describes it. */
export interface ParameterSpec {
  description: string;
  schema?: JsonSchema;
  /** A sample value: the export publishes it and the sweep runner substitutes it. */
  example?: string;
  /** Query parameters only; path parameters are always required. */
  required?: boolean;
}

export interface Route {
  method: Exclude<Method, 'HEAD'>;
  /** `/api/v1/things/:id`, or a family `/api/v1/contracts/*`. */
  path: string;
  /** Which of the service's listeners serves it; `main` unless the service has several. */
  listener?: string;
  /** Name of an authenticator of the service, or `none`. */
  auth: string;
  summary: string;
  /** A stable operation id for the export; derived from method and path when absent. */
  operationId?: string;
  tags?: readonly string[];
  /** Path parameters by name (every `:name` of the path should be described). */
  params?: Readonly<Record<string, ParameterSpec>>;
  /** Query parameters by name. */
  query?: Readonly<Record<string, ParameterSpec>>;
  /** For `/*` families: the members, listed in the export and swept. */
  members?: readonly string[];
  request?: RequestSpec;
  /** Verify this signature scheme before the body is parsed (401 on failure). */
  signature?: SignatureSpec;
  /** Honour (or require) Idempotency-Key on this route. */
  idempotency?: IdempotencySpec;
  responses?: readonly ResponseSpec[];
  /** Send a strong ETag and answer If-None-Match with 304 (GET only; on by default). */
  etag?: boolean;
  handler: Handler;
}

/** Declares a route table; an identity function that checks the shape. */
export function defineRoutes(routes: readonly Route[]): readonly Route[] {
  return routes;
}
