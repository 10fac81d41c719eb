// A handler's effect and its Idempotency-Key commit together (DESIGN.md, Idempotency): the
// reply is built inside the effect's write unit and, when the request owns a key, stored as the
// key's response in that same unit. A crash at any instant leaves either both or neither.

import type { DatabaseSync } from 'node:sqlite';
import type { Store, Transaction } from '../store/index.ts';
import type { Reply, RequestContext } from './route.ts';

export interface WriteReplyOptions<R> {
  /** The store the route's Idempotency-Key store lives in (one database per service). */
  store: Store;
  /** The effect: synchronous, inside one group-commit unit, as for store.write(). */
  work: (sqlite: DatabaseSync, tx: Transaction) => R;
  /** The reply for the effect's result, built inside the same unit (synchronous). */
  reply: (result: R) => Reply;
}

/**
 * Commits a handler's effect and answers with its reply. On a route with Idempotency-Key, the
 * key's stored response commits in the same transaction as the effect, and the reply resolved
 * here is the one sent and replayed. Without a key (or on a route without idempotency) it is a
 * plain store.write(). A reply of 5xx is not stored: the kernel releases the key instead.
 * One keyed request guards one effect: a second writeReply() in the same request throws.
 *
 * @example
 * return writeReply(context, {
 *   store,
 *   work: (_sqlite, tx) => tx.append(orders, { subject: body.id, kind: 'created', payload: body }),
 *   reply: (row) => json({ seq: row.seq }, { status: 201 }),
 * });
 */
export function writeReply<R>(context: RequestContext, options: WriteReplyOptions<R>): Promise<Reply> {
  const claim = context.idempotency;
  return options.store.write((sqlite, tx) => {
    const reply = options.reply(options.work(sqlite, tx));
    if (claim === undefined || reply.status >= 500) return reply;
    return claim.completeWithin(sqlite, reply);
  });
}
