// The owner-readback service (messaging-owner-readback), started in owner-readback-only mode:
// GET /healthz, GET /readyz and GET /api/v1/evidence/plan-studio-review-transport, each behind
// Authorization: Bearer OWNER_READBACK_API_TOKEN; no other route exists (404). Without a token
// every route answers 503; when the owner (the messaging database the mailbox adapter writes) is
// unreachable, readiness and the evidence answer 503. Read-only: the database is opened read-only.

import { existsSync } from 'node:fs';
import type { DatabaseSync } from 'node:sqlite';
import {
  createLogger, createReadPool, createService, health, JSON_TYPE, openDatabaseReadOnly, parseBearer, problem, readConfig, statement, versionTruth, verifyToken,
} from '../kernel/index.ts';
import type { AuthOutcome, Logger, ReadPool, Reply, RequestContext, Service } from '../kernel/index.ts';
import { READBACK_SPEC } from './config.ts';
import { databasePath } from './database.ts';
import { SERVICE_NAME } from './mailbox-adapter.ts';
import { messagingRoutes, READBACK_LISTENER, REVIEW_TRANSPORT_PATH, UNCONFIGURED_HANDLERS } from './routes.ts';

export const DEFAULT_ROWS = 100;
export const MAX_ROWS = 500;

export interface OwnerReadbackOptions {
  env?: NodeJS.ProcessEnv;
  listen?: string;
  log?: Logger;
  version?: string;
  /** For tests: wraps the read pool the evidence is read on, when it is created (to hold reads in flight). */
  wrapReads?: (pool: ReadPool) => ReadPool;
}

export function createOwnerReadbackService(options: OwnerReadbackOptions = {}): Service {
  const env = options.env ?? process.env;
  const values = readConfig(READBACK_SPEC, options.listen === undefined ? env : { ...env, MESSAGING_OWNER_READBACK_LISTEN: options.listen });
  const version = options.version ?? versionTruth();
  const log = options.log ?? createLogger({ name: `${SERVICE_NAME}.owner-readback`, service: SERVICE_NAME });
  // Only commas and blanks (" , ") hold no token: that is the same as unset (fail closed, 503),
  // not a token no request can match (401 to everyone, which looks like a client mistake).
  const tokens = (values.OWNER_READBACK_API_TOKEN ?? '').split(',').map((t) => t.trim()).filter((t) => t !== '');
  const token = tokens.length === 0 ? undefined : tokens.join(',');
  if (token !== undefined) log.addSecrets([values.OWNER_READBACK_API_TOKEN!, ...tokens]);
  else log.warn(`OWNER_READBACK_API_TOKEN ${values.OWNER_READBACK_API_TOKEN === undefined ? 'is not set' : 'holds no token (only commas and blanks)'}: every route answers 503 (fail closed)`);
  const dbPath = databasePath(values.AIRLOCK_DATA_DIR);
  const mailbox = values.MESSAGING_REVIEW_TRANSPORT_MAILBOX;

  const authenticate = (context: RequestContext): AuthOutcome => {
    if (token === undefined) {
      return { ok: false, reply: problem(503, 'Owner readback not configured', { detail: 'OWNER_READBACK_API_TOKEN is not set (or holds only commas and blanks): the owner-readback service fails closed' }) };
    }
    if (!verifyToken(parseBearer(context.headers.authorization), tokens)) {
      return { ok: false, reply: problem(401, 'Unauthorized', { detail: 'Send Authorization: Bearer <OWNER_READBACK_API_TOKEN>', headers: { 'www-authenticate': 'Bearer realm="messaging-owner-readback"' } }) };
    }
    return { ok: true, principal: 'owner-readback' };
  };

  const owner = createOwnerConnection(dbPath, options.wrapReads);
  const ownerCheck = owner.check;

  const handlers = {
    ...UNCONFIGURED_HANDLERS,
    readbackHealth: () => {
      const owner = ownerCheck();
      return health({ version, checks: { token: [{ status: 'pass' }], owner: [{ status: owner.ok ? 'pass' : 'warn', ...(owner.output !== undefined && { output: owner.output }) }] }, extra: { mode: 'owner-readback-only' } });
    },
    readbackReady: () => {
      const owner = ownerCheck();
      return health({ version, checks: { owner: [{ status: owner.ok ? 'pass' : 'fail', ...(owner.output !== undefined && { output: owner.output }) }] }, extra: { mode: 'owner-readback-only' } });
    },
    reviewTransport: (context: RequestContext) => reviewTransport(context, { owner, mailbox }),
  };
  return createService({
    name: SERVICE_NAME,
    version,
    routes: messagingRoutes(handlers).filter((r) => r.listener === READBACK_LISTENER),
    log,
    listeners: { [READBACK_LISTENER]: values.MESSAGING_OWNER_READBACK_LISTEN },
    authenticators: { 'owner-token': authenticate },
    onClose: () => owner.close(),
  });
}

