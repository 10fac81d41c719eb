// Website contact intake: contact, interest, profiling, site and governance_event create or
// update one Lead per contact identity (the e-mail address, compared case-insensitively): the same
// address updates its Lead, never a second one. Answer: integration_event, target_doctype, lead, ack.

import type { DatabaseSync } from 'node:sqlite';
import type { Transaction } from '../../kernel/index.ts';
import { findByIdentity, insertDocument, updateDocument } from '../database/documents.ts';
import { asObject, isObject, optionalString, refuseExtra, requiredString } from '../fields.ts';
import type { Json } from '../fields.ts';
import { frappeThrow } from '../frappe/envelope.ts';
import type { Effect, EffectOutcome } from './record-delivery.ts';

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,253}\.[^\s@]{1,63}$/;

export interface ContactIntake {
  eventId: string | undefined;
  email: string;
  lead: Record<string, unknown>;
}

export function normalizeContactIntake(body: unknown): ContactIntake {
  const payload = asObject(body, 'payload');
  refuseExtra(payload, ['event_id', 'contact', 'interest', 'profiling', 'site', 'governance_event'], '');
  const contact = asObject(payload['contact'], 'contact');
  const email = requiredString(contact, 'email', 'contact.', 254).trim().toLowerCase();
  if (!EMAIL.test(email)) frappeThrow(`Field "contact.email" is not an e-mail address: ${JSON.stringify(email)}`);
  const first = optionalString(contact, 'first_name', 'contact.', 140);
  const last = optionalString(contact, 'last_name', 'contact.', 140);
  const full = optionalString(contact, 'name', 'contact.', 140) ?? ([first, last].filter(Boolean).join(' ') || email);
  const section = (key: string): unknown => {
    const value = payload[key];
    if (value === undefined || value === null) return undefined;
    if (!isObject(value) && typeof value !== 'string') frappeThrow(`Field "${key}" must be an object or a string`);
    return value;
  };
  const governance = section('governance_event');
  const eventId = optionalString(payload, 'event_id', '', 140) ?? (isObject(governance) ? optionalString(governance, 'event_id', 'governance_event.', 140) : undefined);
  const lead: Record<string, unknown> = {
    lead_name: full,
    first_name: first,
    last_name: last,
    email_id: email,
    phone: optionalString(contact, 'phone', 'contact.', 64),
    company_name: optionalString(contact, 'company', 'contact.', 140),
    interest: section('interest'),
    profiling: section('profiling'),
    site: section('site'),
    governance_event: governance,
  };
  // Absent fields never erase what an earlier intake recorded.
  for (const key of Object.keys(lead)) if (lead[key] === undefined) delete lead[key];
  return { eventId, email, lead };
}

export function upsertLead(intake: ContactIntake): Effect {
  return (sqlite: DatabaseSync, tx: Transaction, at: Date, integrationEvent: string): EffectOutcome => {
    const existing = findByIdentity(sqlite, 'Lead', intake.email);
    const doc = existing
      ? updateDocument(sqlite, tx, existing, { ...intake.lead, last_integration_event: integrationEvent }, at)
      : insertDocument(sqlite, tx, {
          doctype: 'Lead',
          identity: intake.email,
          owner: 'webhook:website_contact_intake',
          at,
          fields: { ...intake.lead, source: 'Website', status: 'Lead', first_integration_event: integrationEvent, last_integration_event: integrationEvent },
        });
    return { status: 'processed', targetDoctype: 'Lead', targetName: doc.name, message: { integration_event: integrationEvent, target_doctype: 'Lead', lead: doc.name, ack: true } };
  };
}
