// support_cases.support_desk_outbound: a ticket-scoped reply, note or status delivered to a
// Zammad-compatible desk (SUPPORT_DESK_URL, Authorization: Token token=<SUPPORT_DESK_TOKEN>):
// reply and note are articles (POST /api/v1/ticket_articles), status is a ticket update
// (PUT /api/v1/tickets/{ticket_id} with the desk's state name). The Integration Event is written
// before the call (recorded) and again after it (processed or failed), so an interrupted delivery
// still leaves evidence. Answer: audit event id, delivery result, correlation envelope.

import { randomUUID } from 'node:crypto';
import type { Reply } from '../../kernel/index.ts';
import { getDocument, insertDocument, nextName, updateDocument } from '../database/documents.ts';
import type { ErpDeps } from '../erp-route.ts';
import { describeFetchFailure } from '../outbound-failure.ts';
import { isObject, optionalString, refuseExtra, requiredString } from '../fields.ts';
import type { Args } from '../frappe/args.ts';
import { describeType } from '../frappe/args.ts';
import { frappeThrow } from '../frappe/envelope.ts';
import type { NormalizationRules } from './normalization-rules.ts';

export type Operation = 'reply' | 'note' | 'status';

export interface DeskRequest {
  method: 'POST' | 'PUT';
  path: string;
  body: Record<string, unknown>;
}

export interface OutboundInput {
  ticketId: string;
  operation: Operation;
  request: DeskRequest;
  correlation: Record<string, unknown>;
}

/** Reads the arguments into the one desk request they mean (Zammad's bodies). */
export function readOutbound(args: Args, rules: NormalizationRules): OutboundInput {
  const raw = args['ticket_id'];
  const ticketId = typeof raw === 'number' && Number.isSafeInteger(raw) && raw > 0 ? String(raw) : typeof raw === 'string' && /^[1-9][0-9]{0,15}$/.test(raw) && Number.isSafeInteger(Number(raw)) ? raw : frappeThrow(`Argument "ticket_id" must be the desk's numeric ticket id (a positive integer up to 2^53 - 1, which the article body carries as a JSON number), got ${raw === undefined ? 'nothing' : describeType(raw)}`);
  const operation = args['operation'];
  if (operation !== 'reply' && operation !== 'note' && operation !== 'status') frappeThrow(`Argument "operation" must be reply, note or status, got ${JSON.stringify(operation) ?? 'nothing'}`);
  const correlationRaw = args['correlation_envelope'];
  if (correlationRaw !== undefined && correlationRaw !== null && !isObject(correlationRaw)) frappeThrow(`Argument "correlation_envelope" must be an object, got ${describeType(correlationRaw)}`);
  if (correlationRaw && JSON.stringify(correlationRaw).length > 4096) frappeThrow('Argument "correlation_envelope" is larger than 4096 bytes');
  const ticket = Number(ticketId);
  let request: DeskRequest;
  if (operation === 'status') {
    if (args['message'] !== undefined) frappeThrow('Argument "message" belongs to reply and note; status takes "status": {"state": ...}');
    if (!isObject(args['status'])) frappeThrow('Argument "status" must be an object {"state": <desk state name>}');
    refuseExtra(args['status'], ['state'], 'status.');
    const state = requiredString(args['status'], 'state', 'status.', 64).trim().toLowerCase();
    if (rules.lifecycle[state] === undefined) frappeThrow(`Argument "status.state" has the unknown desk state ${JSON.stringify(state)}: allowed are ${Object.keys(rules.lifecycle).join(', ')}`);
    request = { method: 'PUT', path: `/api/v1/tickets/${ticketId}`, body: { state } };
  } else {
    if (args['status'] !== undefined) frappeThrow('Argument "status" belongs to the status operation; reply and note take "message"');
    if (!isObject(args['message'])) frappeThrow('Argument "message" must be an object {"body", "subject"?, "content_type"?, "to"?}');
    const message = args['message'];
    refuseExtra(message, ['body', 'subject', 'content_type', 'to'], 'message.');
    const body = requiredString(message, 'body', 'message.', 100_000);
    const contentType = optionalString(message, 'content_type', 'message.', 32) ?? 'text/plain';
    if (contentType !== 'text/plain' && contentType !== 'text/html') frappeThrow('Argument "message.content_type" must be text/plain or text/html');
    const subject = optionalString(message, 'subject', 'message.', 255);
    const to = optionalString(message, 'to', 'message.', 255);
    if (operation === 'reply' && to === undefined) frappeThrow('Argument "message.to" is required for a reply: the address the desk e-mails');
    if (operation === 'note' && to !== undefined) frappeThrow('Argument "message.to" does not belong to an internal note');
    request = {
      method: 'POST',
      path: '/api/v1/ticket_articles',
      body: operation === 'note'
        ? { ticket_id: ticket, body, content_type: contentType, type: 'note', internal: true, sender: 'Agent', ...(subject !== undefined && { subject }) }
        : { ticket_id: ticket, body, content_type: contentType, type: 'email', internal: false, sender: 'Agent', to, ...(subject !== undefined && { subject }) },
    };
  }
  return { ticketId, operation, request, correlation: { ...(correlationRaw ?? {}), ticket_id: ticketId } };
}

