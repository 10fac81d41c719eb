// node bench/keyed-write-cpu.ts [--baseline DIR] [--runs N] [--slices N] [--slice N] [--concurrency N] [--json]
// The store's side of a governance keyed write, in process, as CPU per write: the kernel's
// Idempotency-Key path (runIdempotent: key parse, scope, fingerprint, isFree) and the one unit a
// fresh key commits (writeReply: the outbox row, the reply, claimWithin: key row and
// idempotency_answers row), on the governance database as it opens (synchronous=FULL, its
// tables and indexes), through the real kernel and governance functions. Only the HTTP around it
// and the route's catalog check are left out (the governance-keyed-write scenario has them).
//
// `--concurrency` callers (50) write back to back; each slice of `--slice` writes is timed with
// process.cpuUsage() (user + system: the fsync's wait is not CPU, so a busy disk does not move
// it) and wall time. With --baseline DIR (another checkout, e.g. `git archive <commit> | tar -x
// -C DIR` with a node_modules link), its slices alternate with this tree's in the same process,
// each on its own database, so a machine that gets busier slows both alike. Each run prints the
// median slice per subject. The baseline must be a tree that has this file (it exports
// runIdempotent).

import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Reply, RequestContext, Route, Store } from '../src/kernel/index.ts';
import { runCpuHarness } from './lib/cpu-slices.ts';
import { postContext } from './lib/post-context.ts';
import type { CpuSubject } from './lib/cpu-slices.ts';

const PATH = '/api/v1/events/outbox/planning';
const BODY = JSON.stringify({
  event: 'planning.owner_decision_recorded',
  occurred_at: '2026-11-21T12:00:00Z',
  payload: { session_id: 'ps_11111111-2222-4333-8444-555555555555', revision: 2, decision: 'approved', planning_event_seq: 7 },
});


/** The keyed write of `root`'s tree (this checkout or --baseline), on a new governance database in `dir`. */
async function subjectOf(name: string, root: string, dir: string): Promise<CpuSubject> {
  const load = (path: string) => import(pathToFileURL(join(root, path)).href);
  const kernel = await load('src/kernel/index.ts');
  const { runIdempotent } = await load('src/kernel/http/pipeline.ts');
  const { openGovernanceDatabase } = await load('src/governance/database.ts');
  const { appendOutbox } = await load('src/governance/events/outbox-append.ts');
  const store: Store = openGovernanceDatabase(dir);
  const keys = kernel.createIdempotencyStore(store);
  // As stampWriteRoutes() declares the outbox write (src/governance/routing/write-route.ts).
  const route: Route = {
    method: 'POST',
    path: '/api/v1/events/outbox/*',
    listener: 'worker',
    auth: 'operator',
    summary: 'keyed-write-cpu',
    idempotency: { store: kernel.lazyIdempotencyStore(() => keys), required: true, claimWithEffect: true },
    // The end of outboxRecordReply() (src/governance/events/outbox.ts), after its catalog check.
    handler: (context: RequestContext): Promise<Reply> => {
      const body = context.body as { event: string; occurred_at: string; payload: Record<string, unknown>; correlation_id?: string };
      const record = { family: 'planning', event: body.event, occurred_at: body.occurred_at, payload: body.payload, source: 'outbox_api', correlation_id: body.correlation_id ?? null };
      return kernel.writeReply(context, {
        store,
        work: (_sqlite: unknown, tx: unknown) => appendOutbox(tx, record),
        reply: (row: { seq: number; sha256: string }) =>
          kernel.json({ recorded: true, family: 'planning', event: body.event, seq: row.seq, sha256: row.sha256, readback: '/api/v1/events/publishing/outbox' }, { status: 201 }),
      });
    },
  };
  const raw = Buffer.from(BODY);
  const write = async () => {
    const context = postContext(PATH, raw, {
      params: { '*': 'planning' },
      headers: { 'content-type': 'application/json', 'idempotency-key': `"${randomUUID()}"` },
      listener: 'worker',
      body: JSON.parse(BODY),
      principal: 'operator',
    });
    const reply: Reply = await runIdempotent(route, context);
    if (reply.status !== 201) throw new Error(`A keyed write answered ${reply.status}, not 201`);
  };
  return { name, write, store };
}

await runCpuHarness({
  name: 'keyed-write-cpu',
  summary: "Times the store's side of a governance keyed write in process: CPU microseconds per write (and an older tree's, slices interleaved)",
  unit: 'keyed write',
  slice: 2000,
  warmup: 5000,
  subjectOf,
});
