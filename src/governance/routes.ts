// The governance route table: every read route of seed 001's Endpoints tables, as data. Each is
// served on both listeners (stampReadRoutes); the export, the manifest, the families, the
// projection catalog and the drift check all read this one list. `publish` routes serve an
// artifact member as it is; `compute` routes derive their answer and name what they read.

import { HEALTH_TYPE } from '../kernel/index.ts';
import type { Route } from '../kernel/index.ts';
import { admissionDryRunReply, DRY_RUN_INPUT_SCHEMA, DRY_RUN_RESULT_SCHEMA } from './admission/admission-dry-run.ts';
import { COMPATIBILITY_INPUT_SCHEMA, COMPATIBILITY_RESULT_SCHEMA, compatibilityCheckReply } from './contracts/compatibility-route.ts';
import { actionContextReply, agentCatalogReply, bootstrapReply, readOnlyCapabilityReply } from './agent/agent-context.ts';
import { contextCapabilityReply } from './acp/crm-assertion.ts';
import { driftReply } from './contracts/drift.ts';
import { standardHealthReply } from './events/event-modeling.ts';
import { HEALTH_SCHEMA, healthReply } from './health.ts';
import { dependencyGraphReply, familiesReply, matrixReply, servicesReply } from './contracts/matrix.ts';
import { productCatalogReply, registerProductReply } from './tools/products.ts';
import { openApiDocument } from './openapi-export.ts';
import { capabilitiesReply, metricsReply, projectionCatalogReply, versionTruthReply } from './platform/platform-truth.ts';
import { stampReadRoutes } from './routing/read-route.ts';
import type { ReadRoute } from './routing/read-route.ts';
import { IDENTITY_READS, IDENTITY_WRITES } from './access/routes.ts';
import { GIT_HOST_DELIVERY_SCHEMA, gitHostWebhookReply } from './tools/git-host-webhook.ts';
import { GIT_HOST_WEBHOOK_PATH } from './lanes.ts';
import { PLANNING_READS, PLANNING_WRITES } from './planning/routes.ts';
import { productionReadinessRoute, readinessRoute } from './platform/readiness.ts';
import { registryReply, schemaReply, schemasReply } from './contracts/registry.ts';
import { databaseReply, hostSnapshotReply, runtimeEvidenceReply, runtimeStatusReply } from './tools/runtime-observation.ts';
import { runtimeObservationsReply, sidecarSelfHealthProbeReply, sidecarStateProbeReply } from './platform/host-observations.ts';
import { OUTBOX_FAMILIES, outboxReadReply, outboxRecordReply, PAGE_QUERY, supportHandoffsReply } from './events/outbox.ts';
import { rolloutGateReply, updateCheckReply } from './tools/updates.ts';
import OUTBOX_RECORD_SCHEMA from '../../contracts/governance/schemas/outbox_record_input_v1.schema.json' with { type: 'json' };
import PRODUCT_REGISTRATION_SCHEMA from '../../contracts/governance/schemas/product_registration_input_v1.schema.json' with { type: 'json' };
import UPDATES_CHECK_SCHEMA from '../../contracts/governance/schemas/updates_check_input_v1.schema.json' with { type: 'json' };
import ROLLOUT_GATE_SCHEMA from '../../contracts/governance/schemas/updates_rollout_gate_input_v1.schema.json' with { type: 'json' };
import SIDECAR_STATE_SCHEMA from '../../contracts/governance/schemas/sidecar_state_probe_input_v1.schema.json' with { type: 'json' };
import SIDECAR_SELF_HEALTH_SCHEMA from '../../contracts/governance/schemas/sidecar_self_health_probe_input_v1.schema.json' with { type: 'json' };
import type { GovernanceRuntime } from './runtime.ts';
import { semanticHarnessReply } from './contracts/semantic-harness.ts';
import { stampWriteRoutes } from './routing/write-route.ts';
import type { WriteRoute } from './routing/write-route.ts';

const V1 = '/api/v1';

/** Routes publishing members of one artifact: [path under /api/v1, member, summary]. */
function published(artifact: string, rows: readonly (readonly [string, string, string])[]): ReadRoute[] {
  return rows.map(([path, member, summary]) => ({ path: `${V1}${path}`, summary, capability: 'contract-publication', publish: `${artifact}/${member}` }));
}

