// support_cases.support_desk_inbound: persist first, then hand off.
// 1. One transaction: the event is an Integration Event (event key support_desk:<event_id>) with
//    its ordering result. Per ticket, a Support Ticket document keeps the last applied sequence:
//    a higher sequence is applied (state, priority, label, refs), an equal one is a duplicate and
//    a lower one is late; neither is applied, both are recorded and reported.
// 2. Applied events go to the governance service (governance-handoff.ts), outside the transaction.
// 3. The outcome is a new row of the Integration Event: processed, or failed with
//    reason governance_support_handoff_failed (answered 503 so the desk redelivers). A redelivery
//    of a failed event retries the handoff; of a processed one, answers the stored bytes.

import type { DatabaseSync } from 'node:sqlite';
import type { Reply, Transaction } from '../../kernel/index.ts';
import { findByIdentity, getDocument, insertDocument, nextName, updateDocument } from '../database/documents.ts';
import type { ErpDocument } from '../database/documents.ts';
import type { ErpDeps } from '../erp-route.ts';
import { frappeThrow } from '../frappe/envelope.ts';
import { bodySha256 } from '../webhooks/record-delivery.ts';
import { handOff } from './governance-handoff.ts';
import { MAX_ATTEMPTS, nextRetryAt } from './retry-schedule.ts';
import type { HandoffResult } from './governance-handoff.ts';
import type { SupportEvent } from './normalize-event.ts';
import { hydrateContext, hydrationSummary } from './support-context.ts';

export const SUPPORT_SOURCE = 'support_desk';

export interface OrderingResult {
  status: 'applied' | 'duplicate' | 'late';
  ticket_id: string;
  sequence: number;
  last_applied_sequence: number | null;
  applied: boolean;
}

function order(sqlite: DatabaseSync, tx: Transaction, event: SupportEvent, at: Date, integrationEvent: string): OrderingResult {
  const ticket = getDocument(sqlite, 'Support Ticket', `SUP-TKT-${event.ticketId}`);
  const last = ticket ? Number(ticket['last_applied_sequence']) : null;
  const base = { ticket_id: event.ticketId, sequence: event.sequence, last_applied_sequence: last };
  if (last !== null && event.sequence === last) return { ...base, status: 'duplicate', applied: false };
  if (last !== null && event.sequence < last) return { ...base, status: 'late', applied: false };
  const fields = {
    ticket_id: event.ticketId,
    last_applied_sequence: event.sequence,
    desk_state: event.deskState,
    lifecycle: event.lifecycle,
    priority: event.priority,
    status: event.statusLabel,
    ...(event.title !== undefined && { title: event.title }),
    ...(event.businessRefs.length > 0 && { business_refs: event.businessRefs }),
    last_integration_event: integrationEvent,
  };
  if (ticket) updateDocument(sqlite, tx, ticket, fields, at);
  else insertDocument(sqlite, tx, { doctype: 'Support Ticket', name: `SUP-TKT-${event.ticketId}`, identity: event.ticketId, owner: `webhook:${SUPPORT_SOURCE}`, at, fields });
  return { ...base, status: 'applied', applied: true };
}

type Phase1 = { kind: 'replay'; answer: string; status: number } | { kind: 'handoff'; doc: ErpDocument };

export async function supportDeskInbound(deps: ErpDeps, event: SupportEvent, rawBody: Buffer): Promise<Reply> {
  const eventKey = `${SUPPORT_SOURCE}:${event.eventId}`;
  const sha = bodySha256(rawBody);
  const first: Phase1 = await deps.store.write((sqlite, tx) => {
    const earlier = findByIdentity(sqlite, 'Integration Event', eventKey);
    if (earlier) {
      if (earlier['raw_body_sha256'] !== sha) frappeThrow(`Event "${event.eventId}" was delivered before with another body: send a new event_id for a new event`, 'DuplicateEntryError');
      if (earlier['status'] === 'processed') return { kind: 'replay', answer: String(earlier['response']), status: 200 };
      return { kind: 'handoff', doc: earlier };
    }
    const at = new Date(deps.now());
    const name = nextName(sqlite, 'Integration Event', at);
    const ordering = order(sqlite, tx, event, at, name);
    const context = hydrateContext(sqlite, event.businessRefs);
    const doc = insertDocument(sqlite, tx, {
      doctype: 'Integration Event',
      name,
      identity: eventKey,
      owner: `webhook:${SUPPORT_SOURCE}`,
      at,
      fields: {
        source: SUPPORT_SOURCE,
        event_key: eventKey,
        provider_event_id: event.eventId,
        event_type: event.governanceEvent,
        raw_body_sha256: sha,
        // Absent optional fields are left out (evidence is JSON; undefined is not).
        payload: JSON.parse(JSON.stringify(event)) as Record<string, unknown>,
        status: 'recorded',
        received_at: at.toISOString(),
        target_doctype: 'Support Ticket',
        target_name: `SUP-TKT-${event.ticketId}`,
        correlation_envelope: { correlation_id: event.correlationId ?? `support:${event.ticketId}`, causation_id: eventKey, ticket_id: event.ticketId, sequence: event.sequence, integration_event: name },
        ordering_result: ordering,
        context_hydration_summary: hydrationSummary(context),
        governance_handoff: null,
        response: null,
      },
    });
    return { kind: 'handoff', doc };
  });
  if (first.kind === 'replay') return { status: first.status, raw: first.answer, contentType: 'application/json; charset=utf-8', headers: { 'idempotent-replayed': 'true' } };
  return singleFlight(deps, eventKey, () => completeHandoff(deps, first.doc));
}

