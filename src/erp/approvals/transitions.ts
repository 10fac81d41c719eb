// The Approval Packet state table (the seed leaves the transitions open; this is ours). A packet
// is only ever closed after the owner's readback of the target document: a decision callback is
// execution evidence, so it moves a packet to decision_received and no further.

import { frappeThrow } from '../frappe/envelope.ts';

export type PacketState = 'requested' | 'dispatched' | 'decision_received' | 'closed';
export type PacketEvent = 'dispatch' | 'decision' | 'owner_readback_confirmed';

/** from -> event -> to; every pair not listed is refused. */
export const TRANSITIONS: Readonly<Record<PacketState, Partial<Record<PacketEvent, PacketState>>>> = {
  requested: { dispatch: 'dispatched', decision: 'decision_received' },
  dispatched: { decision: 'decision_received' },
  decision_received: { owner_readback_confirmed: 'closed' },
  closed: {},
};

/** States in which a packet is open: a second request for its target returns it. */
export const OPEN_STATES: readonly PacketState[] = ['requested', 'dispatched', 'decision_received'];

export function nextState(packet: string, from: PacketState, event: PacketEvent): PacketState {
  const to = TRANSITIONS[from][event];
  if (to === undefined) frappeThrow(`Approval Packet ${packet} is ${from}: "${event}" is not allowed from that state`, 'InvalidStatusError');
  return to;
}
