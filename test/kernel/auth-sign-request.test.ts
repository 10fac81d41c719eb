import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isAirlockError } from '../../src/kernel/errors.ts';
import { SIGNATURE_SCHEMES, signRequest, verifySignature, type SignatureScheme } from '../../src/kernel/auth/index.ts';

const NOW = 1_767_225_600;
const BODY = Buffer.from('{"callback":"done"}');
const ROTATING: Record<SignatureScheme, [current: string, previous: string]> = {
  stripe: ['whsec_new', 'whsec_old'],
  'standard-webhooks': ['whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
  github: ['new secret', 'old secret'],
  house: ['house-new', 'house-old'],
};

function verifiesWith(scheme: SignatureScheme, headers: Record<string, string>, secret: string): boolean {
  return verifySignature(scheme, { rawBody: BODY, headers, secrets: [secret], now: NOW }).ok;
}

test('signRequest() returns exactly the lower-case headers of each scheme', () => {
  const names: Record<SignatureScheme, string[]> = {
    stripe: ['stripe-signature'],
    'standard-webhooks': ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
    github: ['x-hub-signature-256', 'x-github-delivery'],
    house: ['x-signature', 'x-signature-timestamp'],
  };
  for (const scheme of SIGNATURE_SCHEMES) {
    const headers = signRequest(scheme, { rawBody: BODY, secret: ROTATING[scheme][0], now: NOW, id: 'msg_1' });
    assert.deepEqual(Object.keys(headers).sort(), [...names[scheme]].sort(), scheme);
  }
  assert.deepEqual(Object.keys(signRequest('github', { rawBody: BODY, secret: 'x' })), ['x-hub-signature-256'], 'github without id');
});

test('signRequest() with a rotating secret signs with every value for stripe and standard-webhooks', () => {
  for (const scheme of ['stripe', 'standard-webhooks'] as const) {
    const [current, previous] = ROTATING[scheme];
    const headers = signRequest(scheme, { rawBody: BODY, secret: `${current},${previous}`, now: NOW, id: 'msg_1' });
    assert.ok(verifiesWith(scheme, headers, current) && verifiesWith(scheme, headers, previous), scheme);
  }
  const stripe = signRequest('stripe', { rawBody: BODY, secret: 'whsec_new, whsec_old', now: NOW });
  assert.match(stripe['stripe-signature'] ?? '', new RegExp(`^t=${NOW},v1=[0-9a-f]{64},v1=[0-9a-f]{64}$`));
  const standard = signRequest('standard-webhooks', { rawBody: BODY, secret: ROTATING['standard-webhooks'].join(','), now: NOW, id: 'msg_1' });
  assert.match(standard['webhook-signature'] ?? '', /^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
});

test('signRequest() with a rotating secret signs with the first value only for github and house', () => {
  for (const scheme of ['github', 'house'] as const) {
    const [current, previous] = ROTATING[scheme];
    const headers = signRequest(scheme, { rawBody: BODY, secret: `${current},${previous}`, now: NOW });
    assert.ok(verifiesWith(scheme, headers, current), `${scheme}: current value`);
    assert.ok(!verifiesWith(scheme, headers, previous), `${scheme}: previous value`);
  }
});

test('signRequest() throws a TypeError for a missing or unusable now or id', () => {
  const mistakes: Array<[string, () => unknown]> = [
    ['standard-webhooks without id', () => signRequest('standard-webhooks', { rawBody: BODY, secret: ROTATING['standard-webhooks'][0], now: NOW })],
    ['id with a dot', () => signRequest('standard-webhooks', { rawBody: BODY, secret: ROTATING['standard-webhooks'][0], now: NOW, id: 'a.b' })],
    ['github id with a space', () => signRequest('github', { rawBody: BODY, secret: 'x', id: 'a b' })],
    ['house without now', () => signRequest('house', { rawBody: BODY, secret: 'x' })],
    ['stripe with milliseconds as a float', () => signRequest('stripe', { rawBody: BODY, secret: 'x', now: NOW + 0.5 })],
    ['house with negative now', () => signRequest('house', { rawBody: BODY, secret: 'x', now: -1 })],
    ['string body', () => signRequest('house', { rawBody: 'x' as unknown as Uint8Array, secret: 'x', now: NOW })],
    ['unknown scheme', () => signRequest('jwt' as SignatureScheme, { rawBody: BODY, secret: 'x', now: NOW })],
  ];
  for (const [label, call] of mistakes) assert.throws(call, TypeError, label);
});

test('signRequest() throws config_invalid for an unusable secret, without quoting it', () => {
  const cases: Array<[SignatureScheme, string, string]> = [
    ['house', '', 'Cannot sign a request with scheme "house": no secret value is configured'],
    ['stripe', 'whsec_a,,whsec_b', 'Cannot sign a request with scheme "stripe": secret value 2 of 3 is empty'],
    [
      'standard-webhooks',
      'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD,MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'Cannot sign a request with scheme "standard-webhooks": secret value 2 of 2 is not "whsec_" followed by canonical base64',
    ],
  ];
  for (const [scheme, secret, message] of cases) {
    assert.throws(
      () => signRequest(scheme, { rawBody: BODY, secret, now: NOW, id: 'msg_1' }),
      (error: unknown) => isAirlockError(error, 'config_invalid') && error.message === message,
      message,
    );
  }
});
