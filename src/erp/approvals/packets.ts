// Approval Packets: requested for one target document, with a callback token of their own (only
// its SHA-256 is stored; the token is shown once, in the bundle of the request that created the
// packet) and, when AGENT_RUNTIME_URL is configured, the agent-runtime dispatch bundle. A packet
// lives in its evidence chain; each state is a new row.

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import type { Transaction } from '../../kernel/index.ts';
import { findByIdentity, getDocument, insertDocument, updateDocument } from '../database/documents.ts';
import type { ErpDocument } from '../database/documents.ts';
import { FrappeThrow, frappeThrow, signatureChallenge } from '../frappe/envelope.ts';
import { methodPath } from '../identity.ts';
import { OPEN_STATES, nextState } from './transitions.ts';
import type { PacketState } from './transitions.ts';

/** DocTypes an approval may target. */
export const APPROVABLE = ['Supplier Intake', 'Revenue Event', 'Purchase Invoice', 'Sales Invoice', 'Lead'];

const digest = (token: string) => createHash('sha256').update(token).digest();

/** A fresh callback token and the digest a packet stores as callback_token_sha256 (applyDecision checks it). */
export function issueCallbackToken(): { token: string; sha256: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, sha256: digest(token).toString('hex') };
}

export interface PacketAnswer extends Record<string, unknown> {
  approval_packet: string;
  status: PacketState;
  created: boolean;
}

export function requestPacket(sqlite: DatabaseSync, tx: Transaction, input: { doctype: string; docname: string; context: Record<string, unknown> | null; owner: string; at: Date; agentRuntimeUrl: string | undefined }): PacketAnswer {
  if (!APPROVABLE.includes(input.doctype)) frappeThrow(`DocType ${input.doctype} cannot be approved here: use one of ${APPROVABLE.join(', ')}`);
  const target = getDocument(sqlite, input.doctype, input.docname) ?? frappeThrow(`${input.doctype} ${input.docname} not found`, 'DoesNotExistError');
  const targetKey = `${input.doctype}/${input.docname}`;
  const open = findByIdentity(sqlite, 'Approval Packet', targetKey);
  if (open && OPEN_STATES.includes(open['status'] as PacketState)) return answer(open, false, null, input.agentRuntimeUrl);
  const { token, sha256 } = issueCallbackToken();
  const packet = insertDocument(sqlite, tx, {
    doctype: 'Approval Packet',
    owner: input.owner,
    at: input.at,
    fields: { target_key: targetKey, target_doctype: input.doctype, target_name: input.docname, target_modified: target.modified, approval_context: input.context, status: 'requested', decision: null, callback_token_sha256: sha256 },
  });
  return answer(packet, true, token, input.agentRuntimeUrl);
}

function answer(packet: ErpDocument, created: boolean, token: string | null, agentRuntimeUrl: string | undefined): PacketAnswer {
  const bundle = agentRuntimeUrl === undefined ? null : {
    agent_runtime_url: agentRuntimeUrl,
    approval_packet: packet.name,
    target: { doctype: packet['target_doctype'], name: packet['target_name'] },
    approval_context: packet['approval_context'],
    callback: { path: methodPath('callbacks.agent_runtime_approval'), signature: 'house', callback_token: token },
  };
  return { approval_packet: packet.name, status: packet['status'] as PacketState, created, target_doctype: packet['target_doctype'], target_name: packet['target_name'], dispatch_bundle: bundle, ...(token === null && !created && { note: 'The callback token was issued with the request that created this packet' }) };
}

export function applyDecision(sqlite: DatabaseSync, tx: Transaction, input: { packet: string; token: string | undefined; decision: 'approved' | 'rejected'; actor: Record<string, unknown>; source: string; at: Date }): Record<string, unknown> {
  const packet = getDocument(sqlite, 'Approval Packet', input.packet) ?? frappeThrow(`Approval Packet ${input.packet} not found`, 'DoesNotExistError');
  if (input.token !== undefined) {
    const stored = Buffer.from(String(packet['callback_token_sha256']), 'hex');
    if (stored.length !== 32 || !timingSafeEqual(stored, digest(input.token))) throw new FrappeThrow('AuthenticationError', 'The callback token does not match this Approval Packet', { 'www-authenticate': signatureChallenge('house') });
  }
  const status = nextState(packet.name, packet['status'] as PacketState, 'decision');
  updateDocument(sqlite, tx, packet, { status, decision: input.decision, decision_source: input.source, decision_actor: input.actor, decided_at: input.at.toISOString() }, input.at);
  return { ok: true, approval_packet: packet.name, status, decision: input.decision, closeout_allowed: false, note: 'A decision callback is execution evidence: the packet closes only after the owner readback of the target document' };
}
