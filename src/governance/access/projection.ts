// Identity projections (mail management, product entitlement): a producer writes what it
// observed for one exact scope; the consumer reads a decision for one exact scope. Only fresh
// observations of an exact scope count; of those, only qualifying truth (an active human
// administrator, an active entitlement) is projected, and a fresh non-qualifying observation
// withdraws the scope. Every write leaves a row, refused ones included; the decision is folded
// from the rows of the scope, and expires with the projection. Default: deny.

import { json, problem, statement, writeReply } from '../../kernel/index.ts';
import type { DatabaseSync } from 'node:sqlite';
import type { EvidenceRow, JsonValue, Reply, RequestContext, Transaction } from '../../kernel/index.ts';
import { identityProjections, WITHDRAWALS_INDEX, WITHDRAWN_CONDITION } from '../database.ts';
import { artifactMember } from '../routing/read-route.ts';
import type { GovernanceRuntime } from '../runtime.ts';

export type Surface = 'mail_management' | 'product_entitlement';
export type Effect = 'projected' | 'withdrawn' | 'refused';

/** The tenant ids a scope may name (the projection input schemas use the same pattern). */
export const TENANT_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * The storage key of one exact scope. JSON of the parts, never a joined string: "a/b" + "c" and
 * "a" + "b/c" must not meet in one key.
 */
export function scopeKey(...parts: string[]): string {
  return JSON.stringify(parts);
}

export type ScopeResult = { ok: true; key: string; scope: Record<string, string> } | { ok: false; reason: string; detail: string };

export interface SurfaceSpec {
  surface: Surface;
  /** The artifact member holding the surface's freshness policy. */
  policy: string;
  /** The exact scope a write names, or why it names none. */
  writeScope(runtime: GovernanceRuntime, body: any): ScopeResult;
  /** The exact scope a decision read names in its query, or why it names none. */
  readScope(query: URLSearchParams): ScopeResult;
  /** Why the observation is not qualifying truth; empty when it is. */
  disqualify(body: any): string[];
  observedAt(body: any): string;
  /** Seconds the projection stays valid after observed_at. */
  validForSeconds(runtime: GovernanceRuntime, body: any): number;
  /** What the row keeps of the observation. */
  observation(body: any): Record<string, unknown>;
  /** What an allow grants, named. */
  grant: string;
}

export interface ProjectionPayload {
  effect: Effect;
  reasons: string[];
  scope: Record<string, string>;
  observation: Record<string, unknown>;
  observed_at: string;
  expires_at: string | null;
  recorded_by_lane: string;
}

export type ProjectionRow = EvidenceRow<{ surface: 'text'; scope_key: 'text' }, ProjectionPayload>;

interface Policy {
  max_age_seconds: number;
  max_clock_skew_seconds: number;
}

function policyOf(runtime: GovernanceRuntime, spec: SurfaceSpec): Policy {
  return artifactMember(runtime, spec.policy)!['freshness'] as Policy;
}

/** The scope's withdrawals, in seq order, by the partial index of withdrawals (few rows). */
export function withdrawalsOf(sqlite: DatabaseSync, surface: Surface, key: string): ProjectionRow[] {
  return statement(sqlite, WITHDRAWALS_SQL).all(key, surface).map(parsedRow);
}

/**
 * The scope's rows after `afterSeq` and before `beforeSeq`, newest first, by the scope_key index:
 * a caller stops reading as soon as it has what it needs.
 */
export function* rowsBackwards(sqlite: DatabaseSync, surface: Surface, key: string, afterSeq: number, beforeSeq: number): Generator<ProjectionRow> {
  for (const row of statement(sqlite, BACKWARDS_SQL).iterate(key, beforeSeq, afterSeq, surface)) yield parsedRow(row);
}

const WITHDRAWALS_SQL = `SELECT * FROM ${identityProjections.name} INDEXED BY ${WITHDRAWALS_INDEX} WHERE scope_key = ? AND ${WITHDRAWN_CONDITION} AND surface = ? ORDER BY seq`;
const BACKWARDS_SQL = `SELECT * FROM ${identityProjections.name} INDEXED BY identity_projections_scope_key WHERE scope_key = ? AND seq < ? AND seq > ? AND surface = ? ORDER BY seq DESC`;
const parsedRow = (row: Record<string, unknown>) => ({ ...row, payload: JSON.parse(String(row['payload'])) }) as unknown as ProjectionRow;

