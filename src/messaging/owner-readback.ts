// The owner-readback service (messaging-owner-readback), started in owner-readback-only mode:
// GET /healthz, GET /readyz and GET /api/v1/evidence/plan-studio-review-transport, each behind
// Authorization: Bearer OWNER_READBACK_API_TOKEN; no other route exists (404). Without a token
// every route answers 503; when the owner (the messaging database the mailbox adapter writes) is
// unreachable, readiness and the evidence answer 503. Read-only: the database is opened read-only.

import { existsSync } from 'node:fs';
import {
  createLogger, createService, health, json, openDatabaseReadOnly, parseBearer, problem, readConfig, versionTruth, verifyToken,
} from '../kernel/index.ts';
import type { AuthOutcome, Logger, Reply, RequestContext, Service } from '../kernel/index.ts';
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

  const ownerCheck = (): { ok: boolean; output?: string } => {
    if (!existsSync(dbPath)) return { ok: false, output: `owner database "${dbPath}" does not exist: is the mailbox adapter running with the same AIRLOCK_DATA_DIR?` };
    try {
      const db = openDatabaseReadOnly(dbPath);
      try {
        db.prepare('SELECT 1 FROM mailbox_publications LIMIT 1').get();
      } finally {
        db.close();
      }
      return { ok: true };
    } catch (error) {
      return { ok: false, output: `owner database unreadable: ${(error as Error).message}` };
    }
  };

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
    reviewTransport: (context: RequestContext) => reviewTransport(context, { dbPath, mailbox, ownerCheck }),
  };
  return createService({
    name: SERVICE_NAME,
    version,
    routes: messagingRoutes(handlers).filter((r) => r.listener === READBACK_LISTENER),
    log,
    listeners: { [READBACK_LISTENER]: values.MESSAGING_OWNER_READBACK_LISTEN },
    authenticators: { 'owner-token': authenticate },
  });
}

interface PublicationRow {
  seq: number;
  recorded_at: string;
  msg_id: string;
  payload: string;
  sha256: string;
  prev_sha256: string;
}

function reviewTransport(context: RequestContext, deps: { dbPath: string; mailbox: string; ownerCheck: () => { ok: boolean; output?: string } }): Reply {
  const extra = [...context.query.keys()].filter((k) => k !== 'limit');
  if (extra.length > 0) return problem(400, 'Unknown query parameter', { detail: `Only "limit" is accepted, not "${extra[0]}"` });
  const rawLimit = context.query.get('limit');
  const limit = rawLimit === null ? DEFAULT_ROWS : /^\d{1,3}$/.test(rawLimit) ? Number(rawLimit) : NaN;
  if (!(limit >= 1 && limit <= MAX_ROWS)) return problem(400, 'Invalid limit', { detail: `limit must be a whole number from 1 to ${MAX_ROWS}` });
  const owner = deps.ownerCheck();
  if (!owner.ok) return problem(503, 'Owner unreachable', { detail: `${owner.output}; failing closed` });
  const db = openDatabaseReadOnly(deps.dbPath);
  try {
    const rows = db
      .prepare('SELECT seq, recorded_at, msg_id, payload, sha256, prev_sha256 FROM mailbox_publications WHERE mailbox = ? ORDER BY seq DESC LIMIT ?')
      .all(deps.mailbox, limit) as unknown as PublicationRow[];
    const total = (db.prepare('SELECT count(*) AS n FROM mailbox_publications WHERE mailbox = ?').get(deps.mailbox) as { n: number }).n;
    return json({
      evidence: 'plan-studio-review-transport',
      read_only: true,
      owner: 'messaging-mailbox',
      mailbox: deps.mailbox,
      subject: `mailbox.${deps.mailbox}`,
      total,
      rows: rows.reverse().map((r) => ({ seq: r.seq, recorded_at: r.recorded_at, msg_id: r.msg_id, ...(JSON.parse(r.payload) as object), row_sha256: r.sha256, prev_sha256: r.prev_sha256 })),
    });
  } finally {
    db.close();
  }
}

export { REVIEW_TRANSPORT_PATH };
