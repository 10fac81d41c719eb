// Evidence replication to a NATS JetStream stream (docs/replication.md): settings, the row's
// message form, the replicator the store runs, and its health check.

export { replicationConfigFromEnv, REPLICATION_VARIABLES, DEFAULT_LAG_WARN_SECONDS, DEFAULT_SYNC_TIMEOUT_SECONDS } from './config.ts';
export type { ReplicationConfig, ReplicationMode } from './config.ts';
export {
  evidenceSubject, evidenceMsgId, encodeEvidenceRow, decodeEvidenceRow, recomputeRowHash, nonCanonicalPayload, storedRowOf,
  EVIDENCE_SUBJECT_PREFIX, DEFAULT_EVIDENCE_STREAM,
} from './evidence-message.ts';
export type { StoredEvidenceRow } from './evidence-message.ts';
export type { ReplicationStatus } from './evidence-replicator.ts';
export { replicationHealthCheck } from './health-check.ts';
export { readReplicatedChains, verifyReplicatedChain, writeReplicatedChain } from './replicated-chains.ts';
export type { ReplicatedChain, ReplicatedVerification } from './replicated-chains.ts';
