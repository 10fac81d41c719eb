// Seed 001's "Product-domain contracts" routes as data, planning aside (planning/routes.ts):
// deployment combinations, support orchestration with its handoff readback, voice.

import type { ReadRoute } from '../routing/read-route.ts';
import { PAGE_QUERY, supportHandoffsReply } from '../events/outbox.ts';
import { BAD_PAGE, published, V1 } from '../routing/table-helpers.ts';

export const PRODUCT_DOMAIN_READS: readonly ReadRoute[] = [
  ...published('combinations', [
    ['/combinations/profiles', 'profiles', 'Deployment profiles'],
    ['/combinations/optional-slices', 'optional-slices', 'Optional slices and their state'],
    ['/combinations/optional-slices/carrier-cti', 'optional-slices/carrier-cti', 'Carrier CTI slice'],
  ]),
  ...published('support_orchestration', [
    ['/support-orchestration/contract', 'contract', 'Support-desk inbound handoff contract'],
    ['/support-orchestration/handoff', 'handoff', 'Governance side of the support handoff: receiver route and readback'],
  ]),
  { path: `${V1}/support-orchestration/handoffs`, summary: 'Support-desk handoffs the ERP service recorded (outbox family support), in order, a page at a time', capability: 'event-outbox', uses: ['support_orchestration/handoff'], compute: supportHandoffsReply, query: PAGE_QUERY, responses: BAD_PAGE },
  ...published('voice', [
    ['/voice/contracts/events', 'contracts/events', 'Voice event types'],
    ['/voice/posture', 'posture', 'Voice posture (not deployed)'],
  ]),
];
