// UUID version 7 (RFC 9562 section 5.7): 48 bits of Unix milliseconds, then a 12-bit counter
// (the RFC's "fixed bit-length dedicated counter", section 6.2 method 1) and 62 random bits. Ids
// made by one process sort in the order they were made, so an index over them grows at its end
// instead of touching a random page per insert as random (version 4) ids do.

import { randomFillSync } from 'node:crypto';

// Random bytes are drawn 4 KiB at a time: one call per id cost more than the rest of the id.
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let poolOffset = POOL_BYTES;
let lastMs = -1;
let counter = 0;

/**
 * A new version 7 UUID, lowercase, 8-4-4-4-12. Within one millisecond the counter orders ids; a
 * clock that steps back reuses the last millisecond, so ids never go backwards in this process.
 *
 * @example
 * timeOrderedUuid(Date.parse('2026-11-25T00:00:00Z')); // '01a21000-8800-74ca-9ed2-12f26cfb6c49' (the last 62 bits are random)
 */
export function timeOrderedUuid(now: number = Date.now()): string {
  if (poolOffset + 10 > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const random = pool.subarray(poolOffset, poolOffset + 10);
  poolOffset += 10;
  let ms = Math.max(Math.floor(now), lastMs);
  if (ms === lastMs) {
    counter++;
    // 4096 ids in one millisecond: borrow the next millisecond rather than wrap (RFC 9562 6.2).
    if (counter > 0xfff) {
      ms++;
      counter = random.readUInt16BE(0) & 0x7ff;
    }
  } else {
    // A random start leaves room below 0xfff and keeps the counter from revealing the rate.
    counter = random.readUInt16BE(0) & 0x7ff;
  }
  lastMs = ms;
  const bytes = Buffer.alloc(16);
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  random.copy(bytes, 8, 2, 10);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
