import { test } from 'node:test';
import assert from 'node:assert/strict';
import { projectionEventLog, replayAndRebuild } from '../../src/semantic/projection-replay.ts';
import { projectionRunBody } from '../../src/semantic/projection-verification.ts';

const REQUEST = { correlation_id: 'corr-1', source_event_id: 'evt-1', case_ref: 'ts02:case-001' };

test('replayAndRebuild() finds a well-ordered log equivalent, with no drift', () => {
  const result = replayAndRebuild(projectionEventLog('ns', 'evt-1'));
  assert.deepEqual([result.events, result.keys, result.drift_items, result.outcome], [6, 3, 0, 'equivalent']);
  assert.equal(result.replay_digest, result.rebuild_digest);
});

test('replayAndRebuild() finds a log delivered out of order divergent, counting each drifted key', () => {
  const log = projectionEventLog('ns', 'evt-1');
  // The last event of entity-0 (seq 4) arrives before its first (seq 1): replay keeps the stale one.
  const shuffled = [log[3]!, log[1]!, log[2]!, log[0]!, log[4]!, log[5]!];
  const result = replayAndRebuild(shuffled);
  assert.equal(result.outcome, 'divergent');
  assert.equal(result.drift_items, 1);
  assert.notEqual(result.replay_digest, result.rebuild_digest);
  const twoKeys = replayAndRebuild([log[3]!, log[4]!, log[0]!, log[1]!, log[2]!, log[5]!]);
  assert.equal(twoKeys.drift_items, 2);
});

test('projectionRunBody() derives replay, rebuild and drift from the run, and marks uncounted zeros synthetic', () => {
  const body = projectionRunBody(REQUEST, 'S0') as { receipts: Record<string, Record<string, unknown>> };
  const { replay_rebuild: replay, reconciliation, cleanup, residual_scan: residual } = body.receipts;
  assert.equal(replay!['outcome'], 'equivalent');
  assert.equal(replay!['replay_digest'], replay!['rebuild_digest']);
  assert.equal(reconciliation!['drift_items'], 0);
  assert.match(String(reconciliation!['drift_basis']), /^computed/);
  assert.deepEqual((cleanup!['artifacts_created'] as Record<string, unknown>)['basis'], 'synthetic');
  assert.deepEqual((residual!['residual_entries_asserted'] as Record<string, unknown>)['basis'], 'synthetic');
  const other = projectionRunBody({ ...REQUEST, source_event_id: 'evt-2' }, 'S0') as typeof body;
  assert.notEqual(other.receipts['replay_rebuild']!['replay_digest'], replay!['replay_digest'], 'the digests depend on the run');
});
