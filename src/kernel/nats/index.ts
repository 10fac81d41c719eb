// The kernel's NATS client and the part of JetStream the project uses: every service may reach a
// NATS server (or a cluster, several comma-separated URLs) through these, never through a service.

export { connectNats } from './client.ts';
export type { NatsClient, NatsClientOptions, NatsMessage, NatsStatus, NatsSubscription, ReconnectPolicy } from './client.ts';
export type { Credentials } from './connection.ts';
export { createJetStream } from './jetstream.ts';
export type { JetStream, PubAck, StreamConfig } from './jetstream.ts';
export { isValidSubject, subjectMatches } from './protocol.ts';
export type { NatsHeaders } from './protocol.ts';
export { createRequester } from './request.ts';
export type { Requester } from './request.ts';
export { parseNatsUrls, DEFAULT_NATS_PORT } from './url.ts';
export type { NatsServerAddress } from './url.ts';
