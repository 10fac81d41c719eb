// Seed 001's "Core and governance" routes as data: health and the export, platform truth, the
// contract catalog and drift, the governance posture, the semantic harness contract, the ACP
// contracts, projections and assertion, the docs; and the two writes of the section, the admission
// dry-run and the compatibility check.

import { HEALTH_TYPE } from '../../kernel/index.ts';
import { admissionDryRunReply, DRY_RUN_INPUT_SCHEMA, DRY_RUN_RESULT_SCHEMA } from '../admission/admission-dry-run.ts';
import { COMPATIBILITY_INPUT_SCHEMA, COMPATIBILITY_RESULT_SCHEMA, compatibilityCheckReply } from './compatibility-route.ts';
import { readOnlyCapabilityReply } from '../agent/agent-context.ts';
import { contextCapabilityReply } from '../acp/crm-assertion.ts';
import { driftReply } from './drift.ts';
import { HEALTH_SCHEMA, healthReply } from '../health.ts';
import { familiesReply, matrixReply, servicesReply } from './matrix.ts';
import { openApiDocument } from '../openapi-export.ts';
import { projectionCatalogReply, versionTruthReply } from '../platform/platform-truth.ts';
import type { ReadRoute } from '../routing/read-route.ts';
import { readinessRoute } from '../platform/readiness.ts';
import { registryReply, schemaReply, schemasReply } from './registry.ts';
import { semanticHarnessReply } from './semantic-harness.ts';
import type { WriteRoute } from '../routing/write-route.ts';
import { NOT_FOUND, published, V1 } from '../routing/table-helpers.ts';

export const CORE_READS: readonly ReadRoute[] = [
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
];

export const CORE_WRITES: readonly WriteRoute[] = [
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
];
