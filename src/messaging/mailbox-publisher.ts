// Publishing to a mailbox once per Nats-Msg-Id: the mailbox adapter and `jhf-shuttle publish`
// both go through here. The evidence table `mailbox_publications` is the record of what the bus
// confirmed. A client id already recorded for the mailbox is not published again: the same body is
// answered from the record (core NATS does not de-duplicate, so a second publish would reach
// subscribers twice), another body is a conflict (JetStream would keep only the first, and the
// record would name a body no bus holds). Inside one process, a second request with an id that is
// still being published waits for the first and is then answered from its record.

import { hash } from 'node:crypto';
import { statement } from '../kernel/index.ts';
import type { Store } from '../kernel/index.ts';
import type { Bus, BusKind } from './bus.ts';
import { MSG_ID_HEADER } from './bus.ts';
import { MAILBOX_PUBLICATIONS } from './database.ts';

export interface PublicationRequest {
  mailbox: string;
  subject: string;
  msgId: string;
  /** True when the publisher chose the id (a retry may repeat it); a freshly made id is never looked up. */
  idFromClient: boolean;
  body: Buffer;
  contentType: string;
  requestId: string;
}

/** What the record says about one publication. */
export interface PublicationRecord {
  seq: number;
  bytes: number;
  sha256: string;
  bus: BusKind;
}

export type PublicationOutcome =
  | { kind: 'published'; record: PublicationRecord }
  /** The id and body were already published: nothing sent again, the first publication's record. */
  | { kind: 'repeat'; record: PublicationRecord }
  /** The id was already published with another body: nothing sent or recorded. */
  | { kind: 'conflict'; record: PublicationRecord; sha256: string };

export type MailboxPublisher = (request: PublicationRequest) => Promise<PublicationOutcome>;

/** Bus errors (too large, timeout, unavailable) reject as they come from `bus.publish`. */
export function createMailboxPublisher(deps: { bus: Bus; store: Store }): MailboxPublisher {
  const inFlight = new Map<string, Promise<PublicationOutcome>>();
  return async (request) => {
    const sha256 = hash('sha256', request.body, 'hex');
    if (!request.idFromClient) return publishAndRecord(deps, request, sha256);
    const key = `${request.mailbox}\n${request.msgId}`;
    for (let running = inFlight.get(key); running !== undefined; running = inFlight.get(key)) await Promise.allSettled([running]);
    const prior = firstPublication(deps.store, request.mailbox, request.msgId);
    if (prior !== undefined) return prior.sha256 === sha256 ? { kind: 'repeat', record: prior } : { kind: 'conflict', record: prior, sha256 };
    const attempt = publishAndRecord(deps, request, sha256);
    inFlight.set(key, attempt);
    try {
      return await attempt;
    } finally {
      inFlight.delete(key);
    }
  };
}

async function publishAndRecord(deps: { bus: Bus; store: Store }, request: PublicationRequest, sha256: string): Promise<PublicationOutcome> {
  await deps.bus.publish(request.subject, request.body, { headers: { [MSG_ID_HEADER]: request.msgId, 'Content-Type': request.contentType } });
  const row = await deps.store.append(MAILBOX_PUBLICATIONS, {
    mailbox: request.mailbox,
    msg_id: request.msgId,
    payload: { subject: request.subject, bus: deps.bus.kind, bytes: request.body.length, sha256, content_type: request.contentType, request_id: request.requestId },
  });
  return { kind: 'published', record: { seq: row.seq, bytes: request.body.length, sha256, bus: deps.bus.kind } };
}

function firstPublication(store: Store, mailbox: string, msgId: string): PublicationRecord | undefined {
  const row = statement(store.sqlite, 'SELECT seq, payload FROM mailbox_publications WHERE msg_id = ? AND mailbox = ? ORDER BY seq LIMIT 1').get(msgId, mailbox) as { seq: number; payload: string } | undefined;
  if (row === undefined) return undefined;
  const payload = JSON.parse(row.payload) as { bytes: number; sha256: string; bus: BusKind };
  return { seq: Number(row.seq), bytes: payload.bytes, sha256: payload.sha256, bus: payload.bus };
}
