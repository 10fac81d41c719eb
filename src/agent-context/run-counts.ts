// Each agent's execution-run counts, kept by a trigger as runs are recorded (issue 24): the
// persistent-agent readbacks show runs dispatched, succeeded and failed, the last run dispatched
// and the version last observed, and folding them from execution_runs cost the first read after
// a start every run ever recorded (two rows a run), on the event loop. A trigger rather than the
// writes' own update, so that every insert counts, a restored row too.

import type { DatabaseSync } from 'node:sqlite';
import { ensureTrigger, statement } from '../kernel/index.ts';

export const RUN_COUNTS_TABLE = 'agent_run_counts';
const TRIGGER = 'execution_runs_count';

export interface RunCounts {
  dispatched: number;
  succeeded: number;
  failed: number;
  last_run_id: string | null;
  observed_version: string | null;
}

// What a run row adds, as the fold did: a dispatch counts and becomes the last run; a completion
// counts as succeeded when its outcome says so and as failed otherwise, and a text
// observed_version becomes the agent's. Each takes the row's name in the statement.
const completed = (row: string) => `(${row}.kind <> 'dispatched')`;
const succeeded = (row: string) => `(json_extract(${row}.payload, '$.outcome') IS 'succeeded')`;
const observed = (row: string) => `(json_type(${row}.payload, '$.observed_version') = 'text')`;

/**
 * Creates the counters and their trigger on `runs` (the execution_runs evidence table), counting
 * the runs already stored once (idempotent; processes sharing the database race safely on the
 * write lock).
 */
export function ensureRunCounts(sqlite: DatabaseSync, runs: string): void {
  ensureTrigger(
    sqlite,
    TRIGGER,
    `CREATE TABLE IF NOT EXISTS ${RUN_COUNTS_TABLE} (
          agent_id TEXT PRIMARY KEY, dispatched INTEGER NOT NULL, succeeded INTEGER NOT NULL, failed INTEGER NOT NULL,
          last_run_id TEXT, observed_version TEXT) STRICT;
        DELETE FROM ${RUN_COUNTS_TABLE};
        INSERT INTO ${RUN_COUNTS_TABLE} (agent_id, dispatched, succeeded, failed, last_run_id, observed_version)
          SELECT r.agent_id, sum(NOT ${completed('r')}), sum(${completed('r')} AND ${succeeded('r')}), sum(${completed('r')} AND NOT ${succeeded('r')}),
            (SELECT d.run_id FROM ${runs} d WHERE d.agent_id = r.agent_id AND NOT ${completed('d')} ORDER BY d.seq DESC LIMIT 1),
            (SELECT json_extract(o.payload, '$.observed_version') FROM ${runs} o WHERE o.agent_id = r.agent_id AND ${completed('o')} AND ${observed('o')} ORDER BY o.seq DESC LIMIT 1)
          FROM ${runs} r GROUP BY r.agent_id;
        CREATE TRIGGER ${TRIGGER} AFTER INSERT ON ${runs} BEGIN
          INSERT INTO ${RUN_COUNTS_TABLE} (agent_id, dispatched, succeeded, failed) VALUES (NEW.agent_id, 0, 0, 0) ON CONFLICT (agent_id) DO NOTHING;
          UPDATE ${RUN_COUNTS_TABLE} SET
            dispatched = dispatched + (NOT ${completed('NEW')}),
            succeeded = succeeded + (${completed('NEW')} AND ${succeeded('NEW')}),
            failed = failed + (${completed('NEW')} AND NOT ${succeeded('NEW')}),
            last_run_id = CASE WHEN ${completed('NEW')} THEN last_run_id ELSE NEW.run_id END,
            observed_version = CASE WHEN ${completed('NEW')} AND ${observed('NEW')} THEN json_extract(NEW.payload, '$.observed_version') ELSE observed_version END
          WHERE agent_id = NEW.agent_id;
        END;`,
  );
}

/** Every agent's counts: one row per agent that has had a run. */
export function readRunCounts(sqlite: DatabaseSync): Map<string, RunCounts> {
  const counts = new Map<string, RunCounts>();
  for (const row of statement(sqlite, `SELECT * FROM ${RUN_COUNTS_TABLE}`).all()) {
    counts.set(String(row['agent_id']), {
      dispatched: Number(row['dispatched']),
      succeeded: Number(row['succeeded']),
      failed: Number(row['failed']),
      last_run_id: row['last_run_id'] === null ? null : String(row['last_run_id']),
      observed_version: row['observed_version'] === null ? null : String(row['observed_version']),
    });
  }
  return counts;
}
