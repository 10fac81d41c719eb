// The messaging service's route table, the seed's "Messaging service" rows as data, over three
// listeners that three executables serve: `main` (messaging-api, also `jhf-shuttle serve`),
// `mailbox` (messaging-mailbox) and `owner-readback` (messaging-owner-readback). The router, the
// OpenAPI export and the manifest read it. No /readyz and no /metrics on the API (the seed).

import { PROBLEM_TYPE } from '../kernel/index.ts';
import type { Handler, ResponseSpec, Route } from '../kernel/index.ts';
import { DEFAULT_MAILBOX_MAX_PAYLOAD } from './config.ts';

export const API_LISTENER = 'main';
export const MAILBOX_LISTENER = 'mailbox';
export const READBACK_LISTENER = 'owner-readback';

export const API_HEALTH_PATH = '/api/v1/health';
export const API_STATUS_PATH = '/api/v1/status';
export const MAILBOX_PUBLISH_PATH = '/api/v1/mailboxes/:mailbox/messages';
export const REVIEW_TRANSPORT_PATH = '/api/v1/evidence/plan-studio-review-transport';

/** Media types a mailbox message may have; the bytes are carried as they are. */
export const MAILBOX_CONTENT_TYPES = ['application/json', 'text/plain', 'application/octet-stream', 'application/cloudevents+json'] as const;

export interface MessagingHandlers {
  apiHealth: Handler;
  apiStatus: Handler;
  mailboxHealth: Handler;
  publish: Handler;
  readbackHealth: Handler;
  readbackReady: Handler;
  reviewTransport: Handler;
}

/** Handlers for a table built without configuration (manifest, OpenAPI export): never called. */
export const UNCONFIGURED_HANDLERS: MessagingHandlers = {
  apiHealth: unconfigured,
  apiStatus: unconfigured,
  mailboxHealth: unconfigured,
  publish: unconfigured,
  readbackHealth: unconfigured,
  readbackReady: unconfigured,
  reviewTransport: unconfigured,
};

const problemResponse = (status: number, description: string): ResponseSpec => ({ status, description, contentType: PROBLEM_TYPE, schema: { $ref: '#/components/schemas/Problem' } });
const HEALTH_TYPE = 'application/health+json';
const healthResponses = (what: string): ResponseSpec[] => [
  { status: 200, description: `${what}: pass or warn`, contentType: HEALTH_TYPE },
  { status: 503, description: `${what}: fail`, contentType: HEALTH_TYPE },
];
const BEARER_REFUSED = problemResponse(401, 'Missing or wrong Authorization: Bearer token');
const FAIL_CLOSED = problemResponse(503, 'OWNER_READBACK_API_TOKEN is not configured or the owner (the messaging database) is unreachable: fail closed');

export function messagingRoutes(handlers: MessagingHandlers, options: { maxPayloadBytes?: number } = {}): Route[] {
  return [
    { method: 'GET', path: API_HEALTH_PATH, listener: API_LISTENER, auth: 'none', summary: 'Messaging API health: the bus and the mailbox adapter', tags: ['api'], responses: healthResponses('API health'), etag: false, handler: handlers.apiHealth },
    {
      method: 'GET',
      path: API_STATUS_PATH,
      listener: API_LISTENER,
      auth: 'none',
      summary: 'Status and readiness-adjacent: bus, mailbox adapter, lane observers, last restart recovery',
      tags: ['api'],
      responses: [{ status: 200, description: 'Status snapshot' }],
      etag: false,
      handler: handlers.apiStatus,
    },
    { method: 'GET', path: '/healthz', listener: MAILBOX_LISTENER, auth: 'none', summary: 'Mailbox adapter health: names the bus and whether it is connected', tags: ['mailbox'], responses: healthResponses('Adapter health'), etag: false, handler: handlers.mailboxHealth },
    {
      method: 'POST',
      path: MAILBOX_PUBLISH_PATH,
      listener: MAILBOX_LISTENER,
      auth: 'none',
      summary: 'Publishes the body to subject mailbox.<mailbox> with a Nats-Msg-Id; answers once the bus holds it',
      tags: ['mailbox'],
      params: { mailbox: { description: 'Mailbox name: letters, digits, "-" and "_", 1 to 64 characters (no dots or wildcards)', schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' }, example: 'plan-studio-review' } },
      request: { raw: true, maxBytes: options.maxPayloadBytes ?? DEFAULT_MAILBOX_MAX_PAYLOAD, contentTypes: MAILBOX_CONTENT_TYPES },
      responses: [
        { status: 202, description: 'The bus holds the message: mailbox, subject, msg_id, bytes, sha256, bus, evidence_seq; a retry with a Nats-Msg-Id already recorded for this mailbox (same body) is answered from that record, not published again, with repeat_of_seq' },
        problemResponse(400, 'Invalid mailbox name or Nats-Msg-Id header'),
        problemResponse(422, 'The Nats-Msg-Id was already published to this mailbox with another body: nothing published or recorded'),
        problemResponse(413, 'Body larger than MAILBOX_ADAPTER_MAX_PAYLOAD_BYTES (default 131072): nothing published'),
        problemResponse(415, 'Content-Type not accepted'),
        problemResponse(503, 'The bus did not confirm the message in time; retry with the same Nats-Msg-Id'),
      ],
      handler: handlers.publish,
    },
    { method: 'GET', path: '/healthz', listener: READBACK_LISTENER, auth: 'owner-token', summary: 'Owner-readback health', tags: ['owner-readback'], responses: [...healthResponses('Readback health'), BEARER_REFUSED], etag: false, handler: handlers.readbackHealth },
    { method: 'GET', path: '/readyz', listener: READBACK_LISTENER, auth: 'owner-token', summary: 'Owner-readback readiness: token configured and owner reachable', tags: ['owner-readback'], responses: [...healthResponses('Readiness'), BEARER_REFUSED], etag: false, handler: handlers.readbackReady },
    {
      method: 'GET',
      path: REVIEW_TRANSPORT_PATH,
      listener: READBACK_LISTENER,
      auth: 'owner-token',
      summary: 'Read-only: what the shuttle carried for plan-studio review transport, from the publication evidence rows',
      tags: ['owner-readback'],
      query: { limit: { description: 'Most rows, newest last (1 to 500, default 100)', schema: { type: 'string', pattern: '^[0-9]{1,3}$' }, example: '100' } },
      responses: [{ status: 200, description: 'Evidence rows with their hash chain' }, problemResponse(400, 'Bad limit'), BEARER_REFUSED, FAIL_CLOSED],
      handler: handlers.reviewTransport,
    },
  ];
}

function unconfigured(): never {
  throw new TypeError('Route table built without handlers: pass real ones to messagingRoutes()');
}
