// The approval lanes of workflows.* (internal): request_approval for any approvable target, and
// the Supplier Intake and Revenue Event shortcuts. Each answers the packet, its status and the
// outbound approval bundle; a second request while the target's packet is open returns it.

import type { RequestContext } from '../../kernel/index.ts';
import { FRAPPE_AUTH } from '../frappe/authenticator.ts';
import type { Principal } from '../frappe/authenticator.ts';
import { describeType, refuseUnknown, requireString } from '../frappe/args.ts';
import { NAME_ARG, OBJECT_ARG, argsSchema, contractArgs } from '../workflows/surface-contract.ts';
import type { WorkflowContract } from '../workflows/surface-contract.ts';
import type { Args } from '../frappe/args.ts';
import { frappeMessage, frappeThrow } from '../frappe/envelope.ts';
import { ARGS_BODY, frappeHandler } from '../erp-route.ts';
import type { DepsRef, ErpRoute } from '../erp-route.ts';
import { isObject } from '../fields.ts';
import { methodPath } from '../identity.ts';
import { dispatchPacket } from '../dispatch/dispatch-packet.ts';
import { requestPacket } from './packets.ts';
import { RESOLUTIONS, recordFollowThrough, requeueDispatch } from './owner-follow-through.ts';
import type { OwnerActor, Resolution } from './owner-follow-through.ts';
import type { DatabaseSync } from 'node:sqlite';
import type { Transaction } from '../../kernel/index.ts';
import { PACKET_STATES } from './transitions.ts';

function context(args: Args): Record<string, unknown> | null {
  const value = args['approval_context'];
  if (value === undefined || value === null || value === '') return null;
  if (!isObject(value)) frappeThrow(`Argument "approval_context" must be an object, got ${describeType(value)}`);
  return value;
}

const PACKET_OUTPUT = { type: 'object', required: ['approval_packet', 'status', 'created'], properties: { approval_packet: { type: 'string' }, status: { enum: PACKET_STATES }, created: { type: 'boolean' }, dispatch_bundle: { type: ['object', 'null'] } } };
const REQUEST_APPROVAL: WorkflowContract = { input: argsSchema({ doctype: NAME_ARG, docname: NAME_ARG, approval_context: OBJECT_ARG }, ['doctype', 'docname']), output: PACKET_OUTPUT };
const DISPATCH_PACKET: WorkflowContract = {
  input: argsSchema({ approval_packet: NAME_ARG }, ['approval_packet']),
  output: { type: 'object', required: ['approval_packet', 'status', 'dispatch_job', 'dispatch_status', 'created'], properties: { approval_packet: { type: 'string' }, status: { type: 'string' }, dispatch_job: { type: 'string' }, dispatch_status: { type: 'string' }, created: { type: 'boolean' } } },
};
const REASON_ARG = { type: 'string', minLength: 1, maxLength: 2000 };
const FOLLOW_THROUGH: WorkflowContract = {
  input: argsSchema({ approval_packet: NAME_ARG, resolution: { enum: [...RESOLUTIONS] }, reason: REASON_ARG }, ['approval_packet', 'resolution', 'reason']),
  output: { type: 'object', required: ['approval_packet', 'status', 'approved', 'owner_follow_through'], properties: { approval_packet: { type: 'string' }, status: { const: 'resolved_by_owner' }, approved: { const: false }, owner_follow_through: { type: 'object' } } },
};
const REQUEUE_DISPATCH: WorkflowContract = {
  input: argsSchema({ dispatch_job: NAME_ARG, reason: REASON_ARG }, ['dispatch_job', 'reason']),
  output: { type: 'object', required: ['dispatch_job', 'dispatch_status', 'approval_packet', 'requeued'], properties: { dispatch_job: { type: 'string' }, dispatch_status: { const: 'Queued' }, approval_packet: { type: 'string' }, requeued: { type: 'integer' } } },
};
const REQUEST_BY_NAME: WorkflowContract = { input: argsSchema({ name: NAME_ARG, approval_context: OBJECT_ARG }, ['name']), output: PACKET_OUTPUT };