// The reads that decide a scope now (issue 24): a producer refreshes each scope's truth at least
// hourly, so identity_projections grows without end while the scopes stay few. A decision needs
// only the scope's latest row that was not refused, found backwards through the scope_key index;
// the scopes are found by skipping through that index one key at a time. Neither reads the history.

const LATEST_SQL = `SELECT * FROM ${identityProjections.name} INDEXED BY identity_projections_scope_key WHERE scope_key = ? AND surface = ? AND json_extract(payload, '$.effect') <> 'refused' ORDER BY seq DESC LIMIT 1`;
const NEXT_KEY_SQL = `SELECT min(scope_key) AS key FROM ${identityProjections.name} WHERE scope_key > ?`;
const HAS_SURFACE_SQL = `SELECT 1 FROM ${identityProjections.name} INDEXED BY identity_projections_scope_key WHERE scope_key = ? AND surface = ? LIMIT 1`;

/** The scope's latest projected or withdrawn row (what decide() looks at), as a list of at most one. */
export function latestProjection(sqlite: DatabaseSync, surface: string, key: string): ProjectionRow[] {
  const row = statement(sqlite, LATEST_SQL).get(key, surface);
  return row === undefined ? [] : [parsedRow(row)];
}

/** The scope keys of `surface` but the refused "(none)", in order: one index seek per key. */
export function projectedScopeKeys(sqlite: DatabaseSync, surface: string): string[] {
  const keys: string[] = [];
  // '' sorts before every key; "(none)" is the key of a refusal without a scope.
  for (let key = String(statement(sqlite, NEXT_KEY_SQL).get('')?.['key'] ?? ''); key !== ''; key = String(statement(sqlite, NEXT_KEY_SQL).get(key)?.['key'] ?? '')) {
    if (key !== '(none)' && statement(sqlite, HAS_SURFACE_SQL).get(key, surface) !== undefined) keys.push(key);
  }
  return keys;
}

/** POST .../projection: record one observation and say what it did to the scope. */
export function projectionWrite(spec: SurfaceSpec): (runtime: GovernanceRuntime, context: RequestContext) => Promise<Reply> {
  return async (runtime, context) => {
    const body = context.body as Record<string, unknown>;
    const policy = policyOf(runtime, spec);
    const scope = spec.writeScope(runtime, body);
    const observedAt = spec.observedAt(body);
    // RFC 3339 admits a leap second (":60") that Date.parse cannot place: refuse it before any write.
    if (!Number.isFinite(Date.parse(observedAt))) {
      return problem(422, 'Request body is invalid', { detail: `observed_at "${observedAt}" is not a time this service can compare: send it without a leap second`, errors: [{ pointer: '/observed_at', detail: 'not a comparable instant' }] });
    }
    const now = runtime.now();
    const age = (now - Date.parse(observedAt)) / 1000;
    const base = { reasons: [] as string[], scope: scope.ok ? scope.scope : {}, observation: spec.observation(body), observed_at: observedAt, expires_at: null, recorded_by_lane: String(context.principal) };
    const work = (sqlite: DatabaseSync, tx: Transaction) => {
      let payload: ProjectionPayload;
      if (!scope.ok) payload = { ...base, effect: 'refused', reasons: [scope.reason] };
      else if (age > policy.max_age_seconds || age < -policy.max_clock_skew_seconds) payload = { ...base, effect: 'refused', reasons: ['stale'] };
      else {
        // The scope's latest row that was not refused, by the index: a refresh every hour must not read the scope's history.
        const latest = latestProjection(sqlite, spec.surface, scope.key)[0];
        if (latest && Date.parse(latest.payload.observed_at) > Date.parse(observedAt)) payload = { ...base, effect: 'refused', reasons: ['superseded'] };
        else {
          const reasons = spec.disqualify(body);
          const expires = new Date(Date.parse(observedAt) + spec.validForSeconds(runtime, body) * 1000).toISOString();
          payload = { ...base, effect: reasons.length === 0 ? 'projected' : 'withdrawn', reasons, expires_at: reasons.length === 0 ? expires : null };
        }
      }
      const row = tx.append(identityProjections, { surface: spec.surface, scope_key: scope.ok ? scope.key : '(none)', payload: payload as unknown as JsonValue });
      return { payload, seq: row.seq, sha256: row.sha256 };
    };
    return writeReply(context, { store: runtime.store, work, reply: (outcome) => projectionReply(spec, { outcome, scope, observedAt, age, policy }) });
  };
}

