// Seed 001's "Provider, runtime and platform" routes as data: provider and sidecar contracts,
// the operations postures and their readiness, the database, metrics and production readiness;
// the two sidecar probe writes.

import { metricsReply } from './platform-truth.ts';
import type { ReadRoute } from '../routing/read-route.ts';
import { productionReadinessRoute, readinessRoute } from './readiness.ts';
import { databaseReply } from '../tools/runtime-observation.ts';
import { sidecarSelfHealthProbeReply, sidecarStateProbeReply } from './host-observations.ts';
import SIDECAR_STATE_SCHEMA from '../../../contracts/governance/schemas/sidecar_state_probe_input_v1.schema.json' with { type: 'json' };
import SIDECAR_SELF_HEALTH_SCHEMA from '../../../contracts/governance/schemas/sidecar_self_health_probe_input_v1.schema.json' with { type: 'json' };
import type { WriteRoute } from '../routing/write-route.ts';
import { published, RECORDED, V1 } from '../routing/table-helpers.ts';

export const PLATFORM_READS: readonly ReadRoute[] = [
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
];

export const PLATFORM_WRITES: readonly WriteRoute[] = [
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
