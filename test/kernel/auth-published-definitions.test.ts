// Stripe-style and GitHub-style signatures computed here from those schemes' published
// definitions, with node:crypto directly, and fed to verifySignature, so the kernel is checked
// against the definitions and not against its own signing code.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { signRequest, verifySignature } from '../../src/kernel/auth/index.ts';

const NOW = 1_767_225_600;
// Bytes that are not valid UTF-8, so any decoding and re-encoding of the body would show.
const BINARY_BODY = Uint8Array.from([0x7b, 0xff, 0xfe, 0x00, 0xc3, 0x28, 0x7d]);

function hmacHex(secret: string, ...parts: Array<string | Uint8Array>): string {
  const hmac = createHmac('sha256', secret);
  for (const part of parts) hmac.update(part);
  return hmac.digest('hex');
}

test('verifySignature() accepts the example of GitHub\'s "Validating webhook deliveries" docs', () => {
  const secret = "It's a Secret to Everybody";
  const rawBody = Buffer.from('Hello, World!', 'utf8');
  const published = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
  assert.equal(`sha256=${hmacHex(secret, rawBody)}`, published, 'the published definition gives the published digest');
  const headers = { 'x-hub-signature-256': published, 'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958' };
  assert.deepEqual(verifySignature('github', { rawBody, headers, secrets: [secret], now: NOW }), {
    ok: true,
    id: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
  });
  assert.equal(signRequest('github', { rawBody, secret })['x-hub-signature-256'], published);
  assert.deepEqual(verifySignature('github', { rawBody: Buffer.from('Hello, World?'), headers, secrets: [secret], now: NOW }), {
    ok: false,
    reason: 'no_matching_signature',
  });
});

test('verifySignature() accepts a GitHub-style signature over raw bytes that are not UTF-8', () => {
  const secret = 'gitea-hook-secret';
  const headers = { 'x-hub-signature-256': `sha256=${hmacHex(secret, BINARY_BODY)}`, 'x-gitea-delivery': 'b5f4c1e2' };
  assert.deepEqual(verifySignature('github', { rawBody: BINARY_BODY, headers, secrets: [secret], now: NOW }), { ok: true, id: 'b5f4c1e2' });
});

test('verifySignature() accepts a Stripe-style header built from Stripe\'s "verify manually" steps', () => {
  // signed_payload = "<t>.<raw body>"; v1 = hex HMAC-SHA256(endpoint secret, signed_payload).
  const secret = 'whsec_test_secret';
  const payload = Buffer.from('{\n  "id": "evt_test_webhook",\n  "object": "event"\n}', 'utf8');
  const v1 = hmacHex(secret, `${NOW}.`, payload);
  const v0 = hmacHex('some legacy secret', `${NOW}.`, payload);
  const headers = { 'stripe-signature': `t=${NOW},v1=${v1},v0=${v0}` };
  assert.deepEqual(verifySignature('stripe', { rawBody: payload, headers, secrets: [secret], now: NOW + 10 }), { ok: true, timestamp: NOW });
  assert.equal(signRequest('stripe', { rawBody: payload, secret, now: NOW })['stripe-signature'], `t=${NOW},v1=${v1}`);
});

test('verifySignature() accepts a Stripe-style header with one v1 per active secret during a secret roll', () => {
  // During a secret roll Stripe sends one v1 per active secret.
  const [oldSecret, newSecret] = ['whsec_old', 'whsec_new'];
  const headers = { 'stripe-signature': `t=${NOW},v1=${hmacHex(oldSecret, `${NOW}.`, BINARY_BODY)},v1=${hmacHex(newSecret, `${NOW}.`, BINARY_BODY)}` };
  for (const secrets of [[oldSecret], [newSecret], ['whsec_other', newSecret]]) {
    assert.equal(verifySignature('stripe', { rawBody: BINARY_BODY, headers, secrets, now: NOW }).ok, true, secrets.join());
  }
  assert.deepEqual(verifySignature('stripe', { rawBody: BINARY_BODY, headers, secrets: ['whsec_other'], now: NOW }), {
    ok: false,
    reason: 'no_matching_signature',
  });
});

test('verifySignature() parses the example header of Stripe\'s docs and fails it only on the signature', () => {
  // The docs publish the header but not its secret and payload, so it can only fail to match.
  const headers = {
    'stripe-signature':
      't=1492774577,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd,v0=6ffbb59b2300aae63f272406069a9788598b792a944a07aba816edb039989a39',
  };
  const input = { rawBody: Buffer.from('{}'), headers, secrets: ['whsec_x'] };
  assert.deepEqual(verifySignature('stripe', { ...input, now: 1492774577 }), { ok: false, reason: 'no_matching_signature' });
  assert.deepEqual(verifySignature('stripe', { ...input, now: 1492774577 + 301 }), { ok: false, reason: 'timestamp_out_of_tolerance' });
});

test('verifySignature() accepts a house signature built from its definition in DESIGN.md', () => {
  const secret = 'house-secret';
  const headers = { 'x-signature': `v1=${hmacHex(secret, `${NOW}.`, BINARY_BODY)}`, 'x-signature-timestamp': String(NOW) };
  assert.deepEqual(verifySignature('house', { rawBody: BINARY_BODY, headers, secrets: [secret], now: NOW }), { ok: true, timestamp: NOW });
  assert.deepEqual(signRequest('house', { rawBody: BINARY_BODY, secret, now: NOW }), headers);
});
