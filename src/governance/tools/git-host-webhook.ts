// POST /api/v1/integrations/git-host/webhook: a GitHub or Gitea delivery. A git host sends no
// bearer token, so the worker's gate admits this one path provisionally when X-Hub-Signature-256
// is well-formed; here the signature is verified over the raw bytes before anything parses them,
// and a bad one gets the very 401 a missing token gets (same body, same headers) and stores
// nothing. Then the JSON is parsed and checked, and the delivery id deduplicates: a redelivery is
// acknowledged again with the original answer and records nothing new.

import { createHash } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import { compileSchema, isAirlockError, parseJsonBody, problem, requestFingerprint, verifySignature } from '../../kernel/index.ts';
import type { IdempotencyStore, Reply, RequestContext } from '../../kernel/index.ts';
import { gitHostDeliveries } from '../database.ts';
import { unauthorized } from '../lanes.ts';
import type { GovernanceRuntime } from '../runtime.ts';
import DELIVERY_SCHEMA from '../../../contracts/governance/schemas/git_host_delivery_input_v1.schema.json' with { type: 'json' };

export const GIT_HOST_DELIVERY_SCHEMA = DELIVERY_SCHEMA;

const checkDelivery = compileSchema(DELIVERY_SCHEMA, { formats: 'assert' });
const EVENT = /^[a-z_]{1,64}$/;
/** Idempotency scope of deliveries: the delivery id is the key. */
const DELIVERY_SCOPE = 'governance git-host delivery';
/** Idempotency scope of delivery bodies: the SHA-256 of the raw bytes is the key. */
const BODY_SCOPE = 'governance git-host body';

interface Delivery {
  ref?: string;
  after?: string;
  repository?: { full_name: string };
  sender?: { login?: string };
}

/** The deepest nesting of JSON text, counted outside strings. */
function header(context: RequestContext, name: string): string | undefined {
  const value = context.headers[name];
  return typeof value === 'string' ? value : undefined;
}

