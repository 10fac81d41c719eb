// The kernel's front door: services and scripts import from here, never from a kernel file.

export { AirlockError, isAirlockError } from './errors.ts';
export type { AirlockErrorCode } from './errors.ts';

export { createLogger, flushLogLines, REDACTED, LOG_LEVEL_VARIABLE, LOG_LEVEL_HELP, logLevelFromEnv } from './log.ts';
export type { Logger, LogLevel, LogFields, LoggerOptions } from './log.ts';

export { readConfig, secretValues, parseListenAddress } from './config.ts';
export type { ConfigSpec, ConfigValues, VarSpec, ListenAddress } from './config.ts';
export { environmentHelp, helpText } from './help-text.ts';

export { defineCommand, runCommand, main, usageError, wholeNumberOption, formatHelp, createProgress, EXIT_OK, EXIT_FAILED, EXIT_USAGE } from './cli.ts';
export type { CommandSpec, CommandContext, CommandIO, ExitCode, OptionSpec, OptionSpecs, Progress } from './cli.ts';

export { defineRoutes } from './http/route.ts';
export type { Route, Reply, RequestContext, Handler, Authenticator, AuthOutcome, Method, JsonSchema, RequestSpec, ResponseSpec, ParameterSpec, SignatureSpec, IdempotencySpec } from './http/route.ts';
export type { IdempotencyClaim } from './http/route.ts';
export { writeReply } from './http/write-reply.ts';
export type { WriteReplyOptions } from './http/write-reply.ts';
export { createRouter } from './http/router.ts';
export type { Router, RouteMatch } from './http/router.ts';
export { json, problem, health, JSON_TYPE, PROBLEM_TYPE, HEALTH_TYPE, PROBLEM_URN } from './http/reply.ts';
export type { ProblemInit, HealthCheck, HealthStatus } from './http/reply.ts';
export { strongEtag } from './http/send.ts';
export { DEFAULT_BODY_LIMIT, MAX_JSON_DEPTH, mediaTypeOf, parseJsonBody } from './http/body.ts';
export { SERVER_ERROR_LOGGER, SERVER_ERROR_MESSAGE } from './http/pipeline.ts';
export type { ProblemRenderer } from './http/pipeline.ts';
export { isLoopbackHost, checkListenHost, ALLOW_NON_LOOPBACK_VARIABLE } from './http/loopback.ts';
export { createService, MAIN_LISTENER, HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from './http/service.ts';
export type { Service, ServiceOptions, ListenerOptions, ListeningLine, SchemaCompiler, AnswerInfo } from './http/service.ts';
export { EVIDENCE_REPLICATION_HELP, runService, SERVICE_HELP_FOOTER } from './http/run-service.ts';
export { ACCESS_LOG_VARIABLE, ACCESS_LOG_MESSAGE, accessLogEnabled } from './http/access-log.ts';
export { clientErrorReply } from './http/client-error.ts';
export type { RunServiceOptions } from './http/run-service.ts';

export { versionTruth } from './version.ts';
export { exportOpenApi } from './http/openapi.ts';
export { openApiRoute } from './http/openapi-route.ts';
export type { OpenApiInfo, OpenApiOptions, ErrorBody } from './http/openapi.ts';

export { buildGovernanceManifest, buildStackContract, buildOpenApi, exposedSurfaces } from './manifest.ts';
export type { ServiceManifest, ExecutableDeclaration, ListenerDeclaration, DependencyDeclaration, ConsumedSurface, HealthcheckDeclaration } from './manifest.ts';

export { verifySignature, signRequest, checkSecret, verifyToken, whichToken, parseBearer, SIGNATURE_SCHEMES, SIGNATURE_TOLERANCE_SECONDS } from './auth/index.ts';
export type { SignatureScheme, SignatureResult, SignatureFailureReason, SignedHeaders, IncomingHeaders } from './auth/index.ts';

export {
  openDatabase, openDatabaseReadOnly, migrate, userVersion, defineEvidenceTable, listEvidenceTables, readRows, readRowsSql, projectRows, ensureTrigger,
  verifyChain, verifyChainParallel, verifyAllChains, createChainWatch, canonicalJson, rowHash, GENESIS_SHA256, statement,
  createIdempotencyStore, lazyIdempotencyStore, requestFingerprint, parseIdempotencyKey, MIN_IDEMPOTENCY_RETENTION_MS,
  createReadPool, IDEMPOTENCY_ANSWERS, restoreIdempotencyKeys,
} from './store/index.ts';
export type {
  Store, Transaction, OpenDatabaseOptions, Migration, EvidenceTable, EvidenceRow, EvidenceInput, JsonValue, ChainVerification,
  IdempotencyStore, IdempotencyBegin, StoredResponse, ReadPool, ReadResult, RecordsResult, RecordShape, SqlFunction,
} from './store/index.ts';

export { compileSchema } from './schema/index.ts';
export type { CompileOptions, SchemaValidator, ValidationError, ValidationResult } from './schema/index.ts';

export { writeFileAtomic } from './write-file-atomic.ts';
export { readFileBounded } from './read-file-bounded.ts';
export { timeOrderedUuid } from './time-ordered-uuid.ts';
export type { BoundedRead } from './read-file-bounded.ts';

export { createMcpServer, mcpRoutes, MCP_PROTOCOL_VERSIONS, SESSION_PROTOCOL_VERSIONS, STATELESS_PROTOCOL_VERSIONS } from './mcp/index.ts';
export type { McpServer, McpServerOptions, McpMount, McpRoutesOptions, McpTool, McpToolCall, McpToolOutcome, McpToolAnnotations, McpServerInfo } from './mcp/index.ts';
export { ensureDevSecrets, DEV_SECRETS_FILE } from './dev-secrets.ts';

export { connectNats, createJetStream, createRequester, isValidSubject, subjectMatches, parseNatsUrls, DEFAULT_NATS_PORT } from './nats/index.ts';
export type {
  NatsClient, NatsClientOptions, NatsMessage, NatsStatus, NatsSubscription, ReconnectPolicy, Credentials as NatsCredentials,
  JetStream, PubAck, StreamConfig, NatsHeaders, Requester, NatsServerAddress,
} from './nats/index.ts';
export { createStreamApi } from './nats/stream-api.ts';
export type { StreamApi, StoredMessage, PublishOutcome } from './nats/stream-api.ts';
export { createObjectStore, OBJECT_CHUNK_BYTES } from './nats/object-store.ts';
export type { ObjectStore, ObjectInfo } from './nats/object-store.ts';

export {
  replicationConfigFromEnv, REPLICATION_VARIABLES, evidenceSubject, evidenceMsgId, encodeEvidenceRow, decodeEvidenceRow, recomputeRowHash,
  nonCanonicalPayload, storedRowOf, replicationHealthCheck, EVIDENCE_SUBJECT_PREFIX, DEFAULT_EVIDENCE_STREAM,
  readReplicatedChains, verifyReplicatedChain, writeReplicatedChain,
} from './replication/index.ts';
export type { ReplicationConfig, ReplicationMode, ReplicationStatus, StoredEvidenceRow, ReplicatedChain, ReplicatedVerification } from './replication/index.ts';
