// The governance service (seed 001) at scale. A business event is one guarded write, in the mix
// its evidence grows by in operation: per ten writes, five support-desk handoffs the ERP records
// in the outbox (POST /api/v1/events/outbox/support, Idempotency-Key = the event's audit key: the
// write another service sends all day), two sidecar state probes (host observations), two signed
// git-host deliveries, and one planning write (a new session, or a turn on the last one; each
// also appends its planning.* outbox record). Every read of the route table is timed on the
// platform listener, lane-scoped reads with their lane's token.

import { createHmac, randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger, requestFingerprint } from '../../../src/kernel/index.ts';
import type { Reply, RequestContext, Service } from '../../../src/kernel/index.ts';
import { createGovernanceService, readGovernanceConfig } from '../../../src/governance/index.ts';
import { ROUTE_LANES } from '../../../src/governance/lanes.ts';
import { READ_ROUTES, WRITE_ROUTES } from '../../../src/governance/routes.ts';
import type { GovernanceRuntime } from '../../../src/governance/runtime.ts';
import type { GrowOutcome, ReadRoute, ScaleProfile } from '../profile.ts';

const TOKENS: Record<string, string> = {
  operator: 'scale-bench-operator-token-0001',
  bff: 'scale-bench-bff-token-0001',
  mail_producer: 'scale-bench-mail-producer-0001',
  mail_consumer: 'scale-bench-mail-consumer-0001',
  entitlement_producer: 'scale-bench-entitlement-producer-0001',
  entitlement_consumer: 'scale-bench-entitlement-consumer-0001',
};
const GIT_SECRET = 'scale-bench-git-host-secret';
const GROW_CONCURRENCY = 32;

/** One guarded write as the worker listener receives it. */
interface PlannedWrite {
  /** The route's path in the table (`/api/v1/events/outbox/*`, `.../:session_id/turns`). */
  route: string;
  path: string;
  params: Record<string, string>;
  lane: string;
  headers: Record<string, string>;
  body: Buffer;
}

const bearer = (lane: string) => ({ authorization: `Bearer ${TOKENS[lane]!}` });

/** The n-th write of the mix; `session` is the planning session the turns go to. */
function planWrite(n: number, session: { id?: string; turns: number }): PlannedWrite {
  const now = new Date().toISOString();
  const slot = n % 10;
  const json = (value: unknown) => Buffer.from(JSON.stringify(value));
  if (slot < 5) {
    const ticket = String(1000 + Math.floor(n / 10));
    const key = `support_desk:zammad:${ticket}:${n}`;
    const body = json({
      event: slot === 0 ? 'support.ticket_opened' : 'support.ticket_updated',
      occurred_at: now,
      correlation_id: `support:${ticket}`,
      payload: { event_audit_key: key, integration_event: `INT-EVT-2026-${String(n).padStart(5, '0')}`, ticket_id: ticket, sequence: n, kind: 'ticket', lifecycle: 'open', priority: 'normal', status_label: 'Waiting for customer', business_refs: [{ doctype: 'Sales Invoice', name: `ACC-SINV-2026-${ticket}` }], attachment_count: 0 },
    });
    return { route: '/api/v1/events/outbox/*', path: '/api/v1/events/outbox/support', params: { '*': 'support' }, lane: 'operator', headers: { ...bearer('operator'), 'idempotency-key': `"${key}"` }, body };
  }
  if (slot < 7) {
    const body = json({ sidecar_id: `sidecar-${n % 50}`, state: n % 3 === 0 ? 'detached' : 'attached', observed_at: now });
    return { route: '/api/v1/sidecar/state/probe', path: '/api/v1/sidecar/state/probe', params: {}, lane: 'operator', headers: { ...bearer('operator'), 'idempotency-key': `"probe-${randomUUID()}"` }, body };
  }
  if (slot < 9) {
    const after = createHmac('sha256', 'scale').update(String(n)).digest('hex').slice(0, 40);
    const body = json({ ref: 'refs/heads/main', after, repository: { full_name: `airlock/repo-${n % 20}` }, sender: { login: 'ci' } });
    const signature = `sha256=${createHmac('sha256', GIT_SECRET).update(body).digest('hex')}`;
    return { route: '/api/v1/integrations/git-host/webhook', path: '/api/v1/integrations/git-host/webhook', params: {}, lane: 'git_host', headers: { 'x-github-event': 'push', 'x-github-delivery': randomUUID(), 'x-hub-signature-256': signature }, body };
  }
  // A session takes four turns, then a new one starts.
  if (session.id === undefined || session.turns >= 4) {
    const body = json({ title: `Plan ${n}`, goal: 'Keep the outbox readable at a million rows', requested_by: { kind: 'human', subject_id: 'scale-bench' } });
    return { route: '/api/v1/planning/sessions', path: '/api/v1/planning/sessions', params: {}, lane: 'bff', headers: { ...bearer('bff'), 'idempotency-key': `"plan-${randomUUID()}"` }, body };
  }
  session.turns += 1;
  const body = json({ turn_id: `t${session.turns}`, based_on_revision: session.turns, question: 'Which read grows?', answer: 'None may', answered_by: { kind: 'human', subject_id: 'scale-bench' } });
  return { route: '/api/v1/planning/sessions/:session_id/turns', path: `/api/v1/planning/sessions/${session.id}/turns`, params: { session_id: session.id }, lane: 'bff', headers: { ...bearer('bff'), 'idempotency-key': `"turn-${randomUUID()}"` }, body };
}