const NOT_FOUND = (description: string) => [{ status: 404, description }];
const BAD_PAGE = [{ status: 422, description: 'after_seq or limit is not an integer in range' }];
const RECORDED = (description: string) => ({ status: 201, description, schema: { type: 'object', required: ['recorded', 'evidence'] } });

export const READ_ROUTES: readonly ReadRoute[] = [
  {
    path: '/health', summary: 'Liveness: status, service, deployment role', capability: 'liveness',
    schema: HEALTH_SCHEMA, contentType: HEALTH_TYPE, compute: healthReply,
    responses: [{ status: 503, description: 'The database does not answer', schema: HEALTH_SCHEMA, contentType: HEALTH_TYPE }],
  },
  {
    path: `${V1}/openapi.json`, summary: 'OpenAPI 3.1 export generated from the route table', capability: 'openapi-export', cached: true,
    schema: { type: 'object', required: ['openapi', 'info', 'paths'], properties: { openapi: { const: '3.1.0' } } },
    compute: (runtime) => ({ status: 200, body: openApiDocument(runtime.routes) }),
  },

  // Core and governance
  { path: `${V1}/platform/services`, summary: 'Service list from governance-manifest.json and the stack contract', capability: 'platform-truth', cached: true, compute: servicesReply },
  { path: `${V1}/platform/version-truth`, summary: 'Version truth: release version, API base, artifact versions', capability: 'platform-truth', cached: true, compute: versionTruthReply },
  { path: `${V1}/platform/projection-catalog`, summary: 'How every read route is projected, with its projection state', capability: 'platform-truth', cached: true, compute: projectionCatalogReply },
  ...published('platform_plane', [
    ['/platform/oss-security-readback', 'oss-security-readback', 'Supply-chain posture: runtime and development dependencies'],
    ['/platform/tool-oss-inventory-directory', 'tool-oss-inventory-directory', 'Open-source components of each shipped executable'],
    ['/mcp/dashboard-readonly', 'mcp-dashboard-readonly', 'Read-only dashboard tool surface (not deployed)'],
  ]),
  { path: `${V1}/contracts/registry`, summary: 'Every contract artifact: id, version, SHA-256, schema, state', capability: 'contract-registry', cached: true, compute: registryReply },
  { path: `${V1}/contracts/drift`, summary: 'Every contradiction between manifests, route tables, contracts and docs', capability: 'drift-detection', cached: true, compute: driftReply },
  { path: `${V1}/contracts/matrix`, summary: 'Producers and consumers per contract family, from governance-manifest.json', capability: 'contract-registry', cached: true, compute: matrixReply },
  { path: `${V1}/contracts/families`, summary: 'Contract families of this service: routes, artifacts, capabilities, consumers', capability: 'contract-registry', cached: true, compute: familiesReply },
  { path: `${V1}/contracts/schemas`, summary: 'Every JSON Schema of the contract artifacts, by id', capability: 'contract-registry', cached: true, compute: schemasReply },
  {
    path: `${V1}/contracts/schemas/:schema_id`, summary: 'One JSON Schema by its id', capability: 'contract-registry', compute: schemaReply,
    params: { schema_id: { description: 'Short schema id (e.g. acp_contracts_v1) or its full $id', example: 'artifact_envelope_v1' } },
    schema: { type: 'object', required: ['$id'], properties: { $id: { type: 'string' }, $schema: { type: 'string' }, title: { type: 'string' } } }, contentType: 'application/schema+json', responses: NOT_FOUND('No schema with this id'),
  },
  ...published('contracts_governance', [
    ['/contracts/docs-standard', 'docs-standard', 'Documentation standard: mandatory sections and checked documents'],
    ['/contracts/admission-governance', 'admission-governance', 'Admission governance: review order, green-review items, dry-run schema'],
    ['/contracts/assistant', 'assistant', 'Contract assistant posture (not deployed)'],
  ]),
  readinessRoute(`${V1}/contracts/assistant/readiness`, 'contracts-assistant', 'contracts_governance/assistant'),
  ...published('governance_posture', [
    ['/governance/posture', 'posture', 'Governance posture: principles, listeners, guarded writes'],
    ['/governance/decision-rules', 'decision-rules', 'Owner decision values, rules and markers'],
  ]),
  readinessRoute(`${V1}/governance/readiness`, 'governance', 'governance_posture/posture'),
  {
    path: `${V1}/semantic/projection-verification-harness`, summary: 'Admission contract of the semantic S0 projection-verification harness', capability: 'semantic-harness-admission',
    uses: ['semantic_harness/projection-verification-harness'], cached: true, compute: semanticHarnessReply,
  },
  ...published('acp_contracts', [
    ['/acp/contracts/capability-registry', 'capability-registry', 'Capability classes and their tools'],
    ['/acp/contracts/skill-pack-events', 'skill-pack-events', 'Skill-pack event family'],
    ['/acp/contracts/agent-handoff-events', 'agent-handoff-events', 'Handoff, escalation and ownership events'],
    ['/acp/contracts/tool-action-registry', 'tool-action-registry', 'Every tool an agent or an assertion may name'],
    ['/acp/contracts/tool-execution-evidence', 'tool-execution-evidence', 'Shape of tool-execution evidence'],
  ]),
  { path: `${V1}/acp/projections/read-only-capability`, summary: 'Tools without side effects, computed from the tool-action registry', capability: 'contract-publication', uses: ['acp_contracts/tool-action-registry'], cached: true, compute: readOnlyCapabilityReply },
  ...published('acp_projections', [
    ['/acp/projections/scenario-verdict', 'scenario-verdict', 'Scenario verdicts (owner not connected)'],
    ['/acp/projections/agent-handoff-ownership', 'agent-handoff-ownership', 'Who owns each handoff decision'],
  ]),
  {
    path: `${V1}/acp/assertions/context-capability/:tool_name`, summary: 'CRM context-capability assertion; unknown companies are denied before any upstream call', capability: 'context-capability-assertion',
    uses: ['acp_context_assertion/context-capability', 'acp_contracts/tool-action-registry'], compute: contextCapabilityReply,
    params: { tool_name: { description: 'A tool of the tool-action registry that admits assertions', example: 'crm_account_context_read' } },
    query: {
      tenant_id: { description: 'Tenant of the caller\'s context', required: true, example: 'tenant-a' },
      company_id: { description: 'Company of the caller\'s context; must be admitted', required: true, example: 'company-1' },
      environment: { description: 'production, staging or development', required: true, example: 'staging', schema: { enum: ['production', 'staging', 'development'] } },
      adapter_instance_id: { description: 'CRM adapter instance of the caller\'s context', required: true, example: 'crm-adapter-1' },
      context_observed_at: { description: 'Unix seconds when the caller read the four identifiers; fresh means at most 300 s old (a fixed sample is stale: 422)', required: true, example: '1767225600', schema: { type: 'string', pattern: '^[0-9]{1,12}$' } },
    },
    schema: { type: 'object', required: ['decision', 'tool_name', 'tenant_id', 'company_id', 'environment', 'adapter_instance_id'], properties: { decision: { const: 'admitted' } } },
    responses: [
      { status: 403, description: 'Denied: tool not assertable, unknown company (upstream never contacted), or the upstream denies' },
      { status: 404, description: 'Tool not in the tool-action registry' },
      { status: 422, description: 'A parameter is missing or malformed, or the context is stale' },
      { status: 503, description: 'Fail closed (awaiting_transport_owner): no upstream, or no fresh matching upstream answer' },
    ],
  },
  ...published('docs_publication', [
    ['/docs/platform', 'platform', 'Documentation platform (no portal deployed)'],
    ['/docs/catalog', 'catalog', 'Documents this service publishes and checks'],
  ]),
  readinessRoute(`${V1}/docs/readiness`, 'docs', 'docs_publication/catalog'),

  // Identity and access
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
  ...IDENTITY_READS,
  ...published('projections_workboard', [['/projections/workboard-unified-access', 'workboard-unified-access', 'Unified workboard access projection (owner not connected: deny)']]),
  readinessRoute(`${V1}/projections/workboard-unified-access/readiness`, 'workboard-unified-access', 'projections_workboard/workboard-unified-access'),

  // Agent bootstrap
  { path: `${V1}/agent/contracts`, summary: 'Catalog of the agent contracts', capability: 'agent-bootstrap', uses: ['agent_contracts'], cached: true, compute: agentCatalogReply },
  ...published('agent_contracts', [
    ['/agent/contracts/owner-matrix', 'owner-matrix', 'Owner of each service and the decisions it takes'],
    ['/agent/contracts/capability-module-map', 'capability-module-map', 'Modules with capability class, tools and admitted intents'],
    ['/agent/contracts/task-tool-selection', 'task-tool-selection', 'How an agent picks a tool'],
    ['/agent/contracts/access-answers', 'access-answers', 'Standard answers about access'],
    ['/agent/contracts/tool-usage', 'tool-usage', 'Limits on tool use'],
    ['/agent/contracts/learning-signal', 'learning-signal', 'Learning-signal collection (not deployed)'],
    ['/agent/contracts/workflow', 'workflow', 'Contract of the agent workflow'],
    ['/agent/workflow', 'workflow-truth', 'Workflow truth as this service holds it'],
  ]),
  {
    path: `${V1}/agent/bootstrap`, summary: 'Bootstrap context filtered by the caller\'s role', capability: 'agent-bootstrap', uses: ['agent_contracts/bootstrap'], compute: bootstrapReply,
    query: { role: { description: 'operator, reviewer, consumer or agent', required: true, example: 'agent', schema: { enum: ['operator', 'reviewer', 'consumer', 'agent'] } } },
    responses: [{ status: 422, description: 'Missing or unknown role' }],
  },
  {
    path: `${V1}/agent/action-context/:module_key`, summary: 'Action context of one module', capability: 'agent-bootstrap', uses: ['agent_contracts/capability-module-map', 'acp_contracts/tool-action-registry'], compute: actionContextReply,
    params: { module_key: { description: 'A module of the capability-module map', example: 'crm-context' } },
    responses: NOT_FOUND('No module with this key'),
  },
  ...published('event_modeling', [['/agent/methodology/event-modeling', 'methodology', 'Event-modeling methodology for agents']]),

  // Tools, products, capabilities
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

  // Provider, runtime and platform
  ...published('providers_agent_runtime', [
    ['/providers/agent-runtime/runtime-status', 'runtime-status', 'Agent-runtime provider status (not deployed)'],
    ['/providers/agent-runtime/contract', 'contract', 'What an agent-runtime provider must expose'],
  ]),
  ...published('sidecar', [
    ['/sidecar/posture', 'posture', 'Sidecar posture (not attached)'],
    ['/sidecar/probe-contracts', 'probe-contracts', 'What each sidecar probe records'],
  ]),
  ...published('operations_posture', [
    ['/persistence/posture', 'persistence', 'Persistence posture'],
    ['/observability', 'observability', 'Observability posture'],
    ['/observability/dashboard-registry', 'dashboard-registry', 'Dashboard registry (not deployed)'],
    ['/observability/dashboard-provisioning', 'dashboard-provisioning', 'Dashboard provisioning (not deployed)'],
    ['/observability/alert-summary', 'alert-summary', 'Alert summary (not deployed)'],
    ['/recovery/posture', 'recovery', 'Recovery posture'],
    ['/security/posture', 'security', 'Security posture'],
    ['/signoff/posture', 'signoff', 'Sign-off posture'],
  ]),
  { path: `${V1}/persistence/database`, summary: 'governance.sqlite now: version, journal mode, evidence chains', capability: 'platform-truth', compute: databaseReply },
  readinessRoute(`${V1}/observability/readiness`, 'observability', 'operations_posture/observability'),
  readinessRoute(`${V1}/security/readiness`, 'security', 'operations_posture/security'),
  readinessRoute(`${V1}/recovery/readiness`, 'recovery', 'operations_posture/recovery'),
  readinessRoute(`${V1}/signoff/readiness`, 'signoff', 'operations_posture/signoff'),
  { path: `${V1}/monitoring/metrics`, summary: 'Tool and policy metrics', capability: 'platform-truth', uses: ['acp_contracts/tool-action-registry', 'operations_posture/security'], cached: true, compute: metricsReply },
  productionReadinessRoute(`${V1}/production-readiness/control-plane`, 'control plane', 'production_readiness/control-plane'),
  productionReadinessRoute(`${V1}/production-readiness/universal-work-security-ops`, 'universal work security operations', 'production_readiness/universal-work-security-ops'),

  // Event modeling and events
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

  // Product-domain contracts
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
  ...published('planning', [
    ['/planning/contracts', 'contracts', 'Planning family: resources and session routes'],
    ['/planning/interaction-lanes', 'interaction-lanes', 'Lane catalog'],
    ['/planning/interaction-lanes/create-session', 'create-session', 'create_session lane descriptor'],
    ['/planning/interaction-lanes/answer-turn', 'answer-turn', 'answer_turn lane descriptor'],
    ['/planning/interaction-lanes/owner-decision', 'owner-decision', 'Owner-decision lane descriptor'],
    ['/planning/interaction-lanes/start-review-round', 'start-review-round', 'Review-round lane descriptor'],
    ['/planning/events/catalog', 'events-catalog', 'Planning event vocabulary'],
  ]),
  ...PLANNING_READS,
];

