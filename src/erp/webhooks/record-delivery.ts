// One accepted webhook delivery = one Integration Event (source, provider event id, raw body
// SHA-256, normalized payload, status, answer), written in the same transaction as its business
// effect. The check for an earlier delivery with the same provider event id runs inside that
// transaction too, so two concurrent redeliveries cannot both take effect: the second gets the
// first one's answer and changes nothing. The same id with another body is a 409 conflict.

import { hash } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import type { Reply, Transaction } from '../../kernel/index.ts';
import { findByIdentity, insertDocument, nextName } from '../database/documents.ts';
import type { ErpDeps } from '../erp-route.ts';
import { frappeThrow } from '../frappe/envelope.ts';

export type WebhookSource = 'payment_a' | 'payment_b' | 'supplier_intake' | 'website_contact_intake';

export interface Delivery {
  source: WebhookSource;
  /**
   * The provider's event id, Standard Webhooks' webhook-id, or the delivery id (see docs/erp.md);
   * undefined when the body names none: then `sha256:<raw body SHA-256>`.
   */
  providerEventId: string | undefined;
  eventType: string;
  rawBody: Buffer;
  normalized: Record<string, unknown>;
}

/** What an effect did: the Integration Event's status, its target, and the answer's `message`. */
export interface EffectOutcome {
  status: 'processed' | 'recorded';
  targetDoctype?: string;
  targetName?: string;
  message: Record<string, unknown>;
}

/** A business effect; runs inside the delivery's transaction with the Integration Event's name. */
export type Effect = (sqlite: DatabaseSync, tx: Transaction, at: Date, integrationEvent: string) => EffectOutcome;

/** The raw body's SHA-256, hex. */
export function bodySha256(raw: Uint8Array): string {
  return hash('sha256', raw, 'hex');
}

/** Records the delivery and its effect once; a redelivery answers with the stored message. */
export async function recordDelivery(deps: ErpDeps, delivery: Delivery, effect: Effect): Promise<Reply> {
  const sha = bodySha256(delivery.rawBody);
  const providerEventId = delivery.providerEventId ?? `sha256:${sha}`;
  const eventKey = `${delivery.source}:${providerEventId}`;
  const { answer, replayed } = await deps.store.write((sqlite, tx) => {
    const earlier = findByIdentity(sqlite, 'Integration Event', eventKey);
    if (earlier) {
      // One rule for every webhook (support_desk_inbound's too): a known id with other bytes is
      // not a redelivery but a conflict, answered as such, with nothing stored.
      if (earlier['raw_body_sha256'] !== sha) frappeThrow(`Event "${providerEventId}" was delivered before with another body: nothing was stored; send a new event id for a new event`, 'DuplicateEntryError');
      return { answer: String(earlier['response']), replayed: true };
    }
    const at = new Date(deps.now());
    const name = nextName(sqlite, 'Integration Event', at);
    const outcome = effect(sqlite, tx, at, name);
    // The answer's exact bytes are kept (evidence payloads are canonical JSON, with keys re-ordered),
    // so a redelivery gets byte for byte what the first delivery got.
    const text = JSON.stringify({ message: outcome.message });
    insertDocument(sqlite, tx, {
      doctype: 'Integration Event',
      name,
      identity: eventKey,
      owner: `webhook:${delivery.source}`,
      at,
      fields: {
        source: delivery.source,
        event_key: eventKey,
        provider_event_id: providerEventId,
        event_type: delivery.eventType,
        raw_body_sha256: sha,
        payload: delivery.normalized,
        status: outcome.status,
        target_doctype: outcome.targetDoctype ?? null,
        target_name: outcome.targetName ?? null,
        response: text,
      },
    });
    return { answer: text, replayed: false };
  });
  return { status: 200, raw: answer, contentType: 'application/json; charset=utf-8', ...(replayed && { headers: { 'idempotent-replayed': 'true' } }) };
}
