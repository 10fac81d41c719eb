// Public API of the governance service, for tests, bench servers and later verifiers.

export { createGovernanceService } from './service.ts';
export type { GovernanceServiceOptions } from './service.ts';
export { readGovernanceConfig, GOVERNANCE_CONFIG, DEPLOYMENT_ROLES, PLATFORM_LISTENER, WORKER_LISTENER, LANES, LANE_VARIABLES } from './config.ts';
export type { GovernanceConfig, DeploymentRole, Lane } from './config.ts';
export { loadArtifacts, SCHEMA_ID_PREFIX, PROJECTION_STATES } from './contracts/artifacts.ts';
export type { ArtifactSet, LoadedArtifact, ArtifactDocument, ProjectionState } from './contracts/artifacts.ts';
export { READ_ROUTES, WRITE_ROUTES, governanceRoutes } from './routes.ts';
export type { WriteRoute } from './routing/write-route.ts';
export { ROUTE_LANES, SECURITY_SCHEMES, GIT_HOST_WEBHOOK_PATH } from './lanes.ts';
export type { LaneAuth, RouteAuth } from './lanes.ts';
export { openApiDocument } from './openapi-export.ts';
export { governanceDevDefaults } from './dev-defaults.ts';
export { checkCompatibility, findNarrowings, COMPATIBILITY_MODES, isCompatibilityMode } from './compatibility/index.ts';
export type { CompatibilityMode, CompatibilityRequest, CompatibilityResult, BreakingChange, SchemaVersion } from './compatibility/index.ts';
export { jwkThumbprint } from './access/signing-key.ts';
export type { PublicJwk } from './access/signing-key.ts';
