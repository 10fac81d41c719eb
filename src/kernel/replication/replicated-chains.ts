// A service's evidence as the stream holds it: every message of airlock.evidence.<service>.>
// gathered per table, de-duplicated by seq (a row sent twice is the same row; two different rows
// for one seq are two writers, an error), checked as a chain (seq 1..n without a gap, each
// prev_sha256 the sha256 before it, each sha256 recomputed from the fields), and, for a restore,
// written into an empty database as stored, with the tables declared as the rows show them.

import type { DatabaseSync } from 'node:sqlite';
import { AirlockError } from '../errors.ts';
import type { StreamApi } from '../nats/stream-api.ts';
import { defineEvidenceTable, ensureEvidenceTables } from '../store/evidence-table.ts';
import type { ColumnType } from '../store/evidence-table.ts';
import { GENESIS_SHA256 } from '../store/row-hash.ts';
import { decodeEvidenceRow, EVIDENCE_SUBJECT_PREFIX, evidenceSubject, nonCanonicalPayload, recomputeRowHash, sameEvidenceRow } from './evidence-message.ts';
import type { StoredEvidenceRow } from './evidence-message.ts';

export interface ReplicatedChain {
  table: string;
  /** The declared columns, as the rows carry them. */
  columns: Record<string, ColumnType>;
  /** In seq order, one per seq. */
  rows: StoredEvidenceRow[];
  /** Messages that repeated a row already seen (a re-send stored twice): harmless. */
  repeats: number;
}

export type ReplicatedVerification =
  | { ok: true; table: string; rows: number; head: string }
  | { ok: false; table: string; seq: number | null; reason: string };

/** Reads every evidence message of `service` from `stream`. Throws `evidence_replication` when one seq has two different rows. */
export async function readReplicatedChains(api: StreamApi, options: { stream: string; service: string }): Promise<ReplicatedChain[]> {
  evidenceSubject(options.service, 'probe');
  const prefix = `${EVIDENCE_SUBJECT_PREFIX}.${options.service}.`;
  const chains = new Map<string, { columns: Record<string, ColumnType>; bySeq: Map<number, StoredEvidenceRow>; repeats: number }>();
  await api.replay(options.stream, `${prefix}>`, (message) => {
    const table = message.subject.slice(prefix.length);
    let row: StoredEvidenceRow;
    try {
      row = decodeEvidenceRow(message.data);
    } catch (error) {
      throw new AirlockError('evidence_replication', `Stream message ${message.seq} on "${message.subject}" is not an evidence row: ${(error as Error).message}`);
    }
    let chain = chains.get(table);
    if (chain === undefined) {
      const columns = Object.fromEntries(Object.entries(row.columns).map(([name, value]) => [name, typeof value === 'number' ? 'integer' : 'text'] as const));
      chain = { columns, bySeq: new Map(), repeats: 0 };
      chains.set(table, chain);
    }
    const seen = chain.bySeq.get(row.seq);
    if (seen === undefined) chain.bySeq.set(row.seq, row);
    else if (sameEvidenceRow(seen, row)) chain.repeats++;
    else {
      const which = seen.sha256 === row.sha256 ? `both claim sha256 ${row.sha256}, stream message ${message.seq} with other content` : `sha256 ${seen.sha256} and ${row.sha256}`;
      throw new AirlockError('evidence_replication', `The stream holds two different rows for seq ${row.seq} of "${message.subject}" (${which}): two hosts wrote this chain; restore from a stream with one writer`);
    }
  });
  return [...chains.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([table, chain]) => ({ table, columns: chain.columns, rows: [...chain.bySeq.values()].sort((a, b) => a.seq - b.seq), repeats: chain.repeats }));
}

/** Checks a replicated chain as verify_evidence_chain checks a table: the first row that breaks it, else its head. */
export function verifyReplicatedChain(chain: ReplicatedChain): ReplicatedVerification {
  let prev = GENESIS_SHA256;
  for (let index = 0; index < chain.rows.length; index++) {
    const row = chain.rows[index]!;
    const fail = (reason: string): ReplicatedVerification => ({ ok: false, table: chain.table, seq: row.seq, reason });
    if (row.seq !== index + 1) return { ok: false, table: chain.table, seq: index + 1, reason: `row missing from the stream (next stored seq is ${row.seq})` };
    if (row.prev_sha256 !== prev) return fail(`prev_sha256 ${row.prev_sha256} does not match the previous row's sha256 ${prev}`);
    const columns = Object.keys(row.columns).sort().join(',');
    if (columns !== Object.keys(chain.columns).sort().join(',')) return fail(`columns ${columns} differ from the table's ${Object.keys(chain.columns).sort().join(',')}`);
    const notCanonical = nonCanonicalPayload(row);
    if (notCanonical !== undefined) return fail(notCanonical);
    const recomputed = recomputeRowHash(row);
    if (recomputed !== row.sha256) return fail(`sha256 ${row.sha256} does not match the recomputed ${recomputed}`);
    prev = row.sha256;
  }
  return { ok: true, table: chain.table, rows: chain.rows.length, head: prev };
}

/**
 * Creates the chain's evidence table in `sqlite` (registry, indexes and append-only triggers as
 * the store makes them) and inserts its rows exactly as stored. Verify the chain first.
 */
export function writeReplicatedChain(sqlite: DatabaseSync, chain: ReplicatedChain, options: { now: () => Date }): void {
  ensureEvidenceTables(sqlite, [defineEvidenceTable({ name: chain.table, columns: chain.columns })], { label: sqlite.location() ?? ':memory:', now: options.now });
  const names = Object.keys(chain.columns);
  const insert = sqlite.prepare(
    `INSERT INTO ${chain.table} (seq, recorded_at, ${names.map((name) => `${name}, `).join('')}payload, sha256, prev_sha256) VALUES (${'?, '.repeat(names.length + 4)}?)`,
  );
  sqlite.exec('BEGIN IMMEDIATE');
  try {
    for (const row of chain.rows) insert.run(row.seq, row.recorded_at, ...names.map((name) => row.columns[name]!), row.payload, row.sha256, row.prev_sha256);
    sqlite.exec('COMMIT');
  } catch (error) {
    if (sqlite.isTransaction) sqlite.exec('ROLLBACK');
    throw error;
  }
}