export async function gitHostWebhookReply(runtime: GovernanceRuntime, context: RequestContext): Promise<Reply> {
  const raw = context.rawBody ?? Buffer.alloc(0);
  const check = (headers: RequestContext['headers']) => verifySignature('github', { rawBody: raw, headers, secrets: runtime.config.gitHostSecrets, now: Math.floor(runtime.now() / 1000) });
  // The signature first, on its own: a sender with the secret is told about a bad delivery id
  // with a 400, and only a sender without it gets the 401.
  const signed = check({ 'x-hub-signature-256': context.headers['x-hub-signature-256'] });
  if (!signed.ok) {
    runtime.log.warn('git-host signature refused', { path: context.path, reason: signed.reason, requestId: context.requestId });
    return unauthorized(context.listener);
  }
  const verified = check(context.headers);
  if (!verified.ok && verified.reason === 'malformed_id') {
    return problem(400, 'Delivery id malformed', { detail: 'X-GitHub-Delivery / X-Gitea-Delivery must be one id of 1 to 255 visible characters, the same in both when both are sent' });
  }
  if (!verified.ok) {
    // The caller learns one fixed thing; the operator gets the machine reason.
    runtime.log.warn('git-host signature refused', { path: context.path, reason: verified.reason, requestId: context.requestId });
    return unauthorized(context.listener);
  }
  const deliveryId = verified.id;
  if (deliveryId === undefined) return problem(400, 'Delivery id required', { detail: 'Send X-GitHub-Delivery or X-Gitea-Delivery: the delivery id deduplicates redeliveries' });
  const event = header(context, 'x-github-event') ?? header(context, 'x-gitea-event');
  if (event === undefined || !EVENT.test(event)) return problem(400, 'Event required', { detail: 'Send X-GitHub-Event or X-Gitea-Event naming the event (e.g. push)' });
  let body: unknown;
  try {
    // The kernel's strict reader: UTF-8, depth, repeated names and lone surrogates, as on every route.
    body = parseJsonBody(raw);
  } catch (error) {
    if (!isAirlockError(error)) throw error;
    return problem(400, error.code === 'too_deep' ? 'JSON nested too deeply' : 'Malformed JSON', { detail: `Cannot read the delivery: ${error.message}` });
  }
  const { valid, errors } = checkDelivery.validate(body);
  if (!valid) {
    return problem(422, 'Request body is invalid', {
      detail: `${errors.length} ${errors.length === 1 ? 'problem' : 'problems'}: ${errors.map((e) => e.message).slice(0, 3).join('; ')}`,
      errors: errors.map((e) => ({ pointer: e.instancePath, detail: e.message })),
    });
  }
  const ref = { scope: DELIVERY_SCOPE, key: deliveryId };
  const begun = await runtime.idempotency.begin({ ...ref, fingerprint: requestFingerprint({ method: 'POST', path: context.path, body: raw }) });
  switch (begun.kind) {
    case 'replay': {
      const { 'content-type': contentType, ...headers } = begun.response.headers;
      return { status: begun.response.status, raw: begun.response.body, headers: { ...headers, 'idempotent-replayed': 'true' }, ...(contentType !== undefined && { contentType }) };
    }
    case 'mismatch':
      return problem(422, 'Delivery id reused', { detail: `Delivery "${deliveryId}" was received with another body: a git host redelivers the same bytes` });
    case 'in_flight':
      return problem(409, 'Delivery in flight', { detail: `Delivery "${deliveryId}" is still being recorded: retry later`, headers: { 'retry-after': '1' } });
    case 'started':
      break;
  }
  // The signature carries no timestamp, so captured bytes could replay forever under a new
  // delivery id: a body whose SHA-256 was accepted within the retention is a replay too.
  const bodySha256 = createHash('sha256').update(raw).digest('hex');
  const bodyRef = { scope: BODY_SCOPE, key: bodySha256 };
  let bodyBegun;
  try {
    bodyBegun = await runtime.idempotency.begin({ ...bodyRef, fingerprint: bodySha256 });
  } catch (error) {
    await runtime.idempotency.abandon({ ...ref, token: begun.token });
    throw error;
  }
  if (bodyBegun.kind !== 'started') {
    if (bodyBegun.kind !== 'replay') {
      await runtime.idempotency.abandon({ ...ref, token: begun.token });
      return problem(409, 'Delivery in flight', { detail: 'A delivery with the same body is still being recorded: retry later', headers: { 'retry-after': '1' } });
    }
    // The new delivery id answers what the first delivery of these bytes got, and records nothing.
    await runtime.idempotency.complete({ ...ref, token: begun.token, response: bodyBegun.response });
    runtime.log.warn('git-host delivery replayed', { path: context.path, reason: 'body_replayed', requestId: context.requestId });
    const { 'content-type': contentType, ...headers } = bodyBegun.response.headers;
    return { status: bodyBegun.response.status, raw: bodyBegun.response.body, headers: { ...headers, 'idempotent-replayed': 'true' }, ...(contentType !== undefined && { contentType }) };
  }
  const bodyToken = bodyBegun.token;
  try {
    const delivery = body as Delivery;
    const recorded = await runtime.store.write((sqlite, tx) => {
      const row = tx.append(gitHostDeliveries, {
        delivery_id: deliveryId,
        event,
        payload: {
          host: header(context, 'x-gitea-delivery') !== undefined ? 'gitea' : 'github',
          repository: delivery.repository?.full_name ?? null,
          ref: delivery.ref ?? null,
          after: delivery.after ?? null,
          sender: delivery.sender?.login ?? null,
          body_sha256: bodySha256,
          body_bytes: raw.length,
        },
      });
      const answer = { accepted: true, delivery_id: deliveryId, event, repository: delivery.repository?.full_name ?? null, evidence: { table: gitHostDeliveries.name, seq: row.seq, sha256: row.sha256 }, authority: 'a delivery is recorded; it triggers no build, deploy or write' };
      const bytes = Buffer.from(JSON.stringify(answer));
      // The delivery id's completion commits with the row it guards (DESIGN.md, Idempotency).
      const response = { status: 202, headers: { 'content-type': 'application/json; charset=utf-8' }, body: bytes };
      completeKey(runtime, sqlite, { ...ref, token: begun.token, response });
      completeKey(runtime, sqlite, { ...bodyRef, token: bodyToken, response });
      return bytes;
    });
    return { status: 202, raw: recorded, contentType: 'application/json; charset=utf-8' };
  } catch (error) {
    await runtime.idempotency.abandon({ ...ref, token: begun.token });
    await runtime.idempotency.abandon({ ...bodyRef, token: bodyToken });
    throw error;
  }
}

function completeKey(runtime: GovernanceRuntime, sqlite: DatabaseSync, request: Parameters<IdempotencyStore['complete']>[0]): void {
  if (!runtime.idempotency.completeWithin) throw new TypeError('The governance key store cannot complete inside a write: use createIdempotencyStore()');
  runtime.idempotency.completeWithin(sqlite, request);
}
