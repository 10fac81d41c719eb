// The mailbox adapter (messaging-mailbox): POST /api/v1/mailboxes/{mailbox}/messages publishes
// the body to `mailbox.<mailbox>` with a Nats-Msg-Id, and answers only once the bus holds it and
// the publication's evidence row has committed. The body limit is enforced while it streams in
// (the kernel stops reading at limit + 1 byte), so an oversized body never reaches the bus. A
// client's Nats-Msg-Id already recorded is answered from the record (mailbox-publisher.ts).

import { createLogger, createService, health, isAirlockError, json, problem, replicationHealthCheck, timeOrderedUuid, versionTruth } from '../kernel/index.ts';
import type { Logger, ReplicationStatus, Reply, RequestContext, Service, Store } from '../kernel/index.ts';
import type { Bus } from './bus.ts';
import { MSG_ID_HEADER } from './bus.ts';
import { busConfig, MAILBOX_SPEC, readWithListen } from './config.ts';
import { checkMailboxName, MESSAGE_ID } from './mailbox-name.ts';
import { createMailboxPublisher } from './mailbox-publisher.ts';
import type { MailboxPublisher, PublicationOutcome } from './mailbox-publisher.ts';
import { bodyMismatch } from './message-body.ts';
import { openStoreAndBus } from './open-bus.ts';
import { MAILBOX_LISTENER, messagingRoutes, UNCONFIGURED_HANDLERS } from './routes.ts';

export const SERVICE_NAME = 'messaging';

export interface MailboxService extends Service {
  readonly bus: Bus;
  readonly store: Store;
}

export interface MailboxServiceOptions {
  env?: NodeJS.ProcessEnv;
  listen?: string;
  log?: Logger;
  version?: string;
}

/** Reads the configuration, opens the database and the bus, and builds the adapter's listener. */
export async function createMailboxService(options: MailboxServiceOptions = {}): Promise<MailboxService> {
  const values = readWithListen(MAILBOX_SPEC, options.env ?? process.env, 'MESSAGING_MAILBOX_LISTEN', options.listen);
  const config = busConfig(values);
  const version = options.version ?? versionTruth();
  const log = options.log ?? createLogger({ name: `${SERVICE_NAME}.mailbox`, service: SERVICE_NAME });
  const { store, bus } = await openStoreAndBus(config, { log, name: 'messaging-mailbox', version });
  const publisher = createMailboxPublisher({ bus, store });
  const handlers = {
    ...UNCONFIGURED_HANDLERS,
    mailboxHealth: () => busHealthReply(bus, version, store.replication()),
    publish: (context: RequestContext) => publishMessage(context, publisher),
  };
  const routes = messagingRoutes(handlers, { maxPayloadBytes: values.MAILBOX_ADAPTER_MAX_PAYLOAD_BYTES }).filter((r) => r.listener === MAILBOX_LISTENER);
  const service = createService({
    name: SERVICE_NAME,
    version,
    routes,
    log,
    listeners: { [MAILBOX_LISTENER]: values.MESSAGING_MAILBOX_LISTEN },
    onClose: async () => {
      await bus.close();
      await store.close();
    },
  });
  return Object.assign(service, { bus, store });
}

/**
 * health+json naming the bus and whether it is connected; 503 when it is not. With evidence
 * replication on, its lag and state too (docs/replication.md).
 */
export function busHealthReply(bus: Bus, version: string, replication?: ReplicationStatus): Reply {
  const state = bus.health();
  return health({
    version,
    checks: {
      ...(replication && { 'evidence:replication': [replicationHealthCheck(replication)] }),
      [`bus:${state.kind}`]: [
        {
          status: state.connected ? 'pass' : 'fail',
          componentType: 'datastore',
          observedValue: state.connected ? 'connected' : 'disconnected',
          ...(state.last_error !== undefined && !state.connected && { output: state.last_error }),
        },
      ],
    },
    extra: { bus: { kind: state.kind, target: state.target, connected: state.connected, max_payload: state.max_payload, persistence: state.persistence, reconnects: state.reconnects } },
  });
}

async function publishMessage(context: RequestContext, publish: MailboxPublisher): Promise<Reply> {
  const name = checkMailboxName(context.params['mailbox'] ?? '');
  if (!name.ok) return problem(400, 'Invalid mailbox name', { detail: name.reason });
  const given = context.headers[MSG_ID_HEADER.toLowerCase()];
  if (Array.isArray(given)) return problem(400, 'Invalid Nats-Msg-Id', { detail: 'Send one Nats-Msg-Id header, not several' });
  if (given !== undefined && !MESSAGE_ID.test(given)) return problem(400, 'Invalid Nats-Msg-Id', { detail: `Nats-Msg-Id must match ${MESSAGE_ID}: letters, digits and ._:+=- up to 128 characters` });
  const mailbox = context.params['mailbox']!;
  // A made id is time-ordered (UUIDv7): the evidence index over msg_id then grows at its end.
  const msgId = given ?? timeOrderedUuid();
  const body = context.rawBody ?? Buffer.alloc(0);
  const contentType = String(context.headers['content-type'] ?? 'application/octet-stream');
  const mismatch = bodyMismatch(contentType, body);
  if (mismatch !== undefined) return problem(400, 'Malformed JSON', { detail: `${mismatch}; or send it as text/plain or application/octet-stream. Nothing published` });
  let outcome: PublicationOutcome;
  try {
    outcome = await publish({ mailbox, subject: name.subject, msgId, idFromClient: given !== undefined, body, contentType, requestId: context.requestId });
  } catch (error) {
    if (isAirlockError(error, 'bus_payload_too_large')) return problem(413, 'Message too large for the bus', { detail: error.message });
    if (isAirlockError(error, 'bus_timeout') || isAirlockError(error, 'bus_unavailable')) {
      return problem(503, 'Bus unavailable', { detail: `${error.message}; retry with the same Nats-Msg-Id`, headers: { 'retry-after': '1' } });
    }
    throw error;
  }
  const { record } = outcome;
  if (outcome.kind === 'conflict') {
    return problem(422, 'Nats-Msg-Id reused with another body or mailbox', {
      detail: `Nats-Msg-Id "${msgId}" was published to mailbox "${record.mailbox}" with a body of SHA-256 ${record.sha256} (evidence_seq ${record.seq}); this ${record.mailbox === mailbox ? `body's is ${outcome.sha256}` : `request is for mailbox "${mailbox}" (ids are one namespace over all mailboxes)`}: nothing published. Use a new Nats-Msg-Id for a new message`,
    });
  }
  // A repeat is answered from the first publication's record, which names the body the bus holds.
  const repeat = outcome.kind === 'repeat' && { repeat_of_seq: record.seq };
  return json({ mailbox, subject: name.subject, msg_id: msgId, bytes: record.bytes, sha256: record.sha256, bus: record.bus, evidence_seq: record.seq, ...repeat }, { status: 202, ...(repeat && { headers: { 'idempotent-replayed': 'true' } }) });
}