function send(agent: Agent, url: URL, planned: PlannedWrite): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = request(new URL(planned.path, url), { method: 'POST', agent, headers: { ...planned.headers, 'content-type': 'application/json', 'content-length': String(planned.body.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.end(planned.body);
  });
}

/**
 * The route's own handler in this process, as the kernel would run it after authentication and
 * the schema check: a keyed route's Idempotency-Key is begun in the service's key store and its
 * answer stored inside the effect's transaction (writeReply), as on the wire.
 */
async function runWrite(runtime: GovernanceRuntime, planned: PlannedWrite): Promise<{ status: number; body: string }> {
  const write = WRITE_ROUTES.find((w) => w.path === planned.route)!;
  const context = {
    method: 'POST', path: planned.path, query: new URLSearchParams(), params: planned.params, headers: { ...planned.headers, 'content-type': 'application/json' },
    requestId: randomUUID(), listener: 'worker', remoteAddress: '127.0.0.1', rawBody: planned.body, body: JSON.parse(planned.body.toString('utf8')),
    principal: planned.lane, signature: undefined, log: runtime.log,
  } as RequestContext;
  const key = planned.headers['idempotency-key']?.slice(1, -1);
  const text = (reply: Reply) => (reply.raw !== undefined ? Buffer.from(reply.raw as Uint8Array).toString('utf8') : JSON.stringify(reply.body));
  if (key === undefined || write.idempotency === 'delivery_id') {
    const reply = await write.handle(runtime, context);
    return { status: reply.status, body: text(reply) };
  }
  const ref = { scope: `worker POST ${write.path} ${planned.lane}`, key };
  const begun = await runtime.idempotency.begin({ ...ref, fingerprint: requestFingerprint({ method: 'POST', path: planned.path, body: planned.body }) });
  if (begun.kind !== 'started') throw new Error(`Idempotency-Key "${key}" was not fresh (${begun.kind})`);
  context.idempotency = {
    completeWithin(sqlite, reply) {
      const body = Buffer.from(text(reply));
      runtime.idempotency.completeWithin!(sqlite, { ...ref, token: begun.token, response: { status: reply.status, headers: { 'content-type': 'application/json; charset=utf-8' }, body } });
      return { status: reply.status, raw: body, contentType: 'application/json; charset=utf-8' };
    },
    stored: undefined,
  };
  const reply = await write.handle(runtime, context);
  return { status: reply.status, body: text(reply) };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Every read of the route table, sample values in its path parameters, with the credential it needs. */
function tableReads(sessionId: () => string | undefined): ReadRoute[] {
  const reads: ReadRoute[] = [];
  for (const read of READ_ROUTES) {
    // A lane-scoped read takes the token of the first lane the platform listener admits for it.
    const headers = read.auth === undefined ? {} : bearer(ROUTE_LANES[read.auth].platform[0] ?? 'operator');
    const params = Object.entries(read.params ?? {});
    const fill = (session: string | undefined) => params.reduce((path, [name, spec]) => path.replace(`:${name}`, name === 'session_id' && session !== undefined ? session : String(spec.example ?? 'x')), read.path);
    const query = new URLSearchParams(Object.entries(read.query ?? {}).flatMap(([name, spec]) => (spec.example === undefined || spec.required !== true ? [] : [[name, String(spec.example)]]))).toString();
    const request = { headers, get path() {
      const path = fill(sessionId());
      return query === '' ? path : `${path}?${query}`;
    } };
    reads.push({ name: `GET ${read.path}`, request: request as ReadRoute['request'] });
  }
  return reads;
}

export function governanceProfile(): ScaleProfile {
  const grown: GrowOutcome = { events: 0, rawBytes: 0 };
  const session: { id?: string; turns: number } = { turns: 0 };
  let workerPort = 0;
  const remember = (planned: PlannedWrite, status: number, body: string) => {
    if (status !== 201 && status !== 202) return false;
    if (planned.route === '/api/v1/planning/sessions') Object.assign(session, { id: (JSON.parse(body) as { session_id: string }).session_id, turns: 0 });
    return true;
  };
  const tokenEnv = {
    GOVERNANCE_OPERATOR_TOKEN: TOKENS['operator']!, GOVERNANCE_BFF_TOKEN: TOKENS['bff']!,
    GOVERNANCE_MAIL_PRODUCER_TOKEN: TOKENS['mail_producer']!, GOVERNANCE_MAIL_CONSUMER_TOKEN: TOKENS['mail_consumer']!,
    GOVERNANCE_ENTITLEMENT_PRODUCER_TOKEN: TOKENS['entitlement_producer']!, GOVERNANCE_ENTITLEMENT_CONSUMER_TOKEN: TOKENS['entitlement_consumer']!,
    GOVERNANCE_GIT_HOST_WEBHOOK_SECRET: GIT_SECRET,
  };
  const outbox = (query: string) => ({ name: `GET /api/v1/events/publishing/outbox?${query}`, request: { path: `/api/v1/events/publishing/outbox?${query}` } });
  return {
    service: 'governance',
    businessEvent: 'guarded write',
    entry: fileURLToPath(new URL('../../../src/governance/main.ts', import.meta.url)),
    bundle: 'governance-api.mjs',
    listener: 'platform',
    env: (dataDir) => ({ ...tokenEnv, AIRLOCK_DATA_DIR: dataDir, GOVERNANCE_DEPLOYMENT_ROLE: 'test', GOVERNANCE_PLATFORM_LISTEN: '127.0.0.1:0', GOVERNANCE_WORKER_LISTEN: `127.0.0.1:${workerPort}`, AIRLOCK_LOG_LEVEL: 'error' }),
    database: (dataDir) => join(dataDir, 'governance.sqlite'),
    async setup() {
      workerPort = await freePort();
    },
    async grow(url, target) {
      const worker = new URL(url);
      worker.port = String(workerPort);
      const agent = new Agent({ keepAlive: true, maxSockets: GROW_CONCURRENCY });
      let failures = 0;
      let n = grown.events;
      // Planning writes build on their session's last revision: they go one at a time, in order.
      let planning: Promise<unknown> = Promise.resolve();
      const one = async (number: number) => {
        const planned = planWrite(number, session);
        const { status, body } = await send(agent, worker, planned);
        if (remember(planned, status, body)) grown.rawBytes += planned.body.length;
        else {
          grown.events--;
          if (++failures > 100) throw new Error(`governance refused ${failures} writes while growing (last ${status} ${body.slice(0, 200)})`);
        }
      };
      const loop = async () => {
        while (grown.events < target) {
          const number = n++;
          grown.events++;
          if (number % 10 === 9) await (planning = planning.then(() => one(number)));
          else await one(number);
        }
      };
      try {
        await Promise.all(Array.from({ length: GROW_CONCURRENCY }, loop));
      } finally {
        agent.destroy();
      }
      return { ...grown };
    },
    async growDirect(dataDir, target) {
      let runtime: GovernanceRuntime | undefined;
      const config = readGovernanceConfig({ argv: ['--role', 'control-api'], env: { ...process.env, ...tokenEnv, AIRLOCK_DATA_DIR: dataDir, GOVERNANCE_WORKER_LISTEN: '127.0.0.1:0' } });
      const service: Service = await createGovernanceService(config, { log: createLogger({ name: 'governance', level: 'error' }), inspect: (r) => (runtime = r) });
      let n = grown.events;
      try {
        while (grown.events < target) {
          const batch: Promise<void>[] = [];
          while (batch.length < 1000 && grown.events < target) {
            const planned = planWrite(n++, session);
            grown.events++;
            grown.rawBytes += planned.body.length;
            const done = runWrite(runtime!, planned).then(({ status, body }) => {
              if (!remember(planned, status, body)) throw new Error(`${planned.path} answered ${status}: ${body.slice(0, 300)}`);
            });
            batch.push(done);
            // A new session must exist before its turns are planned.
            if (planned.route === '/api/v1/planning/sessions') await done;
          }
          await Promise.all(batch);
        }
      } finally {
        await service.close();
      }
      return { ...grown };
    },
    reads: [
      ...tableReads(() => session.id),
      outbox('after_seq=0&limit=100'),
      { name: 'GET /api/v1/support-orchestration/handoffs?limit=100', request: { path: '/api/v1/support-orchestration/handoffs?limit=100' } },
      { name: 'GET /api/v1/tools/runtime-observations?limit=100', request: { path: '/api/v1/tools/runtime-observations?limit=100' } },
    ],
    heaviest: outbox('after_seq=0&limit=1000'),
    readiness: { name: 'GET /health', request: { path: '/health' } },
  };
}
