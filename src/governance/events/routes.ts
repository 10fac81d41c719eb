// Seed 001's "Event modeling and events" routes as data: the event-modeling standard, catalog
// and reports, the publishing catalog and outbox readback, runtime claims; the outbox write.

import { standardHealthReply } from './event-modeling.ts';
import { dependencyGraphReply } from '../contracts/matrix.ts';
import type { ReadRoute } from '../routing/read-route.ts';
import { readinessRoute } from '../platform/readiness.ts';
import { OUTBOX_FAMILIES, outboxReadReply, outboxRecordReply, PAGE_QUERY } from './outbox.ts';
import OUTBOX_RECORD_SCHEMA from '../../../contracts/governance/schemas/outbox_record_input_v1.schema.json' with { type: 'json' };
import type { WriteRoute } from '../routing/write-route.ts';
import { BAD_PAGE, published, V1 } from '../routing/table-helpers.ts';

export const EVENTS_READS: readonly ReadRoute[] = [
  ...published('event_modeling', [
    ['/event-modeling/standard', 'standard', 'Event-modeling standard'],
    ['/event-modeling/catalog', 'catalog', 'Events the Airlock services record or plan'],
    ['/event-modeling/issue-spec-export', 'issue-spec-export', 'Issue-spec export with its phase0_scenarios section'],
    ['/event-modeling/companion-surfaces-contract', 'companion-surfaces-contract', 'Surfaces accompanying the event catalog'],
    ['/event-modeling/audit-aggregation-contract', 'audit-aggregation-contract', 'How audit evidence is aggregated'],
    ['/event-modeling/tenant-bootstrap-contract', 'tenant-bootstrap-contract', 'How a tenant is bootstrapped'],
  ]),
  readinessRoute(`${V1}/event-modeling/readiness`, 'event-modeling', 'event_modeling/standard'),
  { path: `${V1}/event-modeling/standard-health-report`, summary: 'Every catalogued event checked against the standard', capability: 'contract-publication', uses: ['event_modeling/standard', 'event_modeling/catalog', 'planning/events-catalog'], cached: true, compute: standardHealthReply },
  { path: `${V1}/event-modeling/dependency-graph`, summary: 'Service dependency graph from governance-manifest.json', capability: 'contract-registry', cached: true, compute: dependencyGraphReply },
  ...published('events', [
    ['/events/issue-spec-export/contracts', 'issue-spec-export-contracts', 'Descriptor of the single issue-spec export path'],
    ['/events/publishing/catalog', 'publishing-catalog', 'Event families this service publishes'],
  ]),
  { path: `${V1}/events/publishing/outbox`, summary: 'Outbox records in publication order, with their hash chain, a page at a time', capability: 'event-outbox', uses: ['events/publishing-outbox'], compute: outboxReadReply, query: PAGE_QUERY, responses: BAD_PAGE },
  ...published('memory_runtime_claims', [
    ['/memory/runtime-claims/catalog', 'catalog', 'Admitted runtime claims (none)'],
    ['/memory/runtime-claims/policy', 'policy', 'What a runtime claim must carry'],
  ]),
];

export const EVENTS_WRITES: readonly WriteRoute[] = [
  {
    path: `${V1}/events/outbox/*`, members: OUTBOX_FAMILIES, summary: 'Record an outbox event of this family, its payload checked against the catalog\'s payload_schema', auth: 'operator', capability: 'event-outbox',
    schema: OUTBOX_RECORD_SCHEMA, idempotency: 'required', keyJoinsEffect: true, uses: ['events/publishing-outbox', 'event_modeling/catalog'], handle: outboxRecordReply,
    responses: [{ status: 201, description: 'Appended to the hash-chained outbox', schema: { type: 'object', required: ['recorded', 'family', 'event', 'seq', 'sha256'] } }],
  },
];
