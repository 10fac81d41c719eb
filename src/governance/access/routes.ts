// The identity and access routes as data: the mail-management and product-entitlement
// projections (each producer writes with its own token, each consumer reads with its own), the
// mail-admission JWKS (public) with its admission and revocation readbacks (consumer token), and
// the context composer.

import { READ_SCHEMAS } from '../routing/read-schemas.ts';
import { published, V1 } from '../routing/table-helpers.ts';
import { readinessRoute } from '../platform/readiness.ts';
import type { ReadRoute } from '../routing/read-route.ts';
import type { WriteRoute } from '../routing/write-route.ts';
import { COMPOSER_SOURCES, composeContextReply } from './context-composer.ts';
import MAIL_PROJECTION from '../../../contracts/governance/schemas/mail_management_projection_input_v1.schema.json' with { type: 'json' };
import ENTITLEMENT_PROJECTION from '../../../contracts/governance/schemas/product_entitlement_projection_input_v1.schema.json' with { type: 'json' };
import CONTEXT_COMPOSER from '../../../contracts/governance/schemas/context_composer_input_v1.schema.json' with { type: 'json' };
import { admissionsReply, jwksReply, revocationsReply } from './mail-admission.ts';
import { MAIL_MANAGEMENT } from './mail-management.ts';
import { PRODUCT_ENTITLEMENT } from './product-entitlement.ts';
import { decisionRead, projectionWrite } from './projection.ts';

const TENANT = { description: 'Tenant of the exact scope', required: true, example: 'tenant-a' };
const DECISION = { type: 'object', required: ['surface', 'scope', 'decision', 'reason', 'grants'], properties: { decision: { enum: ['allow', 'deny'] } } } as const;
const DENIED = [{ status: 403, description: 'Denied: a missing or ambiguous exact-scope read, or another lane\'s token' }];
const FAILS_CLOSED = [{ status: 503, description: 'Fail closed (awaiting_transport_owner): the key store is missing' }];
const PROJECTED = (surface: string) => [
  { status: 201, description: `Projected: fresh qualifying ${surface} truth, valid until expires_at`, schema: { type: 'object', required: ['surface', 'scope', 'effect', 'expires_at', 'evidence'], properties: { effect: { const: 'projected' } } } },
  { status: 200, description: 'Recorded, not projected: fresh truth that does not qualify withdraws the scope (its decision is deny)', schema: { type: 'object', required: ['surface', 'scope', 'effect', 'reasons', 'evidence'], properties: { effect: { const: 'withdrawn' } } } },
];

/** The lane-scoped reads: decisions, and the mail-admission JWKS with its readbacks. */
const LANE_SCOPED_READS: readonly ReadRoute[] = [
  {
    path: `${V1}/identity/mail-management/decision`, summary: 'Mail-management decision for one exact scope (consumer token); deny by default', capability: 'identity-projections',
    auth: 'mail_consumer', uses: ['identity_contracts/mail-management'], compute: decisionRead(MAIL_MANAGEMENT), schema: DECISION, responses: DENIED,
    query: { tenant_id: TENANT, mailbox: { description: 'One exact mailbox (local@domain); a wildcard, list or bare domain is denied', required: true, example: 'ops@example.com' } },
  },
  {
    path: `${V1}/identity/product-entitlement/decision`, summary: 'Product-entitlement decision for one exact scope (consumer token); deny by default', capability: 'identity-projections',
    auth: 'entitlement_consumer', uses: ['identity_contracts/entitlement-policy'], compute: decisionRead(PRODUCT_ENTITLEMENT), schema: DECISION, responses: DENIED,
    query: { tenant_id: TENANT, product: { description: 'One exact product name', required: true, example: 'governance' } },
  },
  {
    path: `${V1}/identity/mail-admission/jwks`, summary: 'Public JWKS of the mail-admission signing key (Ed25519, kid = RFC 7638 thumbprint)', capability: 'mail-admission-signing',
    uses: ['identity_contracts/mail-admission-signing'], compute: jwksReply, schema: { type: 'object', required: ['keys'], properties: { keys: { type: 'array', minItems: 1 } } }, responses: FAILS_CLOSED,
  },
  {
    path: `${V1}/identity/mail-admission/admissions`, summary: 'Signed mail admissions (compact JWS, EdDSA), one per scope allowed now (consumer token)', capability: 'mail-admission-signing',
    auth: 'mail_consumer', uses: ['identity_contracts/mail-admission-signing'], compute: admissionsReply, schema: READ_SCHEMAS[`${V1}/identity/mail-admission/admissions`]!, responses: FAILS_CLOSED,
  },
  {
    path: `${V1}/identity/mail-admission/revocations`, summary: 'Revoked mail admissions, signed as one list (consumer token)', capability: 'mail-admission-signing',
    auth: 'mail_consumer', uses: ['identity_contracts/mail-admission-signing'], compute: revocationsReply, schema: READ_SCHEMAS[`${V1}/identity/mail-admission/revocations`]!, responses: FAILS_CLOSED,
  },
];

