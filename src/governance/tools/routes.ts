// Seed 001's "Tools, products, updates" routes as data: host and runtime observations, the
// product catalog and policies, capabilities; the git-host intake, product registration, update
// check and rollout gate writes.

import { productCatalogReply, registerProductReply } from './products.ts';
import { capabilitiesReply } from '../platform/platform-truth.ts';
import type { ReadRoute } from '../routing/read-route.ts';
import { GIT_HOST_DELIVERY_SCHEMA, gitHostWebhookReply } from './git-host-webhook.ts';
import { GIT_HOST_WEBHOOK_PATH } from '../lanes.ts';
import { hostSnapshotReply, runtimeEvidenceReply, runtimeStatusReply } from './runtime-observation.ts';
import { runtimeObservationsReply } from '../platform/host-observations.ts';
import { PAGE_QUERY } from '../events/outbox.ts';
import { rolloutGateReply, updateCheckReply } from './updates.ts';
import PRODUCT_REGISTRATION_SCHEMA from '../../../contracts/governance/schemas/product_registration_input_v1.schema.json' with { type: 'json' };
import UPDATES_CHECK_SCHEMA from '../../../contracts/governance/schemas/updates_check_input_v1.schema.json' with { type: 'json' };
import ROLLOUT_GATE_SCHEMA from '../../../contracts/governance/schemas/updates_rollout_gate_input_v1.schema.json' with { type: 'json' };
import type { WriteRoute } from '../routing/write-route.ts';
import { BAD_PAGE, published, V1 } from '../routing/table-helpers.ts';

export const TOOLS_READS: readonly ReadRoute[] = [
  ...published('tools_runtime', [
    ['/tools/host-pressure-policy', 'host-pressure-policy', 'Thresholds that classify host pressure'],
    ['/tools/runtime-contracts', 'runtime-contracts', 'Where each live tools value comes from'],
  ]),
  { path: `${V1}/tools/host-snapshot`, summary: 'This host now: load, memory, pressure level', capability: 'platform-truth', uses: ['tools_runtime/host-pressure-policy'], compute: hostSnapshotReply },
  { path: `${V1}/tools/runtime-status`, summary: 'This process: role, listeners, version, database', capability: 'platform-truth', compute: runtimeStatusReply },
  { path: `${V1}/tools/runtime-evidence`, summary: 'Evidence chains of governance.sqlite, verified now', capability: 'platform-truth', compute: runtimeEvidenceReply },
  { path: `${V1}/tools/runtime-observations`, summary: 'Host observations recorded by the sidecar probes, in order; none overrides contract truth', capability: 'host-observation', uses: ['tools_runtime/runtime-contracts'], compute: runtimeObservationsReply, query: PAGE_QUERY, responses: BAD_PAGE },
  { path: `${V1}/products/catalog`, summary: 'Products: the services governance-manifest.json declares, and the products registered beside them', capability: 'platform-truth', compute: productCatalogReply },
  ...published('products', [
    ['/products/registration-policy', 'registration-policy', 'How a product is registered'],
    ['/products/update-policy', 'update-policy', 'How update checks and rollout gates decide'],
  ]),
  { path: `${V1}/capabilities`, summary: 'Capabilities of this service with the routes that serve them', capability: 'platform-truth', cached: true, compute: capabilitiesReply },
];

export const TOOLS_WRITES: readonly WriteRoute[] = [
  {
    path: GIT_HOST_WEBHOOK_PATH, summary: 'Git-host webhook intake (GitHub/Gitea): X-Hub-Signature-256 over the raw body, deduplicated by delivery id', auth: 'git_host', capability: 'git-host-intake',
    schema: GIT_HOST_DELIVERY_SCHEMA, idempotency: 'delivery_id', request: { raw: true }, uses: ['governance_posture/git-host-intake'],
    responses: [
      { status: 202, description: 'Recorded (a redelivery answers the original response with Idempotent-Replayed: true)', schema: { type: 'object', required: ['accepted', 'delivery_id', 'event', 'evidence'] } },
      { status: 400, description: 'No delivery id or event header, or malformed JSON' },
      { status: 401, description: 'Bad or missing signature: the same 401 as a missing token; nothing is stored' },
    ],
    handle: gitHostWebhookReply,
  },
  {
    path: `${V1}/products/register`, summary: 'Register a product for a manifest service while the drift list is empty; contradictions are recorded, the catalog keeps the manifest', auth: 'operator', capability: 'product-registration',
    schema: PRODUCT_REGISTRATION_SCHEMA, idempotency: 'required', uses: ['products/registration-policy'], handle: registerProductReply,
    responses: [
      { status: 201, description: 'Registered; overrides_contract is false and contradictions with the manifest are listed', schema: { type: 'object', required: ['registered', 'product', 'contradictions', 'overrides_contract', 'evidence'] } },
      { status: 409, description: 'Refused (recorded): service not in the manifest, drift not empty, or already registered' },
    ],
  },
  {
    path: `${V1}/updates/check`, summary: 'Compare a host\'s installed version with the release version; the observation never changes version truth', auth: 'operator', capability: 'update-gates',
    schema: UPDATES_CHECK_SCHEMA, idempotency: 'optional', uses: ['products/update-policy'], handle: updateCheckReply,
    responses: [{ status: 200, description: 'The verdict and both versions; overrides_contract is false', schema: { type: 'object', required: ['verdict', 'release_version', 'installed_version', 'overrides_contract', 'evidence'] } }],
  },
  {
    path: `${V1}/updates/rollout-gate`, summary: 'Open or close a rollout gate: known product, release version, empty drift, ready sign-off; deploys nothing', auth: 'operator', capability: 'update-gates',
    schema: ROLLOUT_GATE_SCHEMA, idempotency: 'required', uses: ['products/update-policy'], handle: rolloutGateReply,
    responses: [{ status: 200, description: 'gate open or closed, with every reason it is closed', schema: { type: 'object', required: ['gate', 'reasons', 'evidence'], properties: { gate: { enum: ['open', 'closed'] } } } }],
  },
];
