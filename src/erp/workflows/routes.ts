// The workflows.* slice (part 1: the posting lanes). Callers: Frappe token or session auth;
// arguments as JSON, form fields or query. Later issues add the approval and dispatch lanes here.

import { FRAPPE_AUTH } from '../frappe/authenticator.ts';
import type { Principal } from '../frappe/authenticator.ts';
import { optionalFlag, refuseUnknown, requestArgs, requireString } from '../frappe/args.ts';
import { frappeMessage } from '../frappe/envelope.ts';
import { ARGS_BODY, frappeHandler } from '../erp-route.ts';
import type { DepsRef, ErpRoute } from '../erp-route.ts';
import { methodPath } from '../identity.ts';
import { postRevenueEvent } from './post-revenue-event.ts';
import { postSupplierIntake } from './post-supplier-intake.ts';
import { dispatchJobInput, jobSummary, materializeDispatchJob } from './materialize-dispatch-job.ts';

export function workflowRoutes(deps: DepsRef): ErpRoute[] {
  const lane = { family: 'workflows', stability: 'internal', method: 'POST', auth: FRAPPE_AUTH, request: ARGS_BODY } as const;
  return [
    {
      ...lane,
      path: methodPath('workflows.post_supplier_intake'),
      summary: 'Post a staged Supplier Intake (name, optional force) to a draft Purchase Invoice, or report the posting error state',
      handler: frappeHandler(async (context) => {
        const args = requestArgs(context);
        refuseUnknown(args, ['name', 'force']);
        const name = requireString(args, 'name');
        const force = optionalFlag(args, 'force');
        const { store, config, now } = deps();
        const owner = (context.principal as Principal).user;
        return frappeMessage(await store.write((sqlite, tx) => postSupplierIntake(sqlite, tx, { name, force, suppliers: config.suppliers, at: new Date(now()), owner })));
      }),
    },
    {
      ...lane,
      path: methodPath('workflows.post_revenue_event'),
      summary: 'Post a staged Revenue Event (name) to a draft Sales Invoice, or report the posting error state',
      handler: frappeHandler(async (context) => {
        const args = requestArgs(context);
        refuseUnknown(args, ['name']);
        const name = requireString(args, 'name');
        const { store, now } = deps();
        const owner = (context.principal as Principal).user;
        return frappeMessage(await store.write((sqlite, tx) => postRevenueEvent(sqlite, tx, { name, at: new Date(now()), owner })));
      }),
    },
    {
      ...lane,
      // Seed "Versioning" labels dispatch materialization stable, though its callers are internal.
      stability: 'stable',
      path: methodPath('workflows.materialize_dispatch_callback_job'),
      summary: 'Pre-create (or reuse, by dispatch_key) the Dispatch Job truth that signed callbacks are replayed against',
      handler: frappeHandler(async (context) => {
        const input = dispatchJobInput(requestArgs(context));
        const { store, now } = deps();
        const owner = (context.principal as Principal).user;
        const { job, created } = await store.write((sqlite, tx) => materializeDispatchJob(sqlite, tx, { ...input, owner, at: new Date(now()) }));
        return frappeMessage(jobSummary(job, created));
      }),
    },
  ];
}