interface OwnerConnection {
  /** Whether the owner database answers, on the connection kept open (reopened after a failure). */
  check(): { ok: boolean; output?: string };
  /** Whether the database keeps the per-mailbox counter (a database written before it existed does not). */
  hasCounts(): boolean;
  /** Read-only threads for the evidence rows, so a large page never holds the probes (issue 24). */
  reads(): ReadPool;
  close(): Promise<void>;
}

/**
 * One read-only connection for probes and one read pool for the evidence, opened when the owner
 * database first exists and kept: WAL shows every write the mailbox adapter commits, and a
 * request no longer pays for opening the file and reading its schema.
 */
function createOwnerConnection(dbPath: string, wrapReads: (pool: ReadPool) => ReadPool = (pool) => pool): OwnerConnection {
  let sqlite: DatabaseSync | undefined;
  let pool: ReadPool | undefined;
  let counts = false;
  const drop = () => {
    try {
      sqlite?.close();
    } catch {
      // Already unusable: it is dropped either way.
    }
    sqlite = undefined;
  };
  return {
    check() {
      if (!existsSync(dbPath)) {
        drop();
        return { ok: false, output: `owner database "${dbPath}" does not exist: is the mailbox adapter running with the same AIRLOCK_DATA_DIR?` };
      }
      try {
        sqlite ??= openDatabaseReadOnly(dbPath);
        statement(sqlite, 'SELECT 1 FROM mailbox_publications LIMIT 1').get();
        counts ||= statement(sqlite, "SELECT 1 FROM sqlite_schema WHERE type = 'trigger' AND name = 'mailbox_publications_count'").get() !== undefined;
        return { ok: true };
      } catch (error) {
        drop();
        return { ok: false, output: `owner database unreadable: ${(error as Error).message}` };
      }
    },
    hasCounts: () => counts,
    reads: () => (pool ??= wrapReads(createReadPool(dbPath))),
    async close() {
      drop();
      await pool?.close();
    },
  };
}

/**
 * The newest `limit` rows of the mailbox, oldest first, each as the readback shows it (the row's
 * columns, its payload's members, its hash and its predecessor's), built as JSON text by SQLite
 * on a read thread: the event loop only joins the texts. The payload holds no null member (a
 * merge patch would drop it).
 */
const ROWS_SQL = `SELECT json_group_array(json(row) ORDER BY seq) AS rows FROM (
  SELECT seq, json_insert(json_patch(json_object('seq', seq, 'recorded_at', recorded_at, 'msg_id', msg_id), payload), '$.row_sha256', sha256, '$.prev_sha256', prev_sha256) AS row
  FROM mailbox_publications WHERE mailbox = ? ORDER BY seq DESC LIMIT ?)`;
/** `total` from the counter the trigger keeps: one row by its key, whatever the mailbox holds. */
export const TOTAL_SQL = 'SELECT coalesce((SELECT publications FROM mailbox_publication_counts WHERE mailbox = ?), 0) AS total';
/** A database written before the counter existed (read-only here, so it cannot be added): counted. */
const COUNTED_TOTAL_SQL = 'SELECT count(*) AS total FROM mailbox_publications WHERE mailbox = ?';

async function reviewTransport(context: RequestContext, deps: { owner: OwnerConnection; mailbox: string }): Promise<Reply> {
  const extra = [...context.query.keys()].filter((k) => k !== 'limit');
  if (extra.length > 0) return problem(400, 'Unknown query parameter', { detail: `Only "limit" is accepted, not "${extra[0]}"` });
  const rawLimit = context.query.get('limit');
  const limit = rawLimit === null ? DEFAULT_ROWS : /^\d{1,3}$/.test(rawLimit) ? Number(rawLimit) : NaN;
  if (!(limit >= 1 && limit <= MAX_ROWS)) return problem(400, 'Invalid limit', { detail: `limit must be a whole number from 1 to ${MAX_ROWS}` });
  const owner = deps.owner.check();
  if (!owner.ok) return problem(503, 'Owner unreachable', { detail: `${owner.output}; failing closed` });
  const reads = deps.owner.reads();
  const [page, counted] = await Promise.all([
    reads.query(ROWS_SQL, [deps.mailbox, limit]),
    reads.query(deps.owner.hasCounts() ? TOTAL_SQL : COUNTED_TOTAL_SQL, [deps.mailbox]),
  ]);
  const head = JSON.stringify({
    evidence: 'plan-studio-review-transport',
    read_only: true,
    owner: 'messaging-mailbox',
    mailbox: deps.mailbox,
    subject: `mailbox.${deps.mailbox}`,
    total: Number(counted.rows[0]!['total']),
  });
  return { status: 200, raw: Buffer.from(`${head.slice(0, -1)},"rows":${String(page.rows[0]!['rows'])}}`, 'utf8'), contentType: JSON_TYPE };
}

export { REVIEW_TRANSPORT_PATH };
