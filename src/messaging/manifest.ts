// What the messaging service declares about itself: three executables (the API, the mailbox
// adapter, the owner-readback service), the bus dependency, the seed's compose healthchecks (only
// the bus and the mailbox adapter), volumes and the route table. `npm run contracts` generates
// governance-manifest.json, configs/stack-contract.json and the OpenAPI export from it.

import type { ServiceManifest } from '../kernel/index.ts';
import { messagingRoutes, UNCONFIGURED_HANDLERS } from './routes.ts';

/** Seed 002 "Limits": messaging compose healthchecks. */
export const HEALTHCHECK = { intervalSeconds: 30, timeoutSeconds: 3, retries: 5, startPeriodSeconds: 30, lowCpuIntervalSeconds: 90 } as const;

const timing = {
  intervals: { default: HEALTHCHECK.intervalSeconds, low_cpu: HEALTHCHECK.lowCpuIntervalSeconds },
  timeoutSeconds: HEALTHCHECK.timeoutSeconds,
  retries: HEALTHCHECK.retries,
  startPeriodSeconds: HEALTHCHECK.startPeriodSeconds,
};

export const manifest: ServiceManifest = {
  service: 'messaging',
  seed: '002_fcf4d9d2760c44e4',
  title: 'Messaging service',
  description:
    'A message shuttle between agents, mailboxes and a workflow automation tool: a NATS bus (or an embedded node:sqlite bus on one host), a mailbox adapter that publishes HTTP bodies to mailbox.<mailbox> subjects, a messaging API with lane observers and restart recovery, and a bounded read-only owner-readback service',
  owner: 'messaging',
  capabilities: ['nats-bus', 'embedded-bus', 'mailbox-publish', 'msg-id-deduplication', 'lane-observers', 'restart-recovery', 'owner-readback-plan-studio-review-transport'],
  executables: [
    { name: 'messaging-api', role: 'api', source: 'src/messaging/main.ts', listeners: [{ name: 'main', port: 18040, env: 'MESSAGING_LISTEN' }] },
    { name: 'messaging-mailbox', role: 'mailbox', source: 'src/messaging/main-mailbox.ts', listeners: [{ name: 'mailbox', port: 18041, env: 'MESSAGING_MAILBOX_LISTEN' }] },
    { name: 'messaging-owner-readback', role: 'owner-readback', source: 'src/messaging/main-owner-readback.ts', listeners: [{ name: 'owner-readback', port: 18087, env: 'MESSAGING_OWNER_READBACK_LISTEN' }] },
  ],
  dependencies: [
    { name: 'nats', kind: 'http', owner: 'operator', env: 'NATS_URL', required: false },
    { name: 'messaging-database', kind: 'sqlite', owner: 'messaging', required: true },
  ],
  consumed: [
    { owner: 'nats', description: 'NATS client protocol (INFO, CONNECT, PUB/HPUB, SUB/UNSUB, MSG/HMSG, PING/PONG) on NATS_URL; subjects mailbox.<mailbox>, Nats-Msg-Id headers' },
    { owner: 'gateway targets', description: 'Log files of gateway targets, read by the lane observers (tail only, never followed)' },
  ],
  volumes: [{ path: 'messaging.sqlite', purpose: 'embedded bus messages, mailbox publication evidence (owner readback), lane observer polls and restart recoveries' }],
  verify: ['curl -fsS http://127.0.0.1:18041/healthz', 'curl -fsS http://127.0.0.1:18040/api/v1/status', 'node dist/bin/jhf-shuttle.mjs status --json'],
  contracts: [],
  openapiPath: 'contracts/api/messaging_openapi_v1.json',
  // Three listeners, three executables: each path names the listener it is on.
  openapiServersPerPath: true,
  openapiInfo: {
    title: 'Airlock messaging API, mailbox adapter and owner-readback service',
    version: '1.0.0',
    description:
      'Seed 002 messaging service. Three listeners: the API (main, 18040), the mailbox adapter (mailbox, 18041) and the owner-readback service (owner-readback, 18087). No /readyz and no /metrics on the API. Problems are RFC 9457 application/problem+json.',
  },
  securitySchemes: {
    'owner-token': { type: 'http', scheme: 'bearer', description: 'OWNER_READBACK_API_TOKEN (the seed\'s API_TOKEN); unset: 503 on every owner-readback route' },
  },
  routes: messagingRoutes(UNCONFIGURED_HANDLERS),
  healthchecks: [
    // The bus itself (nats-server's monitoring /healthz with NATS_MONITOR_URL, else a PING to
    // NATS_URL or the embedded bus's database), not the adapter in front of it: a dead NATS shows.
    { name: 'bus', probe: 'node dist/bin/jhf-shuttle.mjs ping', ...timing },
    { name: 'mailbox-adapter', probe: 'http://127.0.0.1:18041/healthz', ...timing },
  ],
};
