import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyStatus, FAILING_CLASSES, SWEEP_CLASSES } from '../../scripts/_sweep/classify.ts';
import type { ClassifyOptions } from '../../scripts/_sweep/classify.ts';
import { retryAfterMs } from '../../scripts/_sweep/run.ts';

const PLAIN = { sampleDependent: false, secured: false };
const SAMPLED = { sampleDependent: true, secured: false };
const SECURED = { sampleDependent: false, secured: true };

// [status, route, expected class]
const CASES: [number, ClassifyOptions, string][] = [
  [200, PLAIN, 'ok'],
  [204, SAMPLED, 'ok'],
  [299, PLAIN, 'ok'],
  [404, SAMPLED, 'sample_dependent'],
  [422, SAMPLED, 'sample_dependent'],
  [404, PLAIN, 'unexpected_status'],
  [422, PLAIN, 'unexpected_status'],
  [400, SAMPLED, 'unexpected_status'],
  [401, SECURED, 'auth_required'],
  [403, SECURED, 'auth_required'],
  [401, PLAIN, 'unexpected_status'],
  [429, PLAIN, 'rate_limited'],
  [500, SAMPLED, 'server_error'],
  [503, PLAIN, 'server_error'],
  [503, { ...PLAIN, readiness: true }, 'server_error'],
  [503, { ...PLAIN, readiness: true, allowNotReady: true }, 'not_ready'],
  [500, { ...PLAIN, readiness: true, allowNotReady: true }, 'server_error'],
  [503, { ...PLAIN, allowNotReady: true }, 'server_error'],
  [599, PLAIN, 'server_error'],
  [301, PLAIN, 'unexpected_status'],
  [304, PLAIN, 'unexpected_status'],
];

for (const [status, route, expected] of CASES) {
  const kind = route === SAMPLED ? 'a sample-dependent' : route === SECURED ? 'a secured' : `a ${route.readiness ? 'readiness' : 'plain'}${route.allowNotReady ? ' (--allow-not-ready)' : ''}`;
  test(`classifyStatus() calls ${status} on ${kind} route ${expected}`, () => {
    assert.equal(classifyStatus(status, route), expected);
  });
}

test('FAILING_CLASSES are exactly the failures the seed names plus unexpected statuses', () => {
  assert.deepEqual(SWEEP_CLASSES.filter((c) => !FAILING_CLASSES.has(c)), ['ok', 'sample_dependent', 'auth_required', 'not_ready']);
});

test('retryAfterMs() reads delay-seconds and HTTP-dates, and ignores anything else', () => {
  const now = Date.UTC(2026, 0, 1);
  assert.equal(retryAfterMs('7', now), 7_000);
  assert.equal(retryAfterMs(' 0 ', now), 0);
  assert.equal(retryAfterMs('Thu, 01 Jan 2026 00:00:30 GMT', now), 30_000);
  assert.equal(retryAfterMs('Wed, 31 Dec 2025 23:59:00 GMT', now), 0, 'a date in the past means now');
  assert.equal(retryAfterMs(undefined, now), undefined);
  assert.equal(retryAfterMs('-1', now), undefined);
  assert.equal(retryAfterMs('1.5', now), undefined);
  assert.equal(retryAfterMs('soon', now), undefined);
  assert.equal(retryAfterMs('2026-01-01T00:00:30Z', now), undefined);
});
