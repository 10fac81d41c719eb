// workflows.dispatch_approval_packet: hands an Approval Packet to the agent runtime through a
// Dispatch Job (dispatch_key `approval:<packet>`) that the worker delivers. A fresh callback token
// is issued here (its digest replaces the packet's) and kept in the job, so a delivery after a
// restart still carries it; readback never shows it. Dispatching again returns the same job.

import type { DatabaseSync } from 'node:sqlite';
import type { Transaction } from '../../kernel/index.ts';
import { issueCallbackToken } from '../approvals/packets.ts';
import { nextState } from '../approvals/transitions.ts';
import type { PacketState } from '../approvals/transitions.ts';
import { findByIdentity, getDocument, insertDocument, updateDocument } from '../database/documents.ts';
import { frappeThrow } from '../frappe/envelope.ts';
import { methodPath } from '../identity.ts';

export function dispatchPacket(sqlite: DatabaseSync, tx: Transaction, input: { packet: string; agentRuntimeUrl: string | undefined; owner: string; at: Date }): Record<string, unknown> {
  const packet = getDocument(sqlite, 'Approval Packet', input.packet) ?? frappeThrow(`Approval Packet ${input.packet} not found`, 'DoesNotExistError');
  const key = `approval:${packet.name}`;
  const existing = findByIdentity(sqlite, 'Dispatch Job', key);
  if (existing) return summary(packet.name, String(packet['status']), existing.name, String(existing['status']), false);
  if (input.agentRuntimeUrl === undefined) frappeThrow('AGENT_RUNTIME_URL is not configured: nothing can be dispatched', 'ServiceUnavailable');
  const status = nextState(packet.name, packet['status'] as PacketState, 'dispatch');
  const { token, sha256 } = issueCallbackToken();
  updateDocument(sqlite, tx, packet, { status, callback_token_sha256: sha256 }, input.at);
  const job = insertDocument(sqlite, tx, {
    doctype: 'Dispatch Job',
    owner: input.owner,
    at: input.at,
    fields: {
      dispatch_key: key,
      job_type: 'approval_dispatch',
      document_type: 'Approval Packet',
      document_name: packet.name,
      external_system: 'agent_runtime',
      webhook_url: input.agentRuntimeUrl,
      status: 'Queued',
      attempts: 0,
      next_attempt_at: input.at.getTime(),
      last_error: null,
      callback_token: token,
      delivery: { approval_packet: packet.name, target: { doctype: packet['target_doctype'], name: packet['target_name'] }, approval_context: packet['approval_context'], callback: { path: methodPath('callbacks.agent_runtime_approval'), signature: 'house' } },
      callback_receipts: 0,
      closeout: 'owner_readback_required',
    },
  });
  return summary(packet.name, status, job.name, 'Queued', true);
}

function summary(packet: string, packetStatus: string, job: string, jobStatus: string, created: boolean): Record<string, unknown> {
  return { approval_packet: packet, status: packetStatus, dispatch_job: job, dispatch_status: jobStatus, created };
}
