// The dispatch worker: every interval it delivers the due Dispatch Jobs to the agent runtime
// (house-signed with AGENT_RUNTIME_CALLBACK_SECRET, `Idempotency-Key: "<job>"` so the receiver can
// drop a repeat), with a timeout; a 2xx marks the job Delivered, anything else schedules a retry
// with capped exponential backoff and jitter, and the last allowed failure makes it a Dead Letter
// naming the last error. Each delivery and each dead letter is also an Agent Notification. A job
// whose packet was decided meanwhile is Superseded, not sent again. Jobs
// live in the database, so a restart resumes them; a job is never sent again once Delivered. Each
// attempt is recorded before it is sent, so a crash mid-delivery spends it (beginAttempt). Each
// tick also closes the packets whose decision the owner readback confirms (approvals/closeout.ts).

import { request } from 'node:http';
import { request as requestTls } from 'node:https';
import { signRequest, statement } from '../../kernel/index.ts';
import type { JsonValue, Transaction } from '../../kernel/index.ts';
import type { DatabaseSync } from 'node:sqlite';
import { closeOut, packetsAwaitingCloseout } from '../approvals/closeout.ts';
import { AGENT_NOTIFICATIONS, DEAD_LETTERS } from '../database/evidence-tables.ts';
import { frappeTimestamp, getDocument, nextName, updateDocument } from '../database/documents.ts';
import type { ErpDocument } from '../database/documents.ts';
import type { ErpDeps } from '../erp-route.ts';

/** Most due jobs one tick picks up. */
export const DUE_BATCH = 500;

export interface DispatchWorker {
  /** Runs one poll now (tests); resolves when its deliveries settled. */
  tick(): Promise<void>;
  stop(): void;
}

/** Delay before attempt `attempts + 1`: base * 2^(attempts - 1), capped, plus up to 20 % jitter. */
export function backoffMs(attempts: number, base: number, cap: number, random: () => number = Math.random): number {
  const delay = Math.min(cap, base * 2 ** Math.max(0, attempts - 1));
  return Math.round(delay + delay * 0.2 * random());
}

/**
 * POSTs `body` and settles once: on the complete answer, on an error, or when `timeoutMs` has
 * passed since the request began. The deadline is for the whole exchange, not socket idleness, so
 * a runtime that drips its answer a byte at a time cannot hold a delivery (and its job) forever.
 */
function post(url: string, body: Buffer, headers: Record<string, string>, timeoutMs: number): Promise<{ ok: boolean; error: string | null }> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: { ok: boolean; error: string | null }) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(outcome);
    };
    const target = new URL(url);
    const send = target.protocol === 'https:' ? requestTls : request;
    const req = send(target, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'content-length': String(body.length) } }, (res) => {
      res.resume();
      const status = res.statusCode ?? 0;
      res.on('end', () => settle(status >= 200 && status < 300 ? { ok: true, error: null } : { ok: false, error: `HTTP ${status}` }));
      res.on('error', (error) => settle({ ok: false, error: error.message }));
    });
    const deadline = setTimeout(() => {
      settle({ ok: false, error: `no answer within ${timeoutMs} ms` });
      req.destroy();
    }, timeoutMs);
    req.on('error', (error) => settle({ ok: false, error: error.message }));
    req.end(body);
  });
}

/** An evidence row shaped as the document /api/resource shows. */
function record(doctype: string, name: string, at: Date, fields: Record<string, unknown>): JsonValue {
  const stamp = frappeTimestamp(at);
  return { ...fields, name, doctype, docstatus: 0, owner: 'dispatch-worker', creation: stamp, modified: stamp } as JsonValue;
}

function notify(sqlite: DatabaseSync, tx: Transaction, at: Date, kind: string, fields: Record<string, unknown>): void {
  const name = nextName(sqlite, 'Agent Notification', at);
  tx.appendChain(AGENT_NOTIFICATIONS, { name, kind, payload: record('Agent Notification', name, at, { kind, ...fields }) });
}

/**
 * The approval dispatches due now, from the partial due index of erp_current (never a scan of the
 * job history); a tick takes at most DUE_BATCH, the next tick the rest.
 */
export const DUE_JOBS_SQL = `SELECT t.payload FROM erp_current AS c JOIN dispatch_jobs AS t ON t.seq = c.seq
  WHERE c.doctype = 'Dispatch Job' AND c.due_at <= ? ORDER BY c.due_at LIMIT ${DUE_BATCH}`;

