// The webhooks.* slice: four signed intake surfaces. The kernel verifies each signature over the
// raw bytes before anything parses them (one fixed 401 otherwise, rendered in Frappe's envelope);
// the handler then parses strictly, normalizes, and records the delivery with its effect.

import { parseJsonBody } from '../../kernel/index.ts';
import type { RequestContext } from '../../kernel/index.ts';
import type { WebhookSecretName } from '../config.ts';
import { frappeHandler, signedBy } from '../erp-route.ts';
import type { DepsRef, ErpRoute } from '../erp-route.ts';
import { methodPath } from '../identity.ts';
import { normalizeStandardEvent, normalizeStripeEvent } from './payment-events.ts';
import { recordDelivery } from './record-delivery.ts';
import { stageRevenueEvent } from './stage-revenue-event.ts';
import { normalizeSupplierIntake, stageSupplierIntake } from './supplier-intake.ts';
import { normalizeContactIntake, upsertLead } from './website-contact.ts';

/** DESIGN.md: JSON bodies 1 MiB. */
const WEBHOOK_BODY = { raw: true, maxBytes: 1024 * 1024, contentTypes: ['application/json'] } as const;
const SIGNATURE_401 = { status: 401, description: 'AuthenticationError: the signature could not be verified (one fixed answer)' };

function body(context: RequestContext): unknown {
  return parseJsonBody(context.rawBody!);
}

export function webhookRoutes(deps: DepsRef): ErpRoute[] {
  const route = (fn: string, summary: string, secret: WebhookSecretName, handler: ErpRoute['handler']): ErpRoute => ({
    family: 'webhooks',
    stability: 'stable',
    method: 'POST',
    path: methodPath(`webhooks.${fn}`),
    auth: 'none',
    summary,
    request: WEBHOOK_BODY,
    signature: signedBy(deps, secret),
    responses: [{ status: 200, description: '{"message": acknowledgement}' }, SIGNATURE_401],
    handler,
  });
  return [
    route('payment_a', 'Stripe-compatible payment events (Stripe-Signature, PAYMENT_A_WEBHOOK_SECRET); payments and refunds stage a Revenue Event', 'PAYMENT_A_WEBHOOK_SECRET', frappeHandler(async (context) => {
      const payment = normalizeStripeEvent(body(context));
      return recordDelivery(deps(), { source: 'payment_a', providerEventId: payment.providerEventId, eventType: payment.eventType, rawBody: context.rawBody!, normalized: { ...payment } }, stageRevenueEvent('payment_a', payment));
    })),
    route('payment_b', 'Standard Webhooks payment events (webhook-id/-timestamp/-signature, PAYMENT_B_WEBHOOK_SECRET); payments and refunds stage a Revenue Event', 'PAYMENT_B_WEBHOOK_SECRET', frappeHandler(async (context) => {
      const payment = normalizeStandardEvent(body(context), context.signature!.id!);
      return recordDelivery(deps(), { source: 'payment_b', providerEventId: payment.providerEventId, eventType: payment.eventType, rawBody: context.rawBody!, normalized: { ...payment } }, stageRevenueEvent('payment_b', payment));
    })),
    route('supplier_intake', 'Supplier intake JSON (house scheme, AUTOMATION_SHARED_SECRET); stages a Supplier Intake', 'AUTOMATION_SHARED_SECRET', frappeHandler(async (context) => {
      const { eventId, fields } = normalizeSupplierIntake(body(context));
      return recordDelivery(deps(), { source: 'supplier_intake', providerEventId: eventId, eventType: 'supplier.intake', rawBody: context.rawBody!, normalized: fields }, stageSupplierIntake(fields));
    })),
    route('website_contact_intake', 'Website contact intake (house scheme, ERP_API_SHARED_SECRET); creates or updates one Lead per e-mail', 'ERP_API_SHARED_SECRET', frappeHandler(async (context) => {
      const intake = normalizeContactIntake(body(context));
      return recordDelivery(deps(), { source: 'website_contact_intake', providerEventId: intake.eventId, eventType: 'website.contact', rawBody: context.rawBody!, normalized: intake.lead }, upsertLead(intake));
    })),
  ];
}
