// The support_cases.* slice: the signed support-desk inbound (house scheme, X-Signature, with
// SUPPORT_DESK_WEBHOOK_SECRET or else AUTOMATION_SHARED_SECRET), the outbound delivery to the desk
// and the business-context hydration (Frappe token or session auth).

import { parseJsonBody } from '../../kernel/index.ts';
import { frappeHandler, ARGS_BODY } from '../erp-route.ts';
import type { DepsRef, ErpRoute } from '../erp-route.ts';
import { FRAPPE_AUTH } from '../frappe/authenticator.ts';
import type { Principal } from '../frappe/authenticator.ts';
import { refuseUnknown, requestArgs } from '../frappe/args.ts';
import { frappeMessage, frappeThrow } from '../frappe/envelope.ts';
import { methodPath } from '../identity.ts';
import { bodySha256 } from '../webhooks/record-delivery.ts';
import { SUPPORT_RULES } from './normalization-rules.ts';
import { businessRefs, normalizeSupportEvent } from './normalize-event.ts';
import { supportDeskInbound } from './support-inbound.ts';
import { readOutbound, supportDeskOutbound } from './support-outbound.ts';
import { hydrateContext } from './support-context.ts';

const INBOUND_BODY = { raw: true, maxBytes: 1024 * 1024, contentTypes: ['application/json'] } as const;

export function supportRoutes(deps: DepsRef): ErpRoute[] {
  const common = { family: 'support_cases', stability: 'stable', method: 'POST' } as const;
  return [
    {
      ...common,
      path: methodPath('support_cases.support_desk_inbound'),
      auth: 'none',
      summary: 'Signed support-desk ticket or message event: normalized by contracts/erp/support_normalization_rules_v1.json, persisted once, ordered by sequence per ticket, handed off to governance',
      request: INBOUND_BODY,
      signature: {
        scheme: 'house',
        secrets: () => {
          const { config } = deps();
          const secret = config.outbound.supportDeskSecret ?? config.secrets.AUTOMATION_SHARED_SECRET;
          return secret === undefined ? [] : [secret];
        },
      },
      responses: [
        { status: 200, description: '{"message": {ok, event_audit_key, correlation_envelope, ordering_result, context_hydration_summary, governance_handoff}}' },
        { status: 401, description: 'AuthenticationError: the signature could not be verified (one fixed answer)' },
        { status: 409, description: 'DuplicateEntryError: the event_id was delivered before with another body' },
        { status: 417, description: 'ValidationError: a field is missing, of the wrong type, or not in the normalization rules' },
        { status: 503, description: '{"message": {ok: false, reason: "governance_support_handoff_failed", ...}}: persisted, Integration Event failed; redeliver to retry' },
      ],
      handler: frappeHandler(async (context) => {
        const event = normalizeSupportEvent(parseJsonBody(context.rawBody!), SUPPORT_RULES, (text) => bodySha256(Buffer.from(text)));
        return supportDeskInbound(deps(), event, context.rawBody!);
      }),
    },
    {
      ...common,
      path: methodPath('support_cases.support_desk_outbound'),
      auth: FRAPPE_AUTH,
      request: ARGS_BODY,
      summary: 'Deliver a ticket-scoped reply, note (POST /api/v1/ticket_articles) or status (PUT /api/v1/tickets/{id}) to the Zammad-compatible desk',
      responses: [
        { status: 200, description: '{"message": {ok: true, audit_event_id, delivery_result, correlation_envelope}}' },
        { status: 417, description: 'ValidationError: bad ticket_id, operation, message or status' },
        { status: 502, description: '{"message": {ok: false, audit_event_id, delivery_result, ...}}: the desk refused, timed out or is not configured' },
      ],
      handler: frappeHandler(async (context) => {
        const args = requestArgs(context);
        refuseUnknown(args, ['ticket_id', 'operation', 'message', 'status', 'correlation_envelope']);
        return supportDeskOutbound(deps(), readOutbound(args, SUPPORT_RULES), (context.principal as Principal).user);
      }),
    },
    {
      ...common,
      path: methodPath('support_cases.support_context'),
      auth: FRAPPE_AUTH,
      request: ARGS_BODY,
      summary: 'Hydrate business_refs ({doctype, name} rows) from the ERP\'s documents, with missing-object and partial-enrichment markers',
      responses: [{ status: 200, description: '{"message": {hydrated, missing, partial}}' }, { status: 417, description: 'ValidationError: business_refs is not a list of {doctype, name}' }],
      handler: frappeHandler((context) => {
        const args = requestArgs(context);
        refuseUnknown(args, ['business_refs']);
        if (args['business_refs'] === undefined) frappeThrow('Missing argument "business_refs": send a list of {"doctype", "name"} rows');
        const refs = businessRefs(args['business_refs'], undefined, undefined);
        return frappeMessage(hydrateContext(deps().store.sqlite, refs));
      }),
    },
  ];
}
