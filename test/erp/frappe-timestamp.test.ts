// frappeTimestamp() builds Frappe's "YYYY-MM-DD HH:MM:SS.ffffff" (UTC) from the date's fields; it
// must say exactly what the ISO form it replaced said (every document's creation and modified).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { frappeTimestamp } from '../../src/erp/database/documents.ts';

function fromIso(at: Date): string {
  return `${at.toISOString().slice(0, 19).replace('T', ' ')}.${String(at.getUTCMilliseconds() * 1000).padStart(6, '0')}`;
}

test('Frappe timestamps: fixed examples, padding of every field', () => {
  assert.equal(frappeTimestamp(new Date(Date.UTC(2026, 0, 5, 10, 0, 0, 0))), '2026-01-05 10:00:00.000000');
  assert.equal(frappeTimestamp(new Date(Date.UTC(2026, 10, 27, 23, 59, 59, 999))), '2026-11-27 23:59:59.999000');
  assert.equal(frappeTimestamp(new Date(Date.UTC(2026, 8, 9, 7, 6, 5, 4))), '2026-09-09 07:06:05.004000');
  assert.equal(frappeTimestamp(new Date('0999-12-31T23:59:59.010Z')), '0999-12-31 23:59:59.010000');
});

test('Frappe timestamps agree with the ISO form for dates from 1970 to 9999', () => {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const last = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
  for (let i = 0; i < 20000; i++) {
    const at = new Date(Math.floor(next() * last));
    assert.equal(frappeTimestamp(at), fromIso(at), at.toISOString());
  }
});
