import { test } from 'node:test';
import assert from 'node:assert/strict';
import { timeOrderedUuid } from '../../src/kernel/time-ordered-uuid.ts';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const millis = (id: string) => parseInt(id.replaceAll('-', '').slice(0, 12), 16);

test('timeOrderedUuid() is a version 7, variant 10 UUID carrying the Unix milliseconds (RFC 9562 5.7)', () => {
  const at = Date.UTC(2026, 10, 24, 12, 0, 0, 123);
  const id = timeOrderedUuid(at + 1_000_000);
  assert.match(id, V7);
  assert.equal(millis(id), at + 1_000_000);
  assert.match(timeOrderedUuid(), V7);
});

test('timeOrderedUuid() ids sort in the order they were made, within one millisecond and when the clock steps back', () => {
  const base = Date.now() + 5_000_000;
  const ids = [
    ...Array.from({ length: 5000 }, () => timeOrderedUuid(base)),
    ...Array.from({ length: 100 }, (_, n) => timeOrderedUuid(base + 1 + n)),
    ...Array.from({ length: 100 }, () => timeOrderedUuid(base - 60_000)),
  ];
  assert.equal(new Set(ids).size, ids.length);
  assert.deepEqual([...ids].sort(), ids);
  for (const id of ids) assert.match(id, V7);
  // 5000 ids in one millisecond overflow the 12-bit counter: it borrows the next millisecond.
  assert.ok(millis(ids[4999]!) > base);
  // A clock that steps back does not take ids back with it.
  assert.ok(millis(ids.at(-1)!) >= millis(ids[5099]!));
});
