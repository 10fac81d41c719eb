// Events the service emits, written to the event_outbox table inside the transaction of the
// change they report, and mirrored with their outbox seq in the evidence table event_outbox_log. Channels and payload schemas come from the AsyncAPI contract
// (contracts/api/semantic_asyncapi_v1.json); a payload that breaks its schema, or an event on a
// reserved channel, is a programming error and aborts the transaction.

import type { DatabaseSync } from 'node:sqlite';
import ASYNCAPI from '../../contracts/api/semantic_asyncapi_v1.json' with { type: 'json' };
import type { SchemaValidator, Transaction } from '../kernel/index.ts';
import { OUTBOX_LOG_TABLE } from './control-evidence.ts';
import { isObject } from './_json.ts';
import { compileSchema } from './_schema.ts';
import { deriveId } from './digest.ts';

export const ASYNCAPI_CONTRACT: unknown = ASYNCAPI;

export interface OutboxEvent {
  seq: number;
  event_id: string;
  channel: string;
  message: string;
  payload: Record<string, unknown>;
  created_at: string;
}

interface ChannelInfo {
  address: string;
  status: 'current' | 'reserved';
  message: string;
  payloadSchema: unknown;
}

/** Every channel of the contract by address, with its one message and payload schema. */
export function contractChannels(doc: unknown = ASYNCAPI): Map<string, ChannelInfo> {
  const channels = new Map<string, ChannelInfo>();
  const root = isObject(doc) ? doc : {};
  const messages = isObject(root['components']) && isObject(root['components']['messages']) ? root['components']['messages'] : {};
  for (const channel of Object.values(isObject(root['channels']) ? root['channels'] : {})) {
    if (!isObject(channel) || typeof channel['address'] !== 'string' || !isObject(channel['messages'])) continue;
    for (const ref of Object.values(channel['messages'])) {
      const name = isObject(ref) && typeof ref['$ref'] === 'string' ? ref['$ref'].replace('#/components/messages/', '') : '';
      const message = messages[name];
      channels.set(channel['address'], {
        address: channel['address'],
        status: channel['x-airlock-status'] === 'current' ? 'current' : 'reserved',
        message: name,
        payloadSchema: isObject(message) ? message['payload'] : undefined,
      });
    }
  }
  return channels;
}

const CHANNELS = contractChannels();
const validators = new Map<string, SchemaValidator>();

/** The compiled payload validator of a channel's message. */
export function payloadValidator(address: string): SchemaValidator {
  let validator = validators.get(address);
  if (validator === undefined) {
    const channel = CHANNELS.get(address);
    if (channel === undefined) throw new TypeError(`Channel "${address}" is not in the AsyncAPI contract`);
    validator = compileSchema(channel.payloadSchema, { formats: 'assert' });
    validators.set(address, validator);
  }
  return validator;
}

/**
 * Writes one event to the outbox; call inside a write transaction. The event id is derived
 * from the channel and `key`, so re-deciding the same thing cannot emit two different ids.
 *
 * @example
 * store.write((sqlite, tx) => recordEvent(sqlite, 'semantic.reconciliation.run_completed', { tx, key: [runId], at, data }));
 */
export function recordEvent(sqlite: DatabaseSync, address: string, event: { tx: Transaction; key: readonly unknown[]; at: string; data: Record<string, unknown> }): string {
  const channel = CHANNELS.get(address);
  if (channel === undefined || channel.status !== 'current') throw new TypeError(`Cannot emit on channel "${address}": it is not a current channel of the AsyncAPI contract`);
  const eventId = deriveId('evt', [address, ...event.key]);
  const payload = { event_id: eventId, occurred_at: event.at, ...event.data };
  const { valid, errors } = payloadValidator(address).validate(payload);
  if (!valid) throw new TypeError(`Event on "${address}" breaks its AsyncAPI schema: ${errors.map((e) => e.message).join('; ')}`);
  const seq = Number(sqlite
    .prepare('INSERT INTO event_outbox (event_id, channel, message, payload, created_at) VALUES (?, ?, ?, ?, ?)')
    .run(eventId, address, channel.message, JSON.stringify(payload), event.at).lastInsertRowid);
  event.tx.append(OUTBOX_LOG_TABLE, { event_id: eventId, channel: address, payload: { outbox_seq: seq, message: channel.message, payload, created_at: event.at } });
  return eventId;
}

/** Outbox events in order, after a seq. */
export function readOutbox(sqlite: DatabaseSync, options: { afterSeq?: number; limit?: number } = {}): OutboxEvent[] {
  return sqlite
    .prepare('SELECT seq, event_id, channel, message, payload, created_at FROM event_outbox WHERE seq > ? ORDER BY seq LIMIT ?')
    .all(options.afterSeq ?? 0, options.limit ?? -1)
    .map((row) => ({
      seq: Number(row['seq']),
      event_id: String(row['event_id']),
      channel: String(row['channel']),
      message: String(row['message']),
      payload: JSON.parse(String(row['payload'])) as Record<string, unknown>,
      created_at: String(row['created_at']),
    }));
}
