// One wrapper for every write and control route: project the authority context (fail closed),
// record the decision, check the route's precondition against current state and apply its
// effect in ONE transaction with the authority row and the outbox event, so state, evidence and
// the published event commit together or not at all. A refused write changes no state; its
// refusal is itself evidence (authority_decisions).

import type { DatabaseSync } from 'node:sqlite';
import { json } from '../kernel/index.ts';
import type { Handler, JsonValue, Reply, RequestContext, Store, Transaction } from '../kernel/index.ts';
import { projectAuthority } from './authority.ts';
import type { ProjectedAuthority } from './authority.ts';
import { authorityDecisions, outboxEvents } from './database.ts';
import type { GovernanceClient } from './governance-client.ts';
import type { ServiceMetrics } from './service-metrics.ts';

export interface WriteEffect {
  /** Evidence rows appended, by table name (for the metrics). */
  rows: Record<string, number>;
  /** The event published to the outbox, and its subject. */
  event: { name: string; subject: string; payload: Record<string, JsonValue> };
  status: number;
  body: Record<string, unknown>;
}

export interface GuardedWrite {
  /** The action intent the route performs; authority_context must name it and governance must admit it. */
  intent: string;
  /** A refusal from current state (404, 409, 403), or undefined to go on. Must not write. */
  check(sqlite: DatabaseSync, context: RequestContext, authority: ProjectedAuthority): Reply | undefined;
  /** The effect, inside the same transaction (so `sqlite` reads what `check` saw). */
  apply(tx: Transaction, context: RequestContext, authority: ProjectedAuthority, sqlite: DatabaseSync): WriteEffect;
  /** Counts what only this route counts, after the commit. */
  counted?(metrics: ServiceMetrics): void;
}

export interface WriteDeps {
  store: () => Store;
  governance: GovernanceClient;
  metrics: ServiceMetrics;
}

export function guardedWrite(route: string, write: GuardedWrite, deps: WriteDeps): Handler {
  return async (context) => {
    const body = (context.body ?? {}) as { authority_context?: unknown };
    const outcome = await projectAuthority(body.authority_context, { intent: write.intent, governance: deps.governance, requestId: context.requestId });
    const store = deps.store();
    if (!outcome.ok) {
      await store.append(authorityDecisions, {
        route,
        verdict: 'refused',
        payload: { reason: outcome.reason, status: outcome.reply.status, request_id: context.requestId, presented: (outcome.context ?? null) as JsonValue },
      });
      deps.metrics.authorityDecisions.inc({ verdict: 'refused', reason: outcome.reason });
      deps.metrics.appends.inc({ table: authorityDecisions.name });
      return outcome.reply;
    }
    const authority = outcome.authority;
    // The check and the effect share one transaction, so no other write slips between them; a
    // refusal returns before anything is appended.
    const committed = await store.write((sqlite, tx) => {
      const refusal = write.check(sqlite, context, authority);
      if (refusal !== undefined) return { refusal };
      const decision = tx.append(authorityDecisions, { route, verdict: 'admitted', payload: { ...authority, request_id: context.requestId } as unknown as JsonValue });
      const effect = write.apply(tx, context, authority, sqlite);
      const event = tx.append(outboxEvents, { event: effect.event.name, subject: effect.event.subject, payload: { ...effect.event.payload, authority_seq: decision.seq } });
      return { effect, decision, event };
    });
    if ('refusal' in committed) return committed.refusal as Reply;
    const { effect, decision, event } = committed;
    deps.metrics.authorityDecisions.inc({ verdict: 'admitted', reason: 'admitted' });
    deps.metrics.outboxEvents.inc({ event: effect.event.name });
    write.counted?.(deps.metrics);
    for (const [table, count] of Object.entries({ ...effect.rows, [authorityDecisions.name]: 1, [outboxEvents.name]: 1 })) deps.metrics.appends.inc({ table }, count);
    return json(
      { ...effect.body, authority, evidence: { authority_decision: { seq: decision.seq, sha256: decision.sha256 }, outbox_event: { seq: event.seq, event: event.event, sha256: event.sha256 } } },
      { status: effect.status },
    );
  };
}
