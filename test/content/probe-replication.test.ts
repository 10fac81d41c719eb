// The content repository's readiness with evidence replication on (docs/replication.md): Alfresco's
// probe has no "warn", so a replication that stopped or that the stream refuses makes it not
// ready, naming why, and a replication that only lags leaves it ready.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { readinessProblems } from '../../src/content/probes.ts';
import type { ContentDeps } from '../../src/content/api-support.ts';
import type { ReplicationStatus } from '../../src/kernel/index.ts';

function depsWith(replication: Partial<ReplicationStatus> | undefined): ContentDeps {
  const sqlite = new DatabaseSync(':memory:');
  sqlite.exec("CREATE TABLE nodes (id TEXT); CREATE VIRTUAL TABLE search_index USING fts5(body);");
  const status = replication && ({ mode: 'async', stream: 'AIRLOCK_EVIDENCE', connected: true, state: 'shipping', lag_rows: 0, lag_seconds: 0, lag_warn_seconds: 60, refused: false, ...replication } as ReplicationStatus);
  return { store: { sqlite, replication: () => status } } as unknown as ContentDeps;
}

test('-ready- is not ready while evidence replication is stopped or refused, and says why', () => {
  assert.deepEqual(readinessProblems(depsWith(undefined)), []);
  assert.deepEqual(readinessProblems(depsWith({ lag_rows: 500, lag_seconds: 600 })), [], 'a lag is a warning elsewhere, not a readiness loss');
  assert.deepEqual(readinessProblems(depsWith({ stopped_reason: 'the stream holds seq 9 past the local chain' })), ['evidence replication stopped: the stream holds seq 9 past the local chain']);
  assert.match(readinessProblems(depsWith({ refused: true, last_error: 'maximum messages exceeded' })).join(), /the stream refuses writes: maximum messages exceeded/);
});
