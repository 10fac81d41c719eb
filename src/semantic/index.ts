// The semantic service's public API, for its verifiers (issue 6), npm start and tests: contract
// loaders and checks, the control database, reconciliation, compartmented reads, readbacks.

export { CDC_CONTRACT, CONSUMER_MATRIX, checkCdcMatrix, consumerAdmission } from './cdc-matrix.ts';
export type { Admission, CdcConsumer, CdcSurface, ConsumerStatus } from './cdc-matrix.ts';
export { checkConsumerTokens, readConsumerTokens } from './consumer-tokens.ts';
export type { ConsumerToken } from './consumer-tokens.ts';
export { ISOLATION_DOMAINS_CONTRACT, ISOLATION_DOMAIN_REFS, checkIsolationDomainsContract, isIsolationDomain } from './isolation-domains.ts';
export { CONTROL_EVIDENCE_TABLES, CONTROL_MIGRATIONS, CONTROL_SCHEMA_VERSION, READBACK_TABLE, RECEIPTS_TABLE, openControlDatabase } from './control-schema.ts';
export type { ReadbackPayload, ReceiptPayload } from './control-schema.ts';
export { EXPECTED_CONTROL_SCHEMA, checkSchemaIntegrity, describeGraphSchema } from './schema-integrity.ts';
export type { SchemaIntegrityReceipt } from './schema-integrity.ts';
export { INGEST_RECORD_SCHEMA, decideIngestRecord } from './ingest-record.ts';
export type { IngestDecision, QuarantineReason } from './ingest-record.ts';
export { enqueueRecords, parseJsonLines } from './ingest-inbox.ts';
export { reconcileOnce, MAX_BATCH_SIZE } from './reconcile.ts';
export { startReconciliationWorker } from './reconciliation-worker.ts';
export { readCompartment } from './graph-read.ts';
export type { CompartmentRead, TraceStep } from './graph-read.ts';
export { tenantHash } from './tenant-hash.ts';
export { ASYNCAPI_CONTRACT, contractChannels, payloadValidator, readOutbox } from './event-outbox.ts';
export { artifactSource, pickMetrics, readRuntimeOwnerArtifact, unavailable } from './runtime-owner-artifact.ts';
export type { ArtifactRead, MetricValue, Unavailable } from './runtime-owner-artifact.ts';
export { TOPOLOGY_METRICS, readTopologyMetrics } from './topology-metrics.ts';
export { FIXTURES, fixtureReceipt } from './fixtures.ts';
export { FIXTURES_CONTRACT, FIXTURE_NAMES } from './fixture-contract.ts';
export { PROJECTION_RECEIPTS, projectionRunBody } from './projection-verification.ts';
export { AUTHORITY_BOUNDARY_FLAGS } from './context-readback.ts';
export { lanePosture } from './lane-posture.ts';
export { ACTIVATION_STAGES, API_SPEC, WORKER_SPEC, loadApiConfig, loadWorkerConfig } from './config.ts';
export type { ActivationStage, ApiConfig, WorkerConfig } from './config.ts';
export { CONTEXT_PATH, FIXTURE_PREFIX, PROJECTION_PATH, STATUS_PATH, TOPOLOGY_PATH, semanticRoutes } from './routes.ts';
export { createSemanticService } from './service.ts';
export { semanticDevDefaults } from './dev-defaults.ts';
export { manifest as SEMANTIC_MANIFEST } from './manifest.ts';