export function approvalRoutes(deps: DepsRef): ErpRoute[] {
  const lane = { family: 'workflows', stability: 'internal', method: 'POST', auth: FRAPPE_AUTH, request: ARGS_BODY } as const;
  const run = async (request: RequestContext, target: (args: Args) => { doctype: string; docname: string }, known: string[], contract: WorkflowContract) => {
    const args = contractArgs(request, contract);
    refuseUnknown(args, known);
    const { doctype, docname } = target(args);
    const approvalContext = context(args);
    const { store, now, config } = deps();
    const owner = (request.principal as Principal).user;
    return frappeMessage(await store.write((sqlite, tx) => requestPacket(sqlite, tx, { doctype, docname, context: approvalContext, owner, at: new Date(now()), agentRuntimeUrl: config.agentRuntimeUrl })));
  };
  // The owner's lanes: arguments checked against the contract (before any read), one store write as the authenticated actor.
  const ownerWrite = (contract: WorkflowContract, work: (args: Args, actor: OwnerActor, at: Date) => (sqlite: DatabaseSync, tx: Transaction) => Record<string, unknown>) => frappeHandler(async (request) => {
    const args = contractArgs(request, contract);
    const { user, kind } = request.principal as Principal;
    const { store, now } = deps();
    const write = work(args, { user, kind }, new Date(now()));
    return frappeMessage(await store.write(write));
  });
  return [
    {
      ...lane,
      path: methodPath('workflows.dispatch_approval_packet'),
      summary: 'Dispatch an existing Approval Packet to the agent runtime: a Dispatch Job the worker delivers with retries (same packet, same job)',
      contract: DISPATCH_PACKET,
      handler: frappeHandler(async (request) => {
        const args = contractArgs(request, DISPATCH_PACKET);
        const packet = requireString(args, 'approval_packet');
        const { store, now, config } = deps();
        const owner = (request.principal as Principal).user;
        return frappeMessage(await store.write((sqlite, tx) => dispatchPacket(sqlite, tx, { packet, agentRuntimeUrl: config.agentRuntimeUrl, owner, at: new Date(now()) })));
      }),
    },
    {
      ...lane,
      path: methodPath('workflows.record_owner_follow_through'),
      summary: 'Record the owner\'s resolution (resolution, reason) of a packet whose closeout is blocked or whose dispatch went Dead: closes it as resolved_by_owner, never approved',
      contract: FOLLOW_THROUGH,
      handler: ownerWrite(FOLLOW_THROUGH, (args, actor, at) => (sqlite, tx) => recordFollowThrough(sqlite, tx, { packet: requireString(args, 'approval_packet'), resolution: requireString(args, 'resolution') as Resolution, reason: requireString(args, 'reason', 2000), actor, at })),
    },
    {
      ...lane,
      path: methodPath('workflows.requeue_dispatch_job'),
      summary: 'Re-queue a Dead approval dispatch (dispatch_job, reason) as a new attempt with a fresh retry budget',
      contract: REQUEUE_DISPATCH,
      handler: ownerWrite(REQUEUE_DISPATCH, (args, actor, at) => (sqlite, tx) => requeueDispatch(sqlite, tx, { job: requireString(args, 'dispatch_job'), reason: requireString(args, 'reason', 2000), actor, at })),
    },
    {
      ...lane,
      path: methodPath('workflows.request_approval'),
      summary: 'Request approval of a target document (doctype, docname, approval_context): packet metadata and the agent-runtime dispatch bundle when configured',
      contract: REQUEST_APPROVAL,
      handler: frappeHandler((request) => run(request, (args) => ({ doctype: requireString(args, 'doctype'), docname: requireString(args, 'docname') }), ['doctype', 'docname', 'approval_context'], REQUEST_APPROVAL)),
    },
    {
      ...lane,
      path: methodPath('workflows.request_supplier_intake_approval'),
      summary: 'Request approval of a Supplier Intake (name, approval_context): packet status and outbound approval bundle',
      contract: REQUEST_BY_NAME,
      handler: frappeHandler((request) => run(request, (args) => ({ doctype: 'Supplier Intake', docname: requireString(args, 'name') }), ['name', 'approval_context'], REQUEST_BY_NAME)),
    },
    {
      ...lane,
      path: methodPath('workflows.request_revenue_event_approval'),
      summary: 'Request approval of a Revenue Event (name, approval_context): packet status and outbound approval bundle',
      contract: REQUEST_BY_NAME,
      handler: frappeHandler((request) => run(request, (args) => ({ doctype: 'Revenue Event', docname: requireString(args, 'name') }), ['name', 'approval_context'], REQUEST_BY_NAME)),
    },
  ];
}
