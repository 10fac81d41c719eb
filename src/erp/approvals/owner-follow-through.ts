// The owner follow-through lane (seed 002: "explicit dead-letter or owner follow-through truth").
// A packet that cannot close on its own, because its closeout is blocked (the target changed or is
// gone) or because its dispatch went Dead, waits for its owner. recordFollowThrough closes such a
// packet as resolved_by_owner, never as approved, with the owner's resolution, reason and actor, so
// a new packet can be requested for the target. requeueDispatch gives a Dead dispatch a new attempt
// budget instead. Both update the job's Dead Letter (a new row of its chain) and notify.

import type { DatabaseSync } from 'node:sqlite';
import type { JsonValue, Transaction } from '../../kernel/index.ts';
import { AGENT_NOTIFICATIONS, DEAD_LETTERS } from '../database/evidence-tables.ts';
import { findByIdentity, frappeTimestamp, getDocument, nextName, updateDocument } from '../database/documents.ts';
import type { ErpDocument } from '../database/documents.ts';
import { frappeThrow } from '../frappe/envelope.ts';
import { nextState } from './transitions.ts';
import type { PacketState } from './transitions.ts';

/** What the owner decided about a packet that could not close. */
export const RESOLUTIONS = ['abandoned', 'handled_outside', 'request_again'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

export interface OwnerActor {
  user: string;
  kind: string;
}

function deadJobOf(sqlite: DatabaseSync, packet: string): ErpDocument | undefined {
  const job = findByIdentity(sqlite, 'Dispatch Job', `approval:${packet}`);
  return job?.['status'] === 'Dead' ? job : undefined;
}

/** A new row of a Dead Letter's chain: the letter as it was, plus what the owner did. */
function updateDeadLetter(sqlite: DatabaseSync, tx: Transaction, name: unknown, fields: Record<string, unknown>, at: Date): void {
  if (typeof name !== 'string') return;
  const letter = getDocument(sqlite, 'Dead Letter', name);
  if (!letter) return;
  tx.appendChain(DEAD_LETTERS, { name, source: String(letter['source']), payload: { ...letter, ...fields, modified: frappeTimestamp(at) } as JsonValue });
}

/**
 * A packet whose dispatch went Dead got its decision by another lane (automation_hil_decision, or
 * the runtime's late callback): the Dead job awaits no owner any more. It stays Dead (its history
 * is true), leaves the backlog, and its Dead Letter says `owner_follow_through: decided`.
 */
export function settleDeadDispatch(sqlite: DatabaseSync, tx: Transaction, packet: string, at: Date): void {
  const dead = deadJobOf(sqlite, packet);
  if (!dead || dead['owner_follow_through'] !== undefined) return;
  updateDocument(sqlite, tx, dead, { owner_follow_through: 'decided' }, at);
  updateDeadLetter(sqlite, tx, dead['dead_letter'], { owner_follow_through: 'decided' }, at);
}

function notify(sqlite: DatabaseSync, tx: Transaction, at: Date, kind: string, owner: string, fields: Record<string, unknown>): void {
  const name = nextName(sqlite, 'Agent Notification', at);
  const stamp = frappeTimestamp(at);
  tx.appendChain(AGENT_NOTIFICATIONS, { name, kind, payload: { kind, ...fields, name, doctype: 'Agent Notification', docstatus: 0, owner, creation: stamp, modified: stamp } as JsonValue });
}

export function recordFollowThrough(sqlite: DatabaseSync, tx: Transaction, input: { packet: string; resolution: Resolution; reason: string; actor: OwnerActor; at: Date }): Record<string, unknown> {
  const packet = getDocument(sqlite, 'Approval Packet', input.packet) ?? frappeThrow(`Approval Packet ${input.packet} not found`, 'DoesNotExistError');
  const status = packet['status'] as PacketState;
  const dead = status === 'dispatched' ? deadJobOf(sqlite, packet.name) : undefined;
  const blocked = status === 'decision_received' && typeof packet['closeout_blocked'] === 'string' ? String(packet['closeout_blocked']) : undefined;
  if (!dead && blocked === undefined) {
    frappeThrow(`Approval Packet ${packet.name} is ${status}${status === 'dispatched' ? ' and its dispatch is not Dead' : status === 'decision_received' ? ' and its closeout is not blocked' : ''}: owner follow-through is for a packet whose closeout is blocked or whose dispatch went Dead`, 'InvalidStatusError');
  }
  const waitingFor = dead ? { kind: 'dispatch_dead', dispatch_job: dead.name, dead_letter: dead['dead_letter'] ?? null } : { kind: 'closeout_blocked', reason: blocked };
  const record = { resolution: input.resolution, reason: input.reason, actor: input.actor, recorded_at: input.at.toISOString(), waiting_for: waitingFor };
  const next = nextState(packet.name, status, 'owner_follow_through');
  updateDocument(sqlite, tx, packet, { status: next, owner_follow_through: record, closed_at: input.at.toISOString() }, input.at);
  if (dead) {
    // The job stays Dead (its history is true) but is no longer backlog awaiting the owner.
    updateDocument(sqlite, tx, dead, { owner_follow_through: 'recorded' }, input.at);
    updateDeadLetter(sqlite, tx, dead['dead_letter'], { owner_follow_through: 'recorded', owner_resolution: record }, input.at);
  }
  notify(sqlite, tx, input.at, 'owner_follow_through', input.actor.user, { approval_packet: packet.name, resolution: input.resolution });
  return { ok: true, approval_packet: packet.name, status: next, approved: false, owner_follow_through: record, note: 'The packet is closed by its owner, not approved: request a new approval for the target if one is still needed' };
}

export function requeueDispatch(sqlite: DatabaseSync, tx: Transaction, input: { job: string; reason: string; actor: OwnerActor; at: Date }): Record<string, unknown> {
  const job = getDocument(sqlite, 'Dispatch Job', input.job) ?? frappeThrow(`Dispatch Job ${input.job} not found`, 'DoesNotExistError');
  if (job['job_type'] !== 'approval_dispatch') frappeThrow(`Dispatch Job ${job.name} is not an approval dispatch: only those are delivered by this service`);
  if (job['status'] !== 'Dead') frappeThrow(`Dispatch Job ${job.name} is ${String(job['status'])}: only a Dead dispatch can be re-queued`, 'InvalidStatusError');
  const packet = getDocument(sqlite, 'Approval Packet', String(job['document_name']));
  if (packet?.['status'] !== 'dispatched') frappeThrow(`Approval Packet ${String(job['document_name'])} is ${String(packet?.['status'] ?? 'missing')}: its dispatch cannot be re-queued`, 'InvalidStatusError');
  const requeue = { reason: input.reason, actor: input.actor, requeued_at: input.at.toISOString(), previous_attempts: job['attempts'], previous_error: job['last_error'] ?? null };
  const requeues = [...((job['requeues'] as unknown[] | undefined) ?? []), requeue].slice(-20);
  // A new attempt with a fresh budget, due now; the history stays in the job's chain and in `requeues`.
  updateDocument(sqlite, tx, job, { status: 'Queued', attempts: 0, attempt_in_flight: false, next_attempt_at: input.at.getTime(), last_error: null, requeues }, input.at);
  updateDeadLetter(sqlite, tx, job['dead_letter'], { owner_follow_through: 'requeued', owner_resolution: requeue }, input.at);
  notify(sqlite, tx, input.at, 'dispatch_requeued', input.actor.user, { dispatch_job: job.name, approval_packet: job['document_name'] });
  return { ok: true, dispatch_job: job.name, dispatch_status: 'Queued', approval_packet: job['document_name'], requeued: requeues.length };
}
