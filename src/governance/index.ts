// Public API of the governance service, for tests, bench servers and later verifiers.

export { createGovernanceService } from './service.ts';
export type { GovernanceServiceOptions } from './service.ts';
export { readGovernanceConfig, GOVERNANCE_CONFIG, DEPLOYMENT_ROLES, PLATFORM_LISTENER, WORKER_LISTENER } from './config.ts';
export type { GovernanceConfig, DeploymentRole } from './config.ts';
export { loadArtifacts, SCHEMA_ID_PREFIX, PROJECTION_STATES } from './artifacts.ts';
export type { ArtifactSet, LoadedArtifact, ArtifactDocument, ProjectionState } from './artifacts.ts';
export { READ_ROUTES, governanceRoutes } from './routes.ts';
export { openApiDocument } from './openapi-export.ts';
export { governanceDevDefaults } from './dev-defaults.ts';