/** The guarded writes, worker listener only. */
export const WRITE_ROUTES: readonly WriteRoute[] = [
  {
    path: `${V1}/tools/admission/dry-run`, summary: 'Admission dry-run: the review order step by step, a verdict per mandatory item; admits nothing',
    auth: 'operator', capability: 'admission-review', schema: DRY_RUN_INPUT_SCHEMA, idempotency: 'optional',
    uses: ['contracts_governance/admission-governance', 'contracts_governance/docs-standard', 'acp_contracts/tool-action-registry'],
    responses: [{ status: 200, description: 'The checklist: green only when every mandatory item passes and no drift blocks', schema: DRY_RUN_RESULT_SCHEMA }],
    handle: admissionDryRunReply,
  },
  {
    path: `${V1}/contracts/compatibility/check`, summary: 'Compatibility of a proposed JSON Schema in a registry mode, against a schema, versions or a contract family',
    auth: 'operator', capability: 'compatibility-check', schema: COMPATIBILITY_INPUT_SCHEMA, idempotency: 'optional',
    responses: [
      { status: 200, description: 'is_compatible and one message per breaking change, each naming its JSON Pointer', schema: COMPATIBILITY_RESULT_SCHEMA },
      { status: 404, description: 'No schema of this contract family' },
    ],
    handle: compatibilityCheckReply,
  },
  ...PLANNING_WRITES,
  ...IDENTITY_WRITES,
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
    path: `${V1}/events/outbox/*`, members: OUTBOX_FAMILIES, summary: 'Record an outbox event of this family, its payload checked against the catalog\'s payload_schema', auth: 'operator', capability: 'event-outbox',
    schema: OUTBOX_RECORD_SCHEMA, idempotency: 'required', uses: ['events/publishing-outbox', 'event_modeling/catalog'], handle: outboxRecordReply,
    responses: [{ status: 201, description: 'Appended to the hash-chained outbox', schema: { type: 'object', required: ['recorded', 'family', 'event', 'seq', 'sha256'] } }],
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
  {
    path: `${V1}/sidecar/state/probe`, summary: 'Record a sidecar state observation beside the contract readback; never overrides it', auth: 'operator', capability: 'host-observation',
    schema: SIDECAR_STATE_SCHEMA, idempotency: 'optional', uses: ['sidecar/posture', 'sidecar/probe-contracts'], handle: sidecarStateProbeReply,
    responses: [RECORDED('Recorded, with the contradictions against /api/v1/sidecar/posture; overrides_contract is false')],
  },
  {
    path: `${V1}/sidecar/invocation/self-health/probe`, summary: 'Record a sidecar invocation self-health observation; never overrides contract truth', auth: 'operator', capability: 'host-observation',
    schema: SIDECAR_SELF_HEALTH_SCHEMA, idempotency: 'optional', uses: ['sidecar/posture', 'sidecar/probe-contracts'], handle: sidecarSelfHealthProbeReply,
    responses: [RECORDED('Recorded, with the contradictions against /api/v1/sidecar/posture; overrides_contract is false')],
  },
];

/** The whole table, both listeners; `runtime` is only called when a request is served. */
export function governanceRoutes(runtime: () => GovernanceRuntime): Route[] {
  return [...stampReadRoutes(READ_ROUTES, runtime), ...stampWriteRoutes(WRITE_ROUTES, runtime)];
}
