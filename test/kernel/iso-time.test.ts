import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isoTime, isoTimeOfMs } from '../../src/kernel/iso-time.ts';

test('isoTime() is toISOString(), for repeated, alternating and distant instants', () => {
  const instants = [0, 0, 1, 0, 1_700_000_000_123, 1_700_000_000_123, 1_700_000_000_124, -1, 8.64e15, -8.64e15, 253402300799999, 253402300800000];
  for (const ms of instants) {
    assert.equal(isoTime(new Date(ms)), new Date(ms).toISOString(), String(ms));
    assert.equal(isoTimeOfMs(ms), new Date(ms).toISOString(), String(ms));
  }
  let state = 7;
  for (let i = 0; i < 5000; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const ms = state % 3 === 0 ? 1_700_000_000_000 : 1_700_000_000_000 + state * 977;
    assert.equal(isoTimeOfMs(ms), new Date(ms).toISOString());
  }
});

test('isoTime() of an invalid date throws as toISOString() does, and the next valid one is right', () => {
  assert.throws(() => isoTime(new Date(Number.NaN)), RangeError);
  assert.throws(() => isoTimeOfMs(8.64e15 + 1), RangeError);
  assert.equal(isoTime(new Date(5)), '1970-01-01T00:00:00.005Z');
});