/** The worker's retry of a failed event (the same single flight as a redelivery). */
export function retryHandoff(deps: ErpDeps, doc: ErpDocument): Promise<Reply> {
  return singleFlight(deps, String(doc['event_key']), () => completeHandoff(deps, doc));
}

/** Handoffs in flight per service (keyed by its store) and event key. */
const IN_FLIGHT = new WeakMap<object, Map<string, Promise<Reply>>>();

/**
 * Concurrent deliveries of one event share one handoff: governance refuses a second request under
 * an Idempotency-Key whose first is still running, which would fail the second delivery.
 */
function singleFlight(deps: ErpDeps, key: string, run: () => Promise<Reply>): Promise<Reply> {
  let flights = IN_FLIGHT.get(deps.store);
  if (!flights) IN_FLIGHT.set(deps.store, (flights = new Map()));
  const running = flights.get(key);
  if (running) return running;
  const started = run().finally(() => flights.delete(key));
  flights.set(key, started);
  return started;
}

/** Hands a recorded or failed support event to governance and records the outcome (also the retry path). */
export async function completeHandoff(deps: ErpDeps, doc: ErpDocument): Promise<Reply> {
  const event = doc['payload'] as unknown as SupportEvent;
  const ordering = doc['ordering_result'] as OrderingResult;
  const envelope = doc['correlation_envelope'] as Record<string, unknown>;
  let handoff: HandoffResult | { ok: true; skipped: true; reason: string };
  if (!ordering.applied) handoff = { ok: true, skipped: true, reason: `not handed off: ordering ${ordering.status}, nothing was applied` };
  else {
    handoff = await handOff(deps.config.outbound, String(doc['event_key']), {
      event: event.governanceEvent,
      // Fixed at persistence: a retry or a concurrent redelivery sends the same bytes under the same Idempotency-Key.
      occurred_at: event.occurredAt ?? String(doc['received_at']),
      correlation_id: String(envelope['correlation_id']),
      payload: {
        event_audit_key: String(doc['event_key']),
        integration_event: doc.name,
        ticket_id: event.ticketId,
        sequence: event.sequence,
        kind: event.kind,
        lifecycle: event.lifecycle,
        priority: event.priority,
        status_label: event.statusLabel,
        business_refs: event.businessRefs,
        attachment_count: event.article?.attachments.length ?? 0,
      },
    }, new Date(deps.now()));
  }
  const message = {
    ok: handoff.ok,
    ...(!handoff.ok && { reason: handoff.reason }),
    event_audit_key: doc['event_key'],
    integration_event: doc.name,
    correlation_envelope: envelope,
    ordering_result: ordering,
    context_hydration_summary: doc['context_hydration_summary'],
    governance_handoff: handoff,
  };
  const text = JSON.stringify({ message });
  const attempts = Number(doc['handoff_attempts'] ?? 0) + 1;
  await deps.store.write((sqlite, tx) => {
    // The latest row wins; a concurrent retry that finished first leaves a processed row this one follows.
    const current = getDocument(sqlite, 'Integration Event', doc.name) ?? doc;
    if (current['status'] === 'processed' && !handoff.ok) return;
    const retry = handoff.ok ? { next_retry_at: null, retry_exhausted: false } : { next_retry_at: nextRetryAt(deps.now(), attempts), retry_exhausted: attempts >= MAX_ATTEMPTS };
    updateDocument(sqlite, tx, current, { status: handoff.ok ? 'processed' : 'failed', governance_handoff: handoff, handoff_attempts: attempts, ...retry, response: text }, new Date(deps.now()));
  });
  return { status: handoff.ok ? 200 : 503, raw: text, contentType: 'application/json; charset=utf-8', ...(!handoff.ok && { headers: { 'retry-after': '30' } }) };
}
