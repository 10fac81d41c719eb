import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SIGNATURE_SCHEMES, checkSecret, type SecretCheck, type SignatureScheme } from '../../src/kernel/auth/index.ts';

const WHSEC_DETAIL = 'is not "whsec_" followed by canonical base64';

test('checkSecret() accepts usable secrets, single or rotating, as a string or a list', () => {
  const usable: Array<[SignatureScheme, string | readonly string[]]> = [
    ['stripe', 'whsec_live_abc'],
    ['stripe', 'whsec_new, whsec_old'],
    ['standard-webhooks', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    ['standard-webhooks', ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD']],
    ['standard-webhooks', 'whsec_QQ=='],
    ['github', "It's a Secret to Everybody"],
    ['house', ' house-secret '],
  ];
  for (const [scheme, secret] of usable) assert.deepEqual(checkSecret(scheme, secret), { ok: true }, `${scheme}: ${String(secret)}`);
});

test('checkSecret() reports unusable values by position, never by content', () => {
  const cases: Array<[SignatureScheme, string | readonly string[], SecretCheck]> = [
    ['house', '', { ok: false, reason: 'no_secret_configured', detail: 'no secret value is configured' }],
    ['github', ' , ', { ok: false, reason: 'no_secret_configured', detail: 'no secret value is configured' }],
    ['stripe', [], { ok: false, reason: 'no_secret_configured', detail: 'no secret value is configured' }],
    ['house', 'a,,b', { ok: false, reason: 'invalid_secret', detail: 'secret value 2 of 3 is empty' }],
    ['house', ['a', 'b,'], { ok: false, reason: 'invalid_secret', detail: 'secret value 3 of 3 is empty' }],
    ['standard-webhooks', 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', { ok: false, reason: 'invalid_secret', detail: `secret value 1 of 1 ${WHSEC_DETAIL}` }],
    ['standard-webhooks', 'whsec_', { ok: false, reason: 'invalid_secret', detail: `secret value 1 of 1 ${WHSEC_DETAIL}` }],
    ['standard-webhooks', 'whsec_QR==', { ok: false, reason: 'invalid_secret', detail: `secret value 1 of 1 ${WHSEC_DETAIL}` }],
    ['standard-webhooks', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS', { ok: false, reason: 'invalid_secret', detail: `secret value 1 of 1 ${WHSEC_DETAIL}` }],
    ['standard-webhooks', 'whsec_MfKQ 9r8G', { ok: false, reason: 'invalid_secret', detail: `secret value 1 of 1 ${WHSEC_DETAIL}` }],
    ['standard-webhooks', 'whsec_C2FVsBQIhrscChlQIMV-b5sSYspob7oD', { ok: false, reason: 'invalid_secret', detail: `secret value 1 of 1 ${WHSEC_DETAIL}` }],
    ['standard-webhooks', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw,WHSEC_abcd', { ok: false, reason: 'invalid_secret', detail: `secret value 2 of 2 ${WHSEC_DETAIL}` }],
  ];
  for (const [scheme, secret, expected] of cases) {
    const check = checkSecret(scheme, secret);
    assert.deepEqual(check, expected, `${scheme}: ${JSON.stringify(secret)}`);
    for (const value of (typeof secret === 'string' ? [secret] : secret).flatMap((entry) => entry.split(','))) {
      // Longer than "whsec_", which the detail names as the expected prefix.
      if (value.trim().length > 6) assert.ok(!JSON.stringify(check).includes(value.trim()), `detail quotes no secret: ${check.ok || check.detail}`);
    }
  }
});

test('checkSecret() throws a TypeError for an unknown scheme', () => {
  assert.throws(() => checkSecret('hmac' as SignatureScheme, 'x'), TypeError);
  assert.equal(SIGNATURE_SCHEMES.length, 4);
});