function projectionReply(
  spec: SurfaceSpec,
  { outcome, scope, observedAt, age, policy }: { outcome: { payload: ProjectionPayload; seq: number; sha256: string }; scope: { ok: boolean; detail?: string }; observedAt: string; age: number; policy: { max_age_seconds: number; max_clock_skew_seconds: number } },
): Reply {
  const { payload } = outcome;
  const evidence = { table: identityProjections.name, seq: outcome.seq, sha256: outcome.sha256 };
  if (payload.effect === 'refused') {
    const detail = !scope.ok ? scope.detail : payload.reasons[0] === 'stale'
      ? `observed_at "${observedAt}" is ${Math.round(age)} s old; fresh means at most ${policy.max_age_seconds} s old and at most ${policy.max_clock_skew_seconds} s ahead`
      : `a newer observation of this scope is already recorded: "${observedAt}" does not override it`;
    return problem(422, 'Projection refused', { type: `${spec.surface.replaceAll('_', '-')}-projection-refused`, detail, extensions: { surface: spec.surface, effect: 'refused', reasons: payload.reasons, evidence } });
  }
  return json(
    { surface: spec.surface, scope: payload.scope, effect: payload.effect, reasons: payload.reasons, observed_at: observedAt, expires_at: payload.expires_at, evidence },
    { status: payload.effect === 'projected' ? 201 : 200 },
  );
}

export interface Decision {
  decision: 'allow' | 'deny';
  reason: 'projected' | 'no_projection' | 'withdrawn' | 'expired';
  reasons: string[];
  row: ProjectionRow | undefined;
}

/** The decision for one exact scope now: the latest projected or withdrawing row, unexpired. */
export function decide(rows: readonly ProjectionRow[], now: number): Decision {
  const row = rows.filter((r) => r.payload.effect !== 'refused').at(-1);
  if (!row) return { decision: 'deny', reason: 'no_projection', reasons: [], row };
  if (row.payload.effect === 'withdrawn') return { decision: 'deny', reason: 'withdrawn', reasons: row.payload.reasons, row };
  if (Date.parse(row.payload.expires_at ?? '') <= now) return { decision: 'deny', reason: 'expired', reasons: [], row };
  return { decision: 'allow', reason: 'projected', reasons: [], row };
}

/** GET .../decision: 403 deny for a missing or ambiguous scope; otherwise the scope's decision. */
export function decisionRead(spec: SurfaceSpec): (runtime: GovernanceRuntime, context: RequestContext) => Reply {
  return (runtime, context) => {
    const scope = spec.readScope(context.query);
    if (!scope.ok) {
      return problem(403, 'Decision denied', {
        type: `${spec.surface.replaceAll('_', '-')}-scope-denied`,
        detail: scope.detail,
        extensions: { surface: spec.surface, decision: 'deny', reason: scope.reason },
      });
    }
    const decision = decide(latestProjection(runtime.store.sqlite, spec.surface, scope.key), runtime.now());
    const row = decision.row;
    return json({
      surface: spec.surface,
      scope: scope.scope,
      decision: decision.decision,
      reason: decision.reason,
      reasons: decision.reasons,
      projection: row ? { seq: row.seq, sha256: row.sha256, effect: row.payload.effect, observed_at: row.payload.observed_at, expires_at: row.payload.expires_at, observation: row.payload.observation } : null,
      grants: { [spec.grant]: decision.decision === 'allow' },
      projection_state: 'published',
    });
  };
}

/** One value of a query parameter, or why there is not exactly one. */
function single(query: URLSearchParams, name: string): { ok: true; value: string } | { ok: false; reason: string; detail: string } {
  const values = query.getAll(name);
  if (values.length === 0 || values[0] === '') return { ok: false, reason: 'scope_missing', detail: `Query parameter "${name}" is required: a decision is read for one exact scope` };
  if (values.length > 1) return { ok: false, reason: 'scope_ambiguous', detail: `Query parameter "${name}" is repeated: a decision is read for one exact scope` };
  return { ok: true, value: values[0]! };
}

/** The exact scope a decision read names: one tenant_id and one `name`, then the surface's own check. */
export function queryScope(query: URLSearchParams, name: string, scopeOf: (tenant: string, value: string) => ScopeResult): ScopeResult {
  const tenant = single(query, 'tenant_id');
  if (!tenant.ok) return tenant;
  const value = single(query, name);
  if (!value.ok) return value;
  return scopeOf(tenant.value, value.value);
}
