// The outbox: POST /api/v1/events/outbox/{family} records an event of an enabled catalog event of
// that family, its payload checked against the event's payload_schema; GET
// /api/v1/events/publishing/outbox reads every record in publication order (seq), with its hash
// chain, a page at a time.

import { compileSchema, json, problem, writeReply } from '../../kernel/index.ts';
import type { Reply, RequestContext, SchemaValidator } from '../../kernel/index.ts';
import { outboxRecords } from '../database.ts';
import { appendOutbox } from './outbox-append.ts';
import type { OutboxRecord } from './outbox-append.ts';
import { artifactMember } from '../routing/read-route.ts';
import { readRecordPage, recordsReply } from '../routing/evidence-page.ts';
import type { GovernanceRuntime } from '../runtime.ts';

export interface CatalogEvent {
  name: string;
  producer: string;
  family: string;
  state: string;
  fields: string[];
  payload_schema?: Record<string, unknown>;
}

/** The outbox families: the publishing catalog names them, the route serves them. */
export const OUTBOX_FAMILIES = ['admission', 'planning', 'support'] as const;

export function catalogEvents(runtime: GovernanceRuntime): CatalogEvent[] {
  return (artifactMember(runtime, 'event_modeling/catalog')?.['events'] ?? []) as CatalogEvent[];
}

function payloadCheck(runtime: GovernanceRuntime, event: CatalogEvent): SchemaValidator {
  const key = `outbox schema ${event.name}`;
  let check = runtime.cache.get(key) as SchemaValidator | undefined;
  if (!check) runtime.cache.set(key, (check = compileSchema(event.payload_schema ?? false, { formats: 'assert' })));
  return check;
}

function invalid(detail: string, errors: { pointer: string; detail: string }[]): Reply {
  return problem(422, 'Request body is invalid', { detail, errors });
}

export async function outboxRecordReply(runtime: GovernanceRuntime, context: RequestContext): Promise<Reply> {
  const family = context.params['*'] ?? '';
  const body = context.body as { event: string; occurred_at: string; payload: Record<string, unknown>; correlation_id?: string };
  const event = catalogEvents(runtime).find((e) => e.name === body.event);
  if (!event || event.family !== family || event.state !== 'enabled' || event.payload_schema === undefined) {
    const known = catalogEvents(runtime).filter((e) => e.family === family && e.state === 'enabled' && e.payload_schema !== undefined).map((e) => e.name);
    const detail = `Event "${body.event}" is not an enabled catalog event of family "${family}": use ${known.join(', ') || 'none'}`;
    return invalid(detail, [{ pointer: '/event', detail }]);
  }
  const { valid, errors } = payloadCheck(runtime, event).validate(body.payload);
  if (!valid) {
    return invalid(`The payload does not satisfy the payload_schema of "${event.name}": ${errors.map((e) => e.message).slice(0, 3).join('; ')}`, errors.map((e) => ({ pointer: `/payload${e.instancePath}`, detail: e.message })));
  }
  const record: OutboxRecord = { family, event: event.name, occurred_at: body.occurred_at, payload: body.payload, source: 'outbox_api', correlation_id: body.correlation_id ?? null };
  return writeReply(context, {
    store: runtime.store,
    work: (_sqlite, tx) => appendOutbox(tx, record),
    reply: (row) => json({ recorded: true, family, event: event.name, seq: row.seq, sha256: row.sha256, readback: '/api/v1/events/publishing/outbox' }, { status: 201 }),
  });
}

/** `after_seq` and `limit` of a paged evidence read, or the 422 naming the bad one. */
export function pageOf(query: URLSearchParams): { ok: true; afterSeq: number; limit: number } | { ok: false; reply: Reply } {
  const read = (name: string, fallback: number, max: number): number | string => {
    const values = query.getAll(name);
    if (values.length === 0) return fallback;
    const value = values[0]!;
    if (values.length > 1 || !/^[0-9]{1,12}$/.test(value) || Number(value) > max) return `Query parameter "${name}" must be one integer from 0 to ${max}`;
    return Number(value);
  };
  const afterSeq = read('after_seq', 0, Number.MAX_SAFE_INTEGER);
  const limit = read('limit', 100, 1000);
  const bad = [afterSeq, limit].find((v): v is string => typeof v === 'string') ?? (limit === 0 ? 'Query parameter "limit" must be at least 1' : undefined);
  if (bad !== undefined) return { ok: false, reply: problem(422, 'Query is invalid', { detail: bad, errors: [{ pointer: '/query', detail: bad }] }) };
  return { ok: true, afterSeq: afterSeq as number, limit: limit as number };
}

export const PAGE_QUERY = {
  after_seq: { description: 'Only records with a larger seq (a cursor); 0 by default', schema: { type: 'string', pattern: '^[0-9]{1,12}$' }, example: '0' },
  limit: { description: 'Most records in one answer, 1 to 1000; 100 by default', schema: { type: 'string', pattern: '^[0-9]{1,4}$' }, example: '100' },
} as const;

/** GET /api/v1/events/publishing/outbox: records in seq order, a page at a time (on the read pool). */
export async function outboxReadReply(runtime: GovernanceRuntime, context: RequestContext): Promise<Reply> {
  const page = pageOf(context.query);
  if (!page.ok) return page.reply;
  const records = await readRecordPage(runtime.readPool, outboxRecords, { afterSeq: page.afterSeq, limit: page.limit, before: ['seq', 'recorded_at'], after: ['sha256', 'prev_sha256'] });
  return recordsReply({ member: 'publishing-outbox', projection_state: 'published', evidence_table: outboxRecords.name }, 'records', records, {
    next_after_seq: records.count === page.limit ? records.lastSeq : null,
    families: OUTBOX_FAMILIES,
  });
}

/** GET /api/v1/support-orchestration/handoffs: the support family's outbox records (the ERP's support-desk handoffs), a page at a time (on the read pool). */
export async function supportHandoffsReply(runtime: GovernanceRuntime, context: RequestContext): Promise<Reply> {
  const page = pageOf(context.query);
  if (!page.ok) return page.reply;
  const records = await readRecordPage(runtime.readPool, outboxRecords, { where: { family: 'support' }, afterSeq: page.afterSeq, limit: page.limit, before: ['seq', 'recorded_at'], after: ['sha256'] });
  return recordsReply({ member: 'support-handoffs', projection_state: 'published', evidence_table: outboxRecords.name, receiver_route: '/api/v1/events/outbox/support' }, 'handoffs', records, {
    next_after_seq: records.count === page.limit ? records.lastSeq : null,
  });
}
