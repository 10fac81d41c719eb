// The workflows.* slice: the posting lanes and dispatch materialization (the approval, dispatch
// and owner follow-through lanes are approvals/routes.ts). Callers: Frappe token or session auth;
// arguments as JSON, form fields or query.

import { FRAPPE_AUTH } from '../frappe/authenticator.ts';
import type { Principal } from '../frappe/authenticator.ts';
import { optionalFlag, refuseUnknown, requireString } from '../frappe/args.ts';
import { FLAG_ARG, NAME_ARG, OBJECT_ARG, argsSchema, contractArgs } from './surface-contract.ts';
import type { WorkflowContract } from './surface-contract.ts';
import { frappeMessage } from '../frappe/envelope.ts';
import { ARGS_BODY, frappeHandler } from '../erp-route.ts';
import type { DepsRef, ErpRoute } from '../erp-route.ts';
import { methodPath } from '../identity.ts';
import { postRevenueEvent } from './post-revenue-event.ts';
import { postSupplierIntake } from './post-supplier-intake.ts';
import { MATERIALIZED_DOCUMENT_TYPES, MATERIALIZED_STATUSES, dispatchJobInput, jobSummary, materializeDispatchJob } from './materialize-dispatch-job.ts';

const POSTING_OUTPUT = (document: string, invoice: string) => ({
  type: 'object',
  required: ['status', 'created', document],
  properties: { status: { enum: ['posted', 'error'] }, created: { type: 'boolean' }, [document]: { type: 'string' }, [invoice]: { type: 'string' }, docstatus: { const: 0 }, errors: { type: 'array', items: { type: 'string' } } },
});
const POST_SUPPLIER_INTAKE: WorkflowContract = { input: argsSchema({ name: NAME_ARG, force: FLAG_ARG }, ['name']), output: POSTING_OUTPUT('supplier_intake', 'purchase_invoice') };
const POST_REVENUE_EVENT: WorkflowContract = { input: argsSchema({ name: NAME_ARG, force: FLAG_ARG }, ['name']), output: POSTING_OUTPUT('revenue_event', 'sales_invoice') };
const TEXT_ARG = { type: 'string', maxLength: 500 };
const MATERIALIZE_DISPATCH_JOB: WorkflowContract = {
  input: argsSchema({
    dispatch_job: NAME_ARG,
    ...Object.fromEntries(['dispatch_key', 'document_name', 'company', 'job_type', 'external_system', 'provider', 'callback_url', 'webhook_url'].map((f) => [f, TEXT_ARG])),
    status: { enum: [...MATERIALIZED_STATUSES, ''] },
    document_type: { enum: [...MATERIALIZED_DOCUMENT_TYPES, ''] },
    callback_payload: OBJECT_ARG,
  }, ['dispatch_job']),
  output: { type: 'object', required: ['dispatch_job', 'dispatch_key', 'status', 'created'], properties: { dispatch_job: { type: 'string' }, dispatch_key: { type: 'string' }, status: { type: 'string' }, created: { type: 'boolean' } } },
};

export function workflowRoutes(deps: DepsRef): ErpRoute[] {
  const lane = { family: 'workflows', stability: 'internal', method: 'POST', auth: FRAPPE_AUTH, request: ARGS_BODY } as const;
  return [
    {
      ...lane,
      path: methodPath('workflows.post_supplier_intake'),
      summary: 'Post a staged Supplier Intake (name, optional force) to a draft Purchase Invoice, or report the posting error state',
      contract: POST_SUPPLIER_INTAKE,
      handler: frappeHandler(async (context) => {
        const args = contractArgs(context, POST_SUPPLIER_INTAKE);
        refuseUnknown(args, ['name', 'force']);
        const name = requireString(args, 'name');
        const force = optionalFlag(args, 'force');
        const { store, suppliers, now } = deps();
        const owner = (context.principal as Principal).user;
        const known = suppliers();
        return frappeMessage(await store.write((sqlite, tx) => postSupplierIntake(sqlite, tx, { name, force, suppliers: known, at: new Date(now()), owner })));
      }),
    },
    {
      ...lane,
      path: methodPath('workflows.post_revenue_event'),
      summary: 'Post a staged Revenue Event (name, optional force) to a draft Sales Invoice, or report the posting error state',
      contract: POST_REVENUE_EVENT,
      handler: frappeHandler(async (context) => {
        const args = contractArgs(context, POST_REVENUE_EVENT);
        refuseUnknown(args, ['name', 'force']);
        const name = requireString(args, 'name');
        const force = optionalFlag(args, 'force');
        const { store, now } = deps();
        const owner = (context.principal as Principal).user;
        return frappeMessage(await store.write((sqlite, tx) => postRevenueEvent(sqlite, tx, { name, force, at: new Date(now()), owner })));
      }),
    },
    {
      ...lane,
      // Seed "Versioning" labels dispatch materialization stable, though its callers are internal.
      stability: 'stable',
      path: methodPath('workflows.materialize_dispatch_callback_job'),
      summary: 'Pre-create (or reuse, by dispatch_key) the Dispatch Job truth that signed callbacks are replayed against',
      contract: MATERIALIZE_DISPATCH_JOB,
      handler: frappeHandler(async (context) => {
        const input = dispatchJobInput(contractArgs(context, MATERIALIZE_DISPATCH_JOB));
        const { store, now } = deps();
        const owner = (context.principal as Principal).user;
        const { job, created } = await store.write((sqlite, tx) => materializeDispatchJob(sqlite, tx, { ...input, owner, at: new Date(now()) }));
        return frappeMessage(jobSummary(job, created));
      }),
    },
  ];
}