/** Seed 001's "Identity and access" reads: the identity contracts, the lane-scoped reads, the workboard projection. */
export const IDENTITY_READS: readonly ReadRoute[] = [
  ...published('identity_contracts', [
    ['/identity/contracts/access-mapping', 'access-mapping', 'Which credential admits which surface'],
    ['/identity/contracts/entitlement-policy', 'entitlement-policy', 'Product entitlement policy (default deny)'],
    ['/identity/contracts/surface-admission', 'surface-admission', 'How a consumer is admitted to a surface'],
    ['/identity/contracts/surface-access', 'surface-access', 'How each kind of surface authenticates'],
    ['/identity/contracts/surface-lifecycle', 'surface-lifecycle', 'Surface states and what each promises'],
    ['/identity/consumers/onboarding', 'consumers-onboarding', 'Steps a new consumer takes'],
    ['/identity/agent-federation/posture', 'agent-federation', 'Agent federation posture (not deployed)'],
  ]),
  readinessRoute(`${V1}/identity/agent-federation/readiness`, 'agent-federation', 'identity_contracts/agent-federation'),
  ...LANE_SCOPED_READS,
  ...published('projections_workboard', [['/projections/workboard-unified-access', 'workboard-unified-access', 'Unified workboard access projection (owner not connected: deny)']]),
  readinessRoute(`${V1}/projections/workboard-unified-access/readiness`, 'workboard-unified-access', 'projections_workboard/workboard-unified-access'),
];

export const IDENTITY_WRITES: readonly WriteRoute[] = [
  {
    path: `${V1}/identity/mail-management/projection`, summary: 'Project mail-management administrator truth (producer token): only fresh, active, human administrator truth', auth: 'mail_producer', capability: 'identity-projections',
    schema: MAIL_PROJECTION, idempotency: 'required', keyJoinsEffect: true, uses: ['identity_contracts/mail-management'], handle: projectionWrite(MAIL_MANAGEMENT),
    responses: [...PROJECTED('administrator'), { status: 422, description: 'Refused (recorded): stale, out of order, or not one exact mailbox' }],
  },
  {
    path: `${V1}/identity/product-entitlement/projection`, summary: 'Project product-entitlement truth (producer token): only a fresh, active entitlement to a known product', auth: 'entitlement_producer', capability: 'identity-projections',
    schema: ENTITLEMENT_PROJECTION, idempotency: 'required', keyJoinsEffect: true, uses: ['identity_contracts/entitlement-policy'], handle: projectionWrite(PRODUCT_ENTITLEMENT),
    responses: [...PROJECTED('entitlement'), { status: 422, description: 'Refused (recorded): stale, out of order, or an unknown product' }],
  },
  {
    path: `${V1}/context-composer/context`, summary: 'Compose context for a role from admitted sources only; refuses caller-supplied authority', auth: 'operator', capability: 'context-composition',
    schema: CONTEXT_COMPOSER, idempotency: 'optional', uses: ['identity_contracts/context-composer', ...Object.values(COMPOSER_SOURCES)], handle: composeContextReply,
    responses: [{ status: 200, description: 'The composed context, its sources with their SHA-256, and the authority it grants (none)', schema: { type: 'object', required: ['role', 'context', 'sources', 'authority'] } }],
  },
];