async function deliver(deps: ErpDeps, request: DeskRequest): Promise<Record<string, unknown>> {
  const { supportDeskUrl, supportDeskToken, timeoutMs } = deps.config.outbound;
  const where = { method: request.method, path: request.path };
  if (supportDeskUrl === undefined || supportDeskToken === undefined) return { ok: false, ...where, status: null, detail: 'SUPPORT_DESK_URL and SUPPORT_DESK_TOKEN are not configured' };
  try {
    const response = await fetch(`${supportDeskUrl}${request.path}`, {
      method: request.method,
      headers: { authorization: `Token token=${supportDeskToken}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(request.body),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
    const text = await response.text();
    let id: unknown = null;
    try {
      id = (JSON.parse(text) as { id?: unknown }).id ?? null;
    } catch {
      // The desk's id is a courtesy; the status decides.
    }
    const ok = response.status >= 200 && response.status < 300;
    return { ok, ...where, status: response.status, desk_object_id: id, ...(!ok && { detail: `the desk answered ${response.status}` }) };
  } catch (error) {
    return { ok: false, ...where, status: null, detail: describeFetchFailure(error, timeoutMs) };
  }
}

export async function supportDeskOutbound(deps: ErpDeps, input: OutboundInput, user: string): Promise<Reply> {
  const eventKey = `support_desk_outbound:${randomUUID()}`;
  const recorded = await deps.store.write((sqlite, tx) => {
    const at = new Date(deps.now());
    const name = nextName(sqlite, 'Integration Event', at);
    return insertDocument(sqlite, tx, {
      doctype: 'Integration Event',
      name,
      identity: eventKey,
      owner: user,
      at,
      fields: {
        source: 'support_desk_outbound', event_key: eventKey, event_type: `support.${input.operation}`, status: 'recorded',
        // What was sent, minus the message text (the desk keeps it; the evidence keeps its shape).
        payload: { ticket_id: input.ticketId, operation: input.operation, method: input.request.method, path: input.request.path, fields: Object.keys(input.request.body) },
        target_doctype: 'Support Ticket', target_name: `SUP-TKT-${input.ticketId}`, correlation_envelope: { ...input.correlation, integration_event: name },
      },
    });
  });
  const result = await deliver(deps, input.request);
  const correlation = { ...input.correlation, integration_event: recorded.name };
  const message = { ok: result['ok'], audit_event_id: recorded.name, delivery_result: result, correlation_envelope: correlation };
  await deps.store.write((sqlite, tx) => {
    updateDocument(sqlite, tx, getDocument(sqlite, 'Integration Event', recorded.name) ?? recorded, { status: result['ok'] ? 'processed' : 'failed', delivery_result: result, response: JSON.stringify({ message }) }, new Date(deps.now()));
  });
  return { status: result['ok'] ? 200 : 502, body: { message } };
}
