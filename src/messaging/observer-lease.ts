// One active lane observer per gateway target across processes: before each poll an observer
// takes (or renews) the target's lease in the messaging database, and polls only while it holds
// it. A second messaging API on the same database waits as a standby and takes over once the
// holder released the lease (at shutdown) or let it expire (a crash).

import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { statement } from '../kernel/index.ts';
import type { Store } from '../kernel/index.ts';

export type LeaseOutcome = { held: true; expiresAt: number } | { held: false; holder: string; expiresAt: number };

export interface ObserverLeases {
  /** Who this process is in the lease table: host, pid and a random part (a restarted process is another holder). */
  readonly holder: string;
  /** Takes the target's lease, or renews ours, until `now + ttlMs`; another holder's unexpired lease is left alone. */
  acquire(target: string, options: { now: number; ttlMs: number }): Promise<LeaseOutcome>;
  /** Gives back every lease this process holds, so a standby takes over at its next poll. */
  releaseAll(): Promise<void>;
}

export function createObserverLeases(store: Store): ObserverLeases {
  const holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  return {
    holder,
    acquire: (target, { now, ttlMs }) =>
      // One write transaction (BEGIN IMMEDIATE): two processes cannot both see the lease free.
      store.write((sqlite) => {
        statement(
          sqlite,
          `INSERT INTO observer_leases (target, holder, expires_at) VALUES (?, ?, ?)
             ON CONFLICT (target) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
           WHERE observer_leases.holder = excluded.holder OR observer_leases.expires_at <= ?`,
        ).run(target, holder, now + ttlMs, now);
        const row = statement(sqlite, 'SELECT holder, expires_at FROM observer_leases WHERE target = ?').get(target) as { holder: string; expires_at: number };
        return row.holder === holder ? { held: true, expiresAt: Number(row.expires_at) } : { held: false, holder: row.holder, expiresAt: Number(row.expires_at) };
      }),
    releaseAll: async () => {
      await store.write((sqlite) => statement(sqlite, 'DELETE FROM observer_leases WHERE holder = ?').run(holder));
    },
  };
}
