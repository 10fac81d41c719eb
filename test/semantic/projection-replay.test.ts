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

test('projectionRunBody() labels the replay verdict and drift synthetic, like every uncounted zero: its log is in order by construction', () => {
  const body = projectionRunBody(REQUEST, 'S0') as { receipts: Record<string, Record<string, unknown>> };
  const { replay_rebuild: replay, reconciliation, cleanup, residual_scan: residual } = body.receipts;
  assert.deepEqual([replay!['outcome'], replay!['basis']], ['equivalent_asserted', 'synthetic']);
  assert.match(String(replay!['reason']), /in order by construction/);
  assert.equal(replay!['replay_digest'], replay!['rebuild_digest']);
  assert.deepEqual(reconciliation!['drift_items'], { value: 0, basis: 'synthetic', reason: replay!['reason'] });
  assert.equal(reconciliation!['outcome'], 'reconciled_asserted');
  assert.doesNotMatch(JSON.stringify(body), /computed/, 'no receipt claims a computed verdict');
  assert.deepEqual((cleanup!['artifacts_created'] as Record<string, unknown>)['basis'], 'synthetic');
  assert.deepEqual((residual!['residual_entries_asserted'] as Record<string, unknown>)['basis'], 'synthetic');
  const other = projectionRunBody({ ...REQUEST, source_event_id: 'evt-2' }, 'S0') as typeof body;
  assert.notEqual(other.receipts['replay_rebuild']!['replay_digest'], replay!['replay_digest'], 'the digests depend on the run');
});

test('projectionRunBody() gives the same verdict for every run: why it is labelled synthetic', () => {
  const outcomes = new Set<unknown>();
  for (let i = 0; i < 300; i += 1) {
    const body = projectionRunBody({ correlation_id: `corr-${i}`, source_event_id: `evt-${i * 7}`, case_ref: `ts02:case-${i % 13}` }, 'S0') as { receipts: Record<string, Record<string, unknown>> };
    outcomes.add(`${String(body.receipts['replay_rebuild']!['outcome'])} ${String(body.receipts['replay_rebuild']!['basis'])}`);
  }
  assert.deepEqual([...outcomes], ['equivalent_asserted synthetic']);
});
