import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyProbe, initialPartState, nextRecoverySeconds } from '../../src/messaging/restart-recovery.ts';

const POLICY = { intervalSeconds: 45, maxBackoffSeconds: 300, jitterSeconds: 3 };

test('nextRecoverySeconds() is the interval when healthy and doubles to at most 300 s while down, plus at most 3 s of jitter', () => {
  const none = () => 0;
  assert.deepEqual([0, 1, 2, 3, 10].map((f) => nextRecoverySeconds(POLICY, f, none)), [45, 90, 180, 300, 300]);
  assert.equal(nextRecoverySeconds(POLICY, 0, () => 0.999), 45 + 0.999 * 3);
  assert.equal(nextRecoverySeconds({ ...POLICY, intervalSeconds: 30 }, 0, none), 30);
});

test('applyProbe() reports down once and recovered once, counting failures in between', () => {
  const state = initialPartState();
  assert.equal(applyProbe(state, 'bus', { ok: true }, 't0'), undefined);
  assert.equal(applyProbe(state, 'bus', { ok: false, error: 'x' }, 't1')?.kind, 'down');
  assert.equal(applyProbe(state, 'bus', { ok: false }, 't2'), undefined);
  const back = applyProbe(state, 'bus', { ok: true }, 't3');
  assert.deepEqual(back, { part: 'bus', kind: 'recovered', at: 't3', failures: 2 });
  assert.equal(state.consecutiveFailures, 0);
});
