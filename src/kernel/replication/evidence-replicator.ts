// Ships every committed evidence row of one database to the JetStream stream, table by table in
// seq order, reading the rows back from the database after each commit (so rows appended by any
// path, by triggers, or by another process on the same file are all shipped).
//
// - sync: afterCommit() returns a promise that settles when the stream acknowledged (PubAck) every
//   row committed so far; the store resolves its writers only then.
// - async: afterCommit() only wakes the shipper; lag is measured from the database and the acks.
//
// Where it resumes: the subject's last message in the stream (a row that must equal the local row
// of that seq), and the subject's message count, which must equal that seq: fewer means a hole (a
// publish lost while a later one was stored, e.g. across a leader change), and the missing rows are
// found by replaying the subject and sent again. A stream that disagrees with the local chain (a
// seq past the local head, another hash at a seq) stops replication for good with the reason:
// never two writers for one chain. Each window's first publish carries
// Nats-Expected-Last-Subject-Sequence, so a foreign write between windows is refused by the stream.

import type { DatabaseSync } from 'node:sqlite';
import { AirlockError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { connectNats } from '../nats/client.ts';
import type { NatsClient } from '../nats/client.ts';
import { createStreamApi, WRONG_LAST_SEQUENCE } from '../nats/stream-api.ts';
import type { StreamApi } from '../nats/stream-api.ts';
import { listEvidenceTables } from '../store/evidence-table.ts';
import type { ReplicationConfig } from './config.ts';
import { decodeEvidenceRow, encodeEvidenceRow, EVIDENCE_SUBJECT_PREFIX, evidenceMsgId, evidenceSubject, sameEvidenceRow, storedRowOf } from './evidence-message.ts';
import type { StoredEvidenceRow } from './evidence-message.ts';

/** Rows published together for one table before their acks are awaited. */
const WINDOW = 256;
const PUBLISH_TIMEOUT_MS = 5000;
const RETRY_MS = { initial: 100, max: 5000 };
const DUPLICATE_WINDOW_SECONDS = 600;

export interface ReplicationStatus {
  mode: 'async' | 'sync';
  service: string;
  stream: string;
  /** starting (connecting, checking the stream), replicating, retrying (the last attempt failed), stopped (for good). */
  state: 'starting' | 'replicating' | 'retrying' | 'stopped';
  connected: boolean;
  server: string | undefined;
  replicas: number | undefined;
  /** Rows committed here and not yet acknowledged by the stream. */
  lag_rows: number;
  /** Age of the oldest such row, in seconds (0 when none). */
  lag_seconds: number;
  lag_warn_seconds: number;
  /** Per table: the highest seq acknowledged with every row before it. */
  acked: Record<string, number>;
  last_error: string | undefined;
  /** Why replication stopped (a stream that disagrees with the local chain). */
  stopped_reason: string | undefined;
  /** True when the stream refused the last write (full, wrong replicas, permissions): health fails. */
  refused: boolean;
}

export interface EvidenceReplicator {
  /** Called after each COMMIT: sync returns what the committer must wait for; async returns undefined. */
  afterCommit(): Promise<void> | undefined;
  status(): ReplicationStatus;
  /** Stops shipping and disconnects; sync waiters still pending are rejected. */
  close(): Promise<void>;
}

interface TableState {
  name: string;
  columns: string[];
  subject: string;
  acked: number;
  /** The stream sequence of the subject's last message, for the next window's expectation. */
  lastStreamSeq: number;
  reconciled: boolean;
  running: Promise<void> | undefined;
  again: boolean;
}

interface Waiter {
  heads: Map<string, number>;
  resolve(): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export function createEvidenceReplicator(sqlite: DatabaseSync, options: { service: string; config: ReplicationConfig; log?: Logger }): EvidenceReplicator {
  const { service, config } = options;
  evidenceSubject(service, 'probe');
  const tables = new Map<string, TableState>();
  const waiters = new Set<Waiter>();
  let client: NatsClient | undefined;
  /** Set once the stream is known to exist: until then every pass starts by connecting. */
  let api: StreamApi | undefined;
  let streamApi: StreamApi | undefined;
  let replicas: number | undefined;
  let state: ReplicationStatus['state'] = 'starting';
  let lastError: string | undefined;
  let refused = false;
  let stoppedReason: string | undefined;
  let closed = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let failures = 0;
  const headStatements = new Map<string, ReturnType<DatabaseSync['prepare']>>();

  function refreshTables(): void {
    for (const table of listEvidenceTables(sqlite)) {
      if (tables.has(table.name)) continue;
      tables.set(table.name, {
        name: table.name,
        columns: Object.keys(table.columns),
        subject: evidenceSubject(service, table.name),
        acked: 0,
        lastStreamSeq: 0,
        reconciled: false,
        running: undefined,
        again: false,
      });
    }
  }

  function localHead(table: string): number {
    let statement = headStatements.get(table);
    if (statement === undefined) {
      statement = sqlite.prepare(`SELECT coalesce(max(seq), 0) AS head FROM ${table}`);
      headStatements.set(table, statement);
    }
    return Number(statement.get()!['head']);
  }

  function rowsAfter(table: TableState, seq: number, limit: number): StoredEvidenceRow[] {
    return sqlite.prepare(`SELECT * FROM ${table.name} WHERE seq > ? ORDER BY seq LIMIT ?`).all(seq, limit).map((row) => storedRowOf(row, table.columns));
  }

  function localRow(table: TableState, seq: number): StoredEvidenceRow | undefined {
    const row = sqlite.prepare(`SELECT * FROM ${table.name} WHERE seq = ?`).get(seq);
    return row === undefined ? undefined : storedRowOf(row, table.columns);
  }

  function stop(reason: string): void {
    if (stoppedReason !== undefined) return;
    stoppedReason = reason;
    state = 'stopped';
    options.log?.error('evidence replication stopped', { service, stream: config.stream, reason });
    const error = new AirlockError('evidence_replication', `Evidence replication of "${service}" stopped: ${reason}`);
    for (const waiter of waiters) settleWaiter(waiter, error);
  }

  function settleWaiter(waiter: Waiter, error?: Error): void {
    if (!waiters.delete(waiter)) return;
    clearTimeout(waiter.timer);
    if (error) waiter.reject(error);
    else waiter.resolve();
  }

  function checkWaiters(): void {
    for (const waiter of waiters) {
      let done = true;
      for (const [name, head] of waiter.heads) if ((tables.get(name)?.acked ?? 0) < head) done = false;
      if (done) settleWaiter(waiter);
    }
  }

  async function connect(): Promise<void> {
    client ??= await connectNats({ servers: config.servers, name: `airlock-evidence-${service}`, reconnect: { initialMs: 50, maxMs: 2000, jitterMs: 50 }, ...(options.log && { log: options.log }) });
    if (closed) {
      await client.close();
      return;
    }
    const candidate = (streamApi ??= createStreamApi(client));
    replicas = config.replicas ?? (client.status().known_servers >= 3 ? 3 : 1);
    let stream;
    try {
      stream = await candidate.ensure({ name: config.stream, subjects: [`${EVIDENCE_SUBJECT_PREFIX}.>`], replicas, duplicateWindowSeconds: DUPLICATE_WINDOW_SECONDS });
    } catch (error) {
      // An answer that refuses (not a timeout): the stream cannot take writes as configured.
      if (/JetStream refused/.test((error as Error).message)) refused = true;
      throw error;
    }
    if (stream.replicas !== replicas) {
      options.log?.warn('evidence stream has another replica count', { stream: config.stream, replicas: stream.replicas, wanted: replicas });
    }
    replicas = stream.replicas;
    api = candidate;
  }

  /** Makes `table` agree with the stream: its acked seq, its last stream seq, its holes filled. */
  /** The row a stream message holds; undefined (replication stopped) when it holds none: a foreign writer's message, never to be retried. */
  function streamRow(table: TableState, message: { seq: number; data: Uint8Array }): StoredEvidenceRow | undefined {
    try {
      return decodeEvidenceRow(message.data);
    } catch (error) {
      stop(`the stream's message ${message.seq} on "${table.subject}" is not an evidence row (${(error as Error).message}): another writer uses this service's subjects`);
      return undefined;
    }
  }

  async function reconcile(table: TableState): Promise<void> {
    const last = await api!.lastBySubject(config.stream, table.subject);
    if (last === undefined) {
      if (table.acked > 0) return stop(`the stream "${config.stream}" holds no row of "${table.subject}" although ${table.acked} were acknowledged: it was purged or replaced`);
      table.lastStreamSeq = 0;
      table.reconciled = true;
      return;
    }
    const remote = streamRow(table, last);
    if (remote === undefined) return;
    const local = localRow(table, remote.seq);
    if (local === undefined) {
      return stop(`the stream holds seq ${remote.seq} of "${table.subject}" but the local chain ends at seq ${localHead(table.name)}: another host writes this service's evidence, or this database is older than the stream (restore it with evidence_restore)`);
    }
    if (local.sha256 !== remote.sha256) {
      return stop(`the stream's row seq ${remote.seq} of "${table.subject}" has sha256 ${remote.sha256}, the local row ${local.sha256}: another host writes this service's evidence`);
    }
    if (!sameEvidenceRow(local, remote)) {
      return stop(`the stream's row seq ${remote.seq} of "${table.subject}" (stream seq ${last.seq}) claims the local row's sha256 but differs from the local row: another host writes this service's evidence`);
    }
    table.lastStreamSeq = last.seq;
    const count = await api!.subjectCount(config.stream, table.subject);
    if (count !== remote.seq) await fillHoles(table, remote.seq);
    table.acked = Math.max(table.acked, remote.seq);
    table.reconciled = true;
  }

  /** Replays the subject, checks each row against the local chain, and sends the rows missing up to `through` again. */
  async function fillHoles(table: TableState, through: number): Promise<void> {
    const present = new Set<number>();
    let conflict: string | undefined;
    await api!.replay(config.stream, table.subject, (message) => {
      if (conflict !== undefined || stoppedReason !== undefined) return;
      const row = streamRow(table, message);
      if (row === undefined) return;
      const local = localRow(table, row.seq);
      if (local === undefined || !sameEvidenceRow(local, row)) conflict ??= `the stream's row seq ${row.seq} of "${table.subject}" (stream seq ${message.seq}) differs from the local chain`;
      present.add(row.seq);
    });
    if (stoppedReason !== undefined) return;
    if (conflict !== undefined) return stop(conflict);
    const missing: StoredEvidenceRow[] = [];
    for (let seq = 1; seq <= through; seq++) if (!present.has(seq)) missing.push(localRow(table, seq)!);
    options.log?.warn('evidence stream had holes; sending the missing rows again', { subject: table.subject, missing: missing.length });
    for (const row of missing) {
      const outcome = await api!.publish(table.subject, encodeEvidenceRow(row), { headers: { 'Nats-Msg-Id': evidenceMsgId(service, table.name, row.seq) }, timeoutMs: PUBLISH_TIMEOUT_MS });
      if (!outcome.ok) throw refusal(table, row.seq, outcome.error.description, outcome.error.err_code);
    }
  }

  function refusal(table: TableState, seq: number, description: string | undefined, code: number | undefined): AirlockError {
    refused = true;
    return new AirlockError('evidence_replication', `The stream "${config.stream}" refused seq ${seq} of "${table.subject}": ${description ?? 'error'} (err_code ${code ?? '-'})`);
  }

  /** One window: the next rows of `table`, published together, acks taken in order. */
  async function shipWindow(table: TableState): Promise<boolean> {
    if (!table.reconciled) await reconcile(table);
    if (stoppedReason !== undefined) return false;
    const rows = rowsAfter(table, table.acked, WINDOW);
    if (rows.length === 0) return false;
    const sends = rows.map((row, index) =>
      api!.publish(table.subject, encodeEvidenceRow(row), {
        headers: {
          'Nats-Msg-Id': evidenceMsgId(service, table.name, row.seq),
          ...(index === 0 && { 'Nats-Expected-Last-Subject-Sequence': String(table.lastStreamSeq) }),
        },
        timeoutMs: PUBLISH_TIMEOUT_MS,
      }),
    );
    const outcomes = await Promise.allSettled(sends);
    for (let index = 0; index < rows.length; index++) {
      const row = rows[index]!;
      const outcome = outcomes[index]!;
      if (outcome.status === 'rejected') {
        table.reconciled = false;
        throw outcome.reason;
      }
      const ack = outcome.value;
      if (!ack.ok) {
        table.reconciled = false;
        // The subject moved since our last ack: find out by whom before anything else is sent.
        if (ack.error.err_code === WRONG_LAST_SEQUENCE) return true;
        throw refusal(table, row.seq, ack.error.description, ack.error.err_code);
      }
      if (ack.duplicate) {
        // Stored before (a resend, or another process on this file): it must be this very row.
        const stored = await api!.messageAt(config.stream, ack.seq);
        const remote = stored === undefined ? undefined : streamRow(table, stored);
        if (stoppedReason !== undefined) return false;
        if (remote === undefined || !sameEvidenceRow(remote, row)) {
          stop(`the stream already holds a different message for "${evidenceMsgId(service, table.name, row.seq)}" (stream seq ${ack.seq}): another host writes this service's evidence`);
          return false;
        }
        table.reconciled = false;
      } else table.lastStreamSeq = ack.seq;
      table.acked = row.seq;
    }
    checkWaiters();
    return true;
  }

  /** Ships `table` until it is caught up; one run per table at a time, a wake during a run runs it again. */
  function shipTable(table: TableState): Promise<void> {
    if (table.running) {
      table.again = true;
      return table.running;
    }
    table.running = (async () => {
      do {
        table.again = false;
        while (stoppedReason === undefined && !closed && (await shipWindow(table)));
      } while (table.again && stoppedReason === undefined && !closed);
    })().finally(() => {
      table.running = undefined;
    });
    return table.running;
  }

  let pass: Promise<void> | undefined;
  let passAgain = false;

  /** Ships every table; on failure, retries with capped backoff. */
  function wake(): void {
    if (closed || stoppedReason !== undefined) return;
    if (pass) {
      passAgain = true;
      return;
    }
    clearTimeout(retryTimer);
    retryTimer = undefined;
    pass = (async () => {
      do {
        passAgain = false;
        if (api === undefined) await connect();
        refreshTables();
        await Promise.all([...tables.values()].map(shipTable));
      } while (passAgain && !closed && stoppedReason === undefined);
    })().then(
      () => {
        pass = undefined;
        failures = 0;
        if (stoppedReason === undefined) {
          state = 'replicating';
          refused = false;
          lastError = undefined;
        }
        checkWaiters();
      },
      (error: Error) => {
        pass = undefined;
        if (closed) return;
        lastError = error.message;
        if (stoppedReason === undefined) state = 'retrying';
        options.log?.warn('evidence replication attempt failed', { service, error: error.message });
        const delay = Math.min(RETRY_MS.max, RETRY_MS.initial * 2 ** failures++);
        retryTimer = setTimeout(wake, delay);
        retryTimer.unref();
      },
    );
  }

  // Rows written by another process on the same file (or before an outage) are picked up without a commit here.
  const poll = setInterval(wake, 1000);
  poll.unref();
  wake();

  return {
    afterCommit() {
      if (config.mode === 'async') {
        setImmediate(wake);
        return undefined;
      }
      if (stoppedReason !== undefined) return Promise.reject(new AirlockError('evidence_replication', `Evidence replication of "${service}" stopped: ${stoppedReason}`));
      refreshTables();
      const heads = new Map<string, number>();
      for (const table of tables.values()) {
        const head = localHead(table.name);
        if (head > table.acked) heads.set(table.name, head);
      }
      if (heads.size === 0) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const waiter: Waiter = {
          heads,
          resolve,
          reject,
          timer: setTimeout(() => {
            settleWaiter(waiter, new AirlockError('evidence_replication', `The evidence stream "${config.stream}" did not acknowledge within ${config.syncTimeoutMs / 1000} s: committed here, not yet replicated${lastError ? ` (${lastError})` : ''}; retry to get the answer once it is`));
          }, config.syncTimeoutMs),
        };
        waiters.add(waiter);
        wake();
      });
    },
    status() {
      let lagRows = 0;
      let oldest: string | undefined;
      try {
        refreshTables();
        for (const table of tables.values()) {
          const head = localHead(table.name);
          if (head <= table.acked) continue;
          lagRows += head - table.acked;
          const first = sqlite.prepare(`SELECT recorded_at FROM ${table.name} WHERE seq = ?`).get(table.acked + 1)?.['recorded_at'];
          if (first !== undefined && (oldest === undefined || String(first) < oldest)) oldest = String(first);
        }
      } catch (error) {
        lastError = `cannot read the local evidence: ${(error as Error).message}`;
      }
      const nats = client?.status();
      return {
        mode: config.mode,
        service,
        stream: config.stream,
        state,
        connected: nats?.connected ?? false,
        server: nats?.server,
        replicas,
        lag_rows: lagRows,
        lag_seconds: oldest === undefined ? 0 : Math.max(0, (Date.now() - Date.parse(oldest)) / 1000),
        lag_warn_seconds: config.lagWarnSeconds,
        acked: Object.fromEntries([...tables.values()].map((table) => [table.name, table.acked])),
        last_error: lastError,
        stopped_reason: stoppedReason,
        refused,
      };
    },
    async close() {
      if (closed) return;
      // Async: give the shipper a moment to send what is committed (bounded), then stop.
      if (stoppedReason === undefined && api !== undefined) {
        wake();
        await Promise.race([pass ?? Promise.resolve(), new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
      }
      closed = true;
      clearInterval(poll);
      clearTimeout(retryTimer);
      const error = new AirlockError('evidence_replication', `Evidence replication of "${service}" closed before the stream acknowledged`);
      for (const waiter of waiters) settleWaiter(waiter, error);
      await client?.close();
    },
  };
}