export function startDispatchWorker(deps: ErpDeps): DispatchWorker {
  const inFlight = new Set<string>();
  const { dispatch } = deps.config;

  function dueJobs(): ErpDocument[] {
    const rows = statement(deps.store.sqlite, DUE_JOBS_SQL).all(deps.now());
    return rows.map((row) => JSON.parse(String(row['payload'])) as ErpDocument);
  }

  /** The packet's status when it no longer awaits the runtime (decided or closed), else null. */
  function settledPacket(sqlite: DatabaseSync, job: ErpDocument): string | null {
    const status = getDocument(sqlite, 'Approval Packet', String(job['document_name']))?.['status'];
    return status === 'dispatched' ? null : String(status ?? 'missing');
  }

  /** Makes the job Dead with its Dead Letter and notification (the budget is spent). */
  function deadLetter(sqlite: DatabaseSync, tx: Transaction, current: ErpDocument, attempts: number, error: string, at: Date): void {
    const letter = nextName(sqlite, 'Dead Letter', at);
    updateDocument(sqlite, tx, current, { status: 'Dead', attempts, attempt_in_flight: false, last_error: error, dead_letter: letter }, at);
    tx.appendChain(DEAD_LETTERS, { name: letter, source: 'dispatch', payload: record('Dead Letter', letter, at, { source: 'dispatch', dispatch_job: current.name, approval_packet: current['document_name'], attempts, last_error: error, owner_follow_through: 'required' }) });
    notify(sqlite, tx, at, 'dead_letter', { dispatch_job: current.name, dead_letter: letter, last_error: error });
  }

  /**
   * Records attempt n durably before it is sent: a crash mid-delivery has then spent it, so a crash
   * loop reaches the Dead Letter instead of redelivering for ever. The job stays due again after
   * the delivery timeout plus backoff (its lease), in case no outcome is ever recorded. Returns the
   * attempt number to send, or null when the job is not to be sent.
   */
  function beginAttempt(sqlite: DatabaseSync, tx: Transaction, name: string): number | null {
    const current = getDocument(sqlite, 'Dispatch Job', name)!;
    if (current['status'] !== 'Queued' && current['status'] !== 'Retrying') return null;
    const at = new Date(deps.now());
    const attempts = Number(current['attempts']);
    if (current['attempt_in_flight'] === true && attempts >= dispatch.maxAttempts) {
      deadLetter(sqlite, tx, current, attempts, `attempt ${attempts} did not finish (the service stopped mid-delivery)`, at);
      return null;
    }
    const next = attempts + 1;
    const lease = at.getTime() + dispatch.timeoutMs + backoffMs(next, dispatch.backoffBaseMs, dispatch.backoffCapMs);
    updateDocument(sqlite, tx, current, { attempts: next, attempt_in_flight: true, last_attempt_at: at.toISOString(), next_attempt_at: lease }, at);
    return next;
  }

  async function deliver(job: ErpDocument): Promise<void> {
    // A decision that came another way (automation_hil_decision) settles the packet: offering it
    // to the runtime again, or dead-lettering it for follow-through, would misstate its state.
    if (settledPacket(deps.store.sqlite, job) !== null) {
      await deps.store.write((sqlite, tx) => {
        const current = getDocument(sqlite, 'Dispatch Job', job.name)!;
        const packet = settledPacket(sqlite, current);
        if ((current['status'] !== 'Queued' && current['status'] !== 'Retrying') || packet === null) return;
        const at = new Date(deps.now());
        updateDocument(sqlite, tx, current, { status: 'Superseded', attempt_in_flight: false, superseded_reason: `approval packet is ${packet}: not sent again` }, at);
      });
      return;
    }
    const attempt = await deps.store.write((sqlite, tx) => beginAttempt(sqlite, tx, job.name));
    if (attempt === null) return;
    const secret = deps.config.secrets.AGENT_RUNTIME_CALLBACK_SECRET;
    const body = Buffer.from(JSON.stringify({ ...(job['delivery'] as object), dispatch_job: job.name, callback_token: job['callback_token'] }));
    const outcome = secret === undefined
      ? { ok: false, error: 'AGENT_RUNTIME_CALLBACK_SECRET is not configured' }
      : await post(String(job['webhook_url']), body, { ...signRequest('house', { rawBody: body, secret, now: Math.floor(deps.now() / 1000) }), 'idempotency-key': `"${job.name}"` }, dispatch.timeoutMs);
    await deps.store.write((sqlite, tx) => {
      const current = getDocument(sqlite, 'Dispatch Job', job.name)!;
      // Another outcome was recorded meanwhile (or the owner re-queued the job): this one is stale.
      if ((current['status'] !== 'Queued' && current['status'] !== 'Retrying') || current['attempts'] !== attempt) return;
      const at = new Date(deps.now());
      if (outcome.ok) {
        updateDocument(sqlite, tx, current, { status: 'Delivered', attempts: attempt, attempt_in_flight: false, last_error: null, delivered_at: at.toISOString() }, at);
        notify(sqlite, tx, at, 'delivered', { dispatch_job: job.name, approval_packet: current['document_name'], attempts: attempt });
      } else if (attempt >= dispatch.maxAttempts) {
        deadLetter(sqlite, tx, current, attempt, outcome.error!, at);
      } else {
        updateDocument(sqlite, tx, current, { status: 'Retrying', attempts: attempt, attempt_in_flight: false, last_error: outcome.error, next_attempt_at: at.getTime() + backoffMs(attempt, dispatch.backoffBaseMs, dispatch.backoffCapMs) }, at);
      }
    });
  }

  async function tick(): Promise<void> {
    // Closeout first: it reads and writes only the database, never the network.
    const awaiting = packetsAwaitingCloseout(deps.store.sqlite);
    if (awaiting.length > 0) {
      await deps.store.write((sqlite, tx) => {
        for (const packet of awaiting) closeOut(sqlite, tx, packet, new Date(deps.now()));
      });
    }
    const due = dueJobs().filter((job) => !inFlight.has(job.name));
    await Promise.all(due.map(async (job) => {
      inFlight.add(job.name);
      try {
        await deliver(job);
      } catch (error) {
        deps.log.error('dispatch delivery failed', { error, dispatch_job: job.name });
      } finally {
        inFlight.delete(job.name);
      }
    }));
  }

  const timer = setInterval(() => void tick(), dispatch.intervalMs);
  timer.unref();
  return { tick, stop: () => clearInterval(timer) };
}
