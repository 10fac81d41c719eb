// request_approval, the one writing MCP tool: the same packet request as
// workflows.request_approval (requestPacket in one store write, owned by the authenticated user),
// so a second call while the target's packet is open answers that packet with created=false. A
// refused request (unknown DocType or document) is a tool result with isError, as the kernel
// turns `{ error }` into one; a store outage stays a thrown error (a pointer, not internals).

import type { McpTool } from '../../kernel/index.ts';
import { requestPacket, APPROVABLE } from '../approvals/packets.ts';
import { PACKET_STATES } from '../approvals/transitions.ts';
import type { DepsRef } from '../erp-route.ts';
import type { Principal } from '../frappe/authenticator.ts';
import { asFrappeThrow } from '../frappe/envelope.ts';

const TARGET = { type: 'object', required: ['doctype', 'name'], properties: { doctype: { type: 'string' }, name: { type: 'string' } }, additionalProperties: false };

/** What workflows.request_approval answers in its `message`, as an MCP outputSchema. */
const PACKET_RESULT = {
  type: 'object',
  required: ['approval_packet', 'status', 'created', 'target_doctype', 'target_name', 'dispatch_bundle'],
  properties: {
    approval_packet: { type: 'string', description: 'The Approval Packet name' },
    status: { enum: PACKET_STATES },
    created: { type: 'boolean', description: 'false when an open packet for the target already existed' },
    target_doctype: { type: 'string' },
    target_name: { type: 'string' },
    dispatch_bundle: {
      type: ['object', 'null'],
      description: 'The agent-runtime dispatch bundle when AGENT_RUNTIME_URL is configured; its callback_token is shown only to the call that created the packet',
      required: ['agent_runtime_url', 'approval_packet', 'target', 'approval_context', 'callback'],
      properties: { agent_runtime_url: { type: 'string' }, approval_packet: { type: 'string' }, target: TARGET, approval_context: { type: ['object', 'null'] }, callback: { type: 'object' } },
    },
    note: { type: 'string' },
  },
  additionalProperties: false,
};

export function requestApprovalTool(deps: DepsRef): McpTool {
  return {
    name: 'request_approval',
    title: 'Request approval',
    description: `Request approval of one ERP document (${APPROVABLE.join(', ')}), as POST /api/method/erp_core.api.workflows.request_approval does: an Approval Packet in state requested, or the open packet the target already has`,
    inputSchema: {
      type: 'object',
      required: ['doctype', 'docname'],
      properties: {
        doctype: { enum: APPROVABLE, description: 'The DocType of the document to approve' },
        docname: { type: 'string', minLength: 1, maxLength: 140, description: 'Its name, e.g. SUP-INT-2026-00001' },
        approval_context: { type: ['object', 'null'], description: 'Free-form context for the approver, stored with the packet' },
      },
      additionalProperties: false,
    },
    outputSchema: PACKET_RESULT,
    // Not idempotent in the hint's sense: after the packet closes, the same call opens a new one.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    handler: async (args, call) => {
      const { store, now, config } = deps();
      const owner = (call.principal as Principal).user;
      const input = { doctype: String(args['doctype']), docname: String(args['docname']), context: (args['approval_context'] ?? null) as Record<string, unknown> | null, owner, at: new Date(now()), agentRuntimeUrl: config.agentRuntimeUrl };
      try {
        return { structuredContent: await store.write((sqlite, tx) => requestPacket(sqlite, tx, input)) };
      } catch (error) {
        const refused = asFrappeThrow(error);
        if (refused) return { error: refused.message };
        throw error;
      }
    },
  };
}
