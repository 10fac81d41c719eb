// The Approval Packet state table (the seed leaves the transitions open; this is ours). A packet
// is only ever closed after the owner's readback of the target document: a decision callback is
// execution evidence, so it moves a packet to decision_received and no further. A packet that
// cannot close (closeout blocked, or its dispatch Dead) ends as resolved_by_owner when the owner
// records a follow-through: never as approved.

import { frappeThrow } from '../frappe/envelope.ts';

export type PacketState = 'requested' | 'dispatched' | 'decision_received' | 'closed' | 'resolved_by_owner';
export type PacketEvent = 'dispatch' | 'decision' | 'owner_readback_confirmed' | 'owner_follow_through';

/** from -> event -> to; every pair not listed is refused. */
export const TRANSITIONS: Readonly<Record<PacketState, Partial<Record<PacketEvent, PacketState>>>> = {
  requested: { dispatch: 'dispatched', decision: 'decision_received' },
  // owner_follow_through: only for a dispatched packet whose Dispatch Job is Dead, or a
  // decision_received packet whose closeout is blocked (owner-follow-through.ts checks which).
  dispatched: { decision: 'decision_received', owner_follow_through: 'resolved_by_owner' },
  decision_received: { owner_readback_confirmed: 'closed', owner_follow_through: 'resolved_by_owner' },
  closed: {},
  resolved_by_owner: {},
};

/** Every state, in the table's order (the contracts' enums). */
export const PACKET_STATES = Object.keys(TRANSITIONS) as PacketState[];

/** States in which a packet is open: a second request for its target returns it. */
export const OPEN_STATES: readonly PacketState[] = ['requested', 'dispatched', 'decision_received'];

export function nextState(packet: string, from: PacketState, event: PacketEvent): PacketState {
  const to = TRANSITIONS[from][event];
  if (to === undefined) frappeThrow(`Approval Packet ${packet} is ${from}: "${event}" is not allowed from that state`, 'InvalidStatusError');
  return to;
}
