// One request's way through a service: request id, listener authentication (before routing),
// routing, route authentication, body (type, size, JSON, schema), handler, and the 5xx rule.
// Every failure becomes a reply here, once; nothing below this layer writes to the socket.

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { verifySignature } from '../auth/index.ts';
import { parseIdempotencyKey, requestFingerprint } from '../store/index.ts';
import type { StoredResponse } from '../store/index.ts';
import { AirlockError, isAirlockError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { DEFAULT_BODY_LIMIT, checkContentType, parseJsonBody, readBody } from './body.ts';
import { challengeFor, withChallenge } from './challenge.ts';
import { PROBLEM_TYPE, problem } from './reply.ts';
import type { Authenticator, IdempotencySpec, Method, Reply, RequestContext, Route } from './route.ts';
import type { Router } from './router.ts';
import { replyContentType, replyPayload, sendReply } from './send.ts';
import { requestHeadRefusal } from './request-head.ts';

/** The logger and message of DESIGN.md's 5xx rule (seed 001). */
export const SERVER_ERROR_LOGGER = 'uvicorn.error';
export const SERVER_ERROR_MESSAGE = 'request returned server error';

export interface BodyCheck {
  (value: unknown): { valid: boolean; errors: readonly { instancePath: string; message: string }[] };
}

export interface PipelineOptions {
  listener: string;
  router: Router;
  authenticators: Readonly<Record<string, Authenticator>>;
  /** Authenticator that runs before route resolution on this listener, if any. */
  listenerAuth: string | undefined;
  /** Compiled request-body checks, by route. */
  bodyChecks: ReadonlyMap<Route, BodyCheck>;
  log: Logger;
  serverErrorLog: Logger;
  internalLog: Logger;
  isDraining: () => boolean;
  /** Current time in milliseconds (injectable for tests). */
  now: () => number;
  /** Re-renders the kernel's RFC 9457 problem replies in another envelope (see ServiceOptions). */
  renderProblem?: ProblemRenderer;
  /** The service's name, the realm of its challenges. */
  service: string;
  /** WWW-Authenticate challenge per authenticator name (Bearer by default; see ServiceOptions). */
  challenges: Readonly<Record<string, string>>;
}

/** Turns a problem reply (404, 405, 401 signature, 413, 415, 400, 422, idempotency, 500) into the service's own error envelope. */
export type ProblemRenderer = (reply: Reply, context: RequestContext) => Reply;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** Handles one request to completion; never throws. */
export async function handleRequest(request: IncomingMessage, response: ServerResponse, options: PipelineOptions): Promise<void> {
  const method = (request.method ?? 'GET') as Method;
  const target = request.url ?? '/';
  const queryAt = target.indexOf('?');
  const path = queryAt === -1 ? target : target.slice(0, queryAt);
  const incomingId = request.headers['x-request-id'];
  const requestId = typeof incomingId === 'string' && REQUEST_ID.test(incomingId) ? incomingId : randomUUID();
  response.setHeader('x-request-id', requestId);

  const context: RequestContext = {
    method,
    path,
    query: new URLSearchParams(queryAt === -1 ? '' : target.slice(queryAt + 1)),
    params: {},
    headers: request.headers,
    requestId,
    listener: options.listener,
    remoteAddress: request.socket.remoteAddress ?? '',
    rawBody: undefined,
    body: undefined,
    principal: undefined,
    signature: undefined,
    log: options.log,
  };

  let reply: Reply;
  let route: Route | undefined;
  let refusedBody = false;
  // A head over its limits is refused before anything reads it (414, 431), and the connection closes.
  const headRefusal = requestHeadRefusal(request);
  try {
    const outcome = headRefusal ? { reply: headRefusal } : await resolve(request, context, options);
    route = outcome.route;
    reply = outcome.reply ?? (route!.idempotency ? await runIdempotent(route!, context) : await route!.handler(context));
  } catch (error) {
    reply = replyForError(error);
    refusedBody = reply.status === 413;
    if (reply.status >= 500) options.internalLog.error('handler failed', { error, requestId });
  }
  if (reply === CLIENT_ABORTED_REPLY) {
    // The client left mid-body: nobody to answer, and no server error to log.
    if (!response.headersSent) response.destroy();
    return;
  }
  if (options.renderProblem && reply.contentType === PROBLEM_TYPE) reply = renderProblem(options, reply, context);
  // The authenticator that refused: the listener's when it ran first and no route was resolved, else the route's.
  reply = withChallenge(reply, () => challengeFor({ service: options.service, auth: route?.auth !== undefined && route.auth !== 'none' ? route.auth : options.listenerAuth, route, challenges: options.challenges }));
  // Draining is read when the reply goes out, so a request that was in flight at close() closes too.
  // A streamed body the handler left unread is refused too: do not drain it, hang up after the reply.
  const close = refusedBody || headRefusal !== undefined || options.isDraining() || (context.bodyStream !== undefined && !request.complete);
  try {
    sendReply(request, response, reply, { etag: route?.etag !== false, close });
  } catch (error) {
    // The reply itself could not be sent (a handler bug): the client still gets a 500.
    options.internalLog.error('reply failed', { error, requestId });
    if (!response.headersSent) sendReply(request, response, internalError(), { etag: false, close });
    else response.destroy();
  }
  // The 5xx rule: one record per 5xx, with the status the client actually got.
  const status = response.headersSent ? response.statusCode : reply.status;
  if (status >= 500) options.serverErrorLog.error(SERVER_ERROR_MESSAGE, { method, path, status });
}

async function resolve(request: IncomingMessage, context: RequestContext, options: PipelineOptions): Promise<{ route?: Route; reply?: Reply }> {
  if (options.listenerAuth !== undefined) {
    const denied = await authenticate(options.listenerAuth, context, options);
    if (denied) return { reply: denied };
  }
  const match = options.router.match(context.method, context.path);
  if (match.kind === 'not_found') {
    return { reply: problem(404, 'Not found', { detail: `No route for "${context.path}"` }) };
  }
  if (match.kind === 'method_not_allowed') {
    return {
      reply: problem(405, 'Method not allowed', {
        detail: `Cannot ${context.method} "${context.path}": allowed ${match.allow.join(', ')}`,
        headers: { allow: match.allow.join(', ') },
      }),
    };
  }
  const route = match.route;
  context.params = match.params;
  if (route.auth !== 'none') {
    const denied = await authenticate(route.auth, context, options);
    if (denied) return { route, reply: denied };
  }
  if (route.request && BODY_METHODS.has(context.method)) {
    const invalid = await readRequestBody(route, request, context, options);
    if (invalid) return { route, reply: invalid };
  }
  return { route };
}

async function authenticate(name: string, context: RequestContext, options: PipelineOptions): Promise<Reply | undefined> {
  const authenticator = options.authenticators[name];
  if (!authenticator) throw new TypeError(`No authenticator named "${name}"`);
  const outcome = await authenticator(context);
  if (!outcome.ok) return outcome.reply;
  context.principal = outcome.principal;
  return undefined;
}

/** Reads, parses and checks the body into `context`; a schema failure is a 422 reply, other failures throw. */
async function readRequestBody(route: Route, request: IncomingMessage, context: RequestContext, options: PipelineOptions): Promise<Reply | undefined> {
  const spec = route.request!;
  const headers = context.headers;
  const announcedEmpty = headers['content-length'] === '0' || (headers['content-length'] === undefined && headers['transfer-encoding'] === undefined);
  if (announcedEmpty && headers['content-type'] === undefined && spec.optional) return undefined;
  // A streamed route without declared types takes any body (PUT of content): the handler judges it.
  if (!(spec.stream && spec.contentTypes === undefined)) checkContentType(headers['content-type'], spec.contentTypes ?? ['application/json']);
  if (spec.stream) {
    context.bodyStream = request;
    return undefined;
  }
  const raw = await readBody(request, spec.maxBytes ?? DEFAULT_BODY_LIMIT);
  context.rawBody = raw;
  if (route.signature) {
    const result = verifySignature(route.signature.scheme, {
      rawBody: raw,
      headers: context.headers,
      secrets: route.signature.secrets(),
      now: Math.floor(options.now() / 1000),
    });
    if (!result.ok) {
      // The caller learns one fixed thing; the operator gets the machine reason.
      options.log.warn('signature refused', { path: context.path, scheme: route.signature.scheme, reason: result.reason, requestId: context.requestId });
      return problem(401, 'Signature invalid', { detail: 'The request signature could not be verified' });
    }
    context.signature = { ...(result.id !== undefined && { id: result.id }), ...(result.timestamp !== undefined && { timestamp: result.timestamp }) };
  }
  if (spec.raw) return undefined;
  if (raw.length === 0 && spec.optional) return undefined;
  context.body = parseJsonBody(raw);
  const check = options.bodyChecks.get(route);
  if (!check) return undefined;
  const { valid, errors } = check(context.body);
  if (valid) return undefined;
  return problem(422, 'Request body is invalid', {
    detail: `${errors.length} ${errors.length === 1 ? 'problem' : 'problems'}: ${errors.map((e) => e.message).slice(0, 3).join('; ')}`,
    errors: errors.map((e) => ({ pointer: e.instancePath, detail: e.message })),
  });
}

/**
 * Runs the handler at most once per Idempotency-Key: the stored response is committed before it
 * is sent; a 5xx or a thrown handler releases the key so a retry runs afresh.
 *
 * The rule for handlers (DESIGN.md, Idempotency): a handler whose effect is a store write commits
 * it through writeReply(context, { store, work, reply }), which completes the key inside that
 * same transaction, so no crash can leave an effect whose key would run it again. A handler with
 * no store effect just returns its reply; the key then completes in its own transaction.
 * Exported for bench/keyed-write-cpu.ts, which times this path without the HTTP around it.
 */
export async function runIdempotent(route: Route, context: RequestContext): Promise<Reply> {
  const spec = route.idempotency!;
  const header = context.headers['idempotency-key'];
  if (header === undefined) {
    if (spec.required) return problem(400, 'Idempotency-Key required', { detail: `Send an Idempotency-Key header with ${context.method} "${context.path}"` });
    return route.handler(context);
  }
  const parsed = Array.isArray(header) ? { ok: false as const, reason: 'header is repeated' } : parseIdempotencyKey(header);
  if (!parsed.ok) return problem(400, 'Idempotency-Key invalid', { detail: `Cannot use the Idempotency-Key header: ${parsed.reason}` });
  const scope = `${context.listener} ${route.method} ${route.path}${principalScope(context.principal)}`;
  const ref = { scope, key: parsed.key };
  const fingerprint = requestFingerprint({ method: context.method, path: context.path, body: context.rawBody ?? new Uint8Array() });
  if (spec.claimWithEffect && spec.store.isFree && spec.store.claimWithin && spec.store.claim) {
    const running = runningHere(spec);
    const here = running.get(`${scope}\n${parsed.key}`);
    if (here !== undefined) return here === fingerprint ? keyInFlight(parsed.key) : keyReused(parsed.key);
    if (spec.store.isFree(ref)) {
      const answer = await runClaimedWithEffect(route, context, { ...ref, fingerprint, running });
      // undefined: another request claimed the key first; its answer is read below.
      if (answer !== undefined) return answer;
    }
  }
  const begun = await spec.store.begin({ ...ref, fingerprint });
  switch (begun.kind) {
    case 'replay': {
      const { status, headers, body } = begun.response;
      const { 'content-type': contentType, ...rest } = headers;
      return { status, raw: body, headers: { ...rest, 'idempotent-replayed': 'true' }, ...(contentType !== undefined && { contentType }) };
    }
    case 'mismatch':
      return keyReused(parsed.key);
    case 'in_flight':
      return keyInFlight(parsed.key);
    case 'started':
      break;
  }
  // The handler may join the key's completion to its effect's transaction (writeReply); until
  // it does, a crash leaves the key in flight with no effect, and a retry runs afresh.
  let stored: Reply | undefined;
  const keyStore = spec.store;
  if (keyStore.completeWithin) {
    context.idempotency = {
      completeWithin(sqlite, handlerReply) {
        if (stored !== undefined) throw new TypeError(`Idempotency-Key "${parsed.key}" guards one effect: this request already committed one`);
        const sent = storedForm(handlerReply);
        keyStore.completeWithin!(sqlite, { ...ref, token: begun.token, response: storedResponse(sent) });
        stored = sent;
        return sent;
      },
      get stored() {
        return stored;
      },
    };
  }
  let reply: Reply;
  try {
    reply = await route.handler(context);
  } catch (error) {
    if (stored === undefined) await spec.store.abandon({ ...ref, token: begun.token });
    throw error;
  } finally {
    delete context.idempotency;
  }
  // Committed with the effect: what the client gets is what a replay will get.
  if (stored !== undefined) return stored;
  if (reply.status >= 500) {
    await spec.store.abandon({ ...ref, token: begun.token });
    return reply;
  }
  // No effect joined the key (a handler with no store write, or one that has not opted in yet):
  // the key completes in a transaction of its own.
  const sent = storedForm(reply);
  await spec.store.complete({ ...ref, token: begun.token, response: storedResponse(sent) });
  return sent;
}

/**
 * A fresh key on a route whose key joins its effect (IdempotencySpec.claimWithEffect): the
 * handler runs without a key row, and the key is claimed, with its answer, in the effect's own
 * transaction (or, for an answer with no effect, in one of its own). Resolves undefined when
 * another request had claimed the key first: this one's effect rolled back, nothing is stored,
 * and the caller answers with the holder's answer. A 5xx or a throw stores nothing, as there is
 * no key to release.
 */
async function runClaimedWithEffect(
  route: Route,
  context: RequestContext,
  claim: { scope: string; key: string; fingerprint: string; running: Map<string, string> },
): Promise<Reply | undefined> {
  const { running, ...ref } = claim;
  const keyStore = route.idempotency!.store;
  const mark = `${ref.scope}\n${ref.key}`;
  running.set(mark, ref.fingerprint);
  let stored: Reply | undefined;
  let lost = false;
  context.idempotency = {
    completeWithin(sqlite, handlerReply) {
      if (stored !== undefined) throw new TypeError(`Idempotency-Key "${ref.key}" guards one effect: this request already committed one`);
      const sent = storedForm(handlerReply);
      if (!keyStore.claimWithin!(sqlite, { ...ref, response: storedResponse(sent) })) {
        lost = true;
        // Thrown inside the unit: the effect beside it rolls back.
        throw new AirlockError('idempotency', `Cannot claim Idempotency-Key "${ref.key}": another request holds it; this one's effect is rolled back`);
      }
      stored = sent;
      return sent;
    },
    get stored() {
      return stored;
    },
  };
  try {
    let reply: Reply;
    try {
      reply = await route.handler(context);
    } catch (error) {
      if (lost) return undefined;
      throw error;
    } finally {
      delete context.idempotency;
    }
    if (lost) return undefined;
    if (stored !== undefined || reply.status >= 500) return stored ?? reply;
    const sent = storedForm(reply);
    return (await keyStore.claim!({ ...ref, response: storedResponse(sent) })) ? sent : undefined;
  } finally {
    running.delete(mark);
  }
}

/** Keys that requests of this process are running with on a claimWithEffect route, and their fingerprints, per route. */
const RUNNING = new WeakMap<IdempotencySpec, Map<string, string>>();

function runningHere(spec: IdempotencySpec): Map<string, string> {
  let running = RUNNING.get(spec);
  if (running === undefined) RUNNING.set(spec, (running = new Map()));
  return running;
}

function keyReused(key: string): Reply {
  return problem(422, 'Idempotency-Key reused', { detail: `Idempotency-Key "${key}" was used with another request body: use a new key` });
}

function keyInFlight(key: string): Reply {
  return problem(409, 'Idempotency-Key in flight', { detail: `A request with Idempotency-Key "${key}" is still running: retry later`, headers: { 'retry-after': '1' } });
}

/** A reply as it is sent, stored and replayed alike: its text or bytes, with its content type. */
function storedForm(reply: Reply): Reply & { raw: Uint8Array | string; contentType: string } {
  // JSON stays text: node:http sends a string body in one write with the head, bytes in a second.
  return { status: reply.status, raw: replyPayload(reply), contentType: replyContentType(reply), ...(reply.headers && { headers: reply.headers }) };
}

function storedResponse(sent: Reply & { raw: Uint8Array | string; contentType: string }): StoredResponse {
  return { status: sent.status, headers: { ...sent.headers, 'content-type': sent.contentType }, body: typeof sent.raw === 'string' ? Buffer.from(sent.raw, 'utf8') : sent.raw };
}

/** A renderer that throws must not leave the client without an answer: the problem goes out as it was. */
function renderProblem(options: PipelineOptions, reply: Reply, context: RequestContext): Reply {
  try {
    return options.renderProblem!(reply, context);
  } catch (error) {
    options.internalLog.error('problem renderer failed', { error, requestId: context.requestId });
    return reply;
  }
}

/** Keeps idempotency keys of different principals apart, whatever shape an authenticator admits. */
function principalScope(principal: unknown): string {
  if (principal === undefined || principal === null) return '';
  if (typeof principal === 'string') return ` ${principal}`;
  try {
    return ` ${JSON.stringify(principal)}`;
  } catch {
    // A principal that cannot be serialized has no stable identity to share keys with.
    throw new TypeError('Cannot scope an Idempotency-Key: the authenticator admitted a principal that is not JSON');
  }
}

/** Seconds a client is asked to wait after a read refused for its budget. */
export const READ_RETRY_AFTER_SECONDS = 1;

/** Maps an error to its reply: a known client mistake to its 4xx, anything else to a bare 500. */
export function replyForError(error: unknown): Reply {
  if (isAirlockError(error)) {
    switch (error.code) {
      case 'body_too_large':
        return problem(413, 'Request body too large', { detail: error.message });
      case 'unsupported_media_type':
        return problem(415, 'Unsupported media type', { detail: error.message });
      case 'malformed_json':
        return problem(400, 'Malformed JSON', { detail: error.message });
      case 'too_deep':
        return problem(400, 'JSON nested too deeply', { detail: error.message });
      case 'client_aborted':
        return CLIENT_ABORTED_REPLY;
      case 'idempotency':
        return keyTakenOver(error.message);
      case 'read_budget':
        // A spent read budget is load, not a fault: the client may retry (DESIGN.md "Evidence over time").
        return problem(503, 'Read budget spent', { detail: error.message, headers: { 'retry-after': String(READ_RETRY_AFTER_SECONDS) } });
      case 'evidence_replication':
        // Committed here, not yet acknowledged by the evidence stream (sync mode): a retry is answered once it is.
        return problem(503, 'Evidence not replicated', { detail: error.message, headers: { 'retry-after': String(READ_RETRY_AFTER_SECONDS) } });
      case 'store_write':
        // The store wraps what a unit threw: a key lost mid-write rolled its effect back.
        if (isAirlockError(error.cause, 'idempotency')) return keyTakenOver(error.cause.message);
        break;
      default:
        break;
    }
  }
  return internalError();
}

function keyTakenOver(detail: string): Reply {
  return problem(409, 'Idempotency-Key in flight', { detail: `${detail}: retry with the same key to read its answer`, headers: { 'retry-after': '1' } });
}

/** What a request whose client went away mid-body would have got: a 400, never sent or logged as 5xx. */
const CLIENT_ABORTED_REPLY: Reply = problem(400, 'Request incomplete', { detail: 'The client closed the connection before the body was complete' });

function internalError(): Reply {
  return problem(500, 'Internal server error', { detail: 'The server failed to answer this request; the operator can find it by its X-Request-Id' });
}
