// The mail_management surface: the producer projects administrator truth for one exact mailbox
// of one tenant; only a fresh observation of an active human administrator is projected, and
// the consumer's decision read must name the same exact scope.

import { queryScope, scopeKey, TENANT_ID } from './projection.ts';
import type { ScopeResult, SurfaceSpec } from './projection.ts';

/** One mailbox, written out: no wildcard, no list, no bare domain. */
const EXACT_MAILBOX = /^[^\s@*?,;%]+@[^\s@*?,;%]+\.[^\s@*?,;%.]+$/;

export interface MailObservation {
  scope: { tenant_id: string; mailbox: string };
  administrator: { subject_id: string; kind: 'human' | 'service' | 'agent'; role: string; active: boolean };
  observed_at: string;
  source: { system: string; record_ref: string };
}

function scopeOf(tenant: string, mailbox: string): ScopeResult {
  if (!TENANT_ID.test(tenant)) return { ok: false, reason: 'scope_ambiguous', detail: `Tenant "${tenant}" is not one exact tenant id` };
  if (!EXACT_MAILBOX.test(mailbox)) {
    return { ok: false, reason: 'scope_ambiguous', detail: `Mailbox "${mailbox}" is not one exact mailbox (local@domain, no wildcard or list)` };
  }
  const exact = mailbox.toLowerCase();
  return { ok: true, key: scopeKey(tenant, exact), scope: { tenant_id: tenant, mailbox: exact } };
}

export const MAIL_MANAGEMENT: SurfaceSpec = {
  surface: 'mail_management',
  policy: 'identity_contracts/mail-management',
  grant: 'mail_management',
  writeScope: (_runtime, body: MailObservation) => scopeOf(body.scope.tenant_id, body.scope.mailbox),
  readScope: (query) => queryScope(query, 'mailbox', scopeOf),
  disqualify(body: MailObservation) {
    const reasons: string[] = [];
    if (!body.administrator.active) reasons.push('inactive');
    if (body.administrator.kind !== 'human') reasons.push('non_human');
    if (body.administrator.role !== 'administrator') reasons.push('not_administrator');
    return reasons;
  },
  observedAt: (body: MailObservation) => body.observed_at,
  validForSeconds: () => 3600,
  observation: (body: MailObservation) => ({ administrator: body.administrator, source: body.source }),
};
