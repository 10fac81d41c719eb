// Hostile header values: a table per scheme with the reason each must give, then a seeded fuzz
// run in which no value may throw and none may verify without the genuine digest.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  SIGNATURE_SCHEMES,
  signRequest,
  verifySignature,
  type IncomingHeaders,
  type SignatureFailureReason,
  type SignatureResult,
  type SignatureScheme,
  type VerifySignatureOptions,
} from '../../src/kernel/auth/index.ts';

const NOW = 1_767_225_600;
const BODY = Buffer.from('{"supplier":"S-1","status":"approved"}');
const ID = 'evt_01HZX3Q';
const SECRET: Record<SignatureScheme, string> = {
  stripe: 'whsec_stripe_fuzz',
  'standard-webhooks': 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD',
  github: 'github fuzz secret',
  house: 'house fuzz secret',
};
const REASONS: readonly SignatureFailureReason[] = [
  'no_secret_configured',
  'invalid_secret',
  'missing_signature',
  'malformed_signature',
  'missing_timestamp',
  'malformed_timestamp',
  'timestamp_out_of_tolerance',
  'missing_id',
  'malformed_id',
  'no_matching_signature',
];
/** The signature header, and how to write it around a digest text of our choosing. */
const SIGNATURE: Record<SignatureScheme, { name: string; around: (digest: string) => string }> = {
  stripe: { name: 'stripe-signature', around: (digest) => `t=${NOW},v1=${digest}` },
  'standard-webhooks': { name: 'webhook-signature', around: (digest) => `v1,${digest}` },
  github: { name: 'x-hub-signature-256', around: (digest) => `sha256=${digest}` },
  house: { name: 'x-signature', around: (digest) => `v1=${digest}` },
};
const HUGE = 'a'.repeat(1_000_000);

function signed(scheme: SignatureScheme): VerifySignatureOptions {
  const headers = signRequest(scheme, { rawBody: BODY, secret: SECRET[scheme], now: NOW, id: ID });
  return { rawBody: BODY, headers, secrets: [SECRET[scheme]], now: NOW };
}

function verifyWith(scheme: SignatureScheme, name: string, value: unknown): SignatureResult {
  const valid = signed(scheme);
  return verifySignature(scheme, { ...valid, headers: { ...valid.headers, [name]: value as IncomingHeaders[string] } });
}

function reasonOf(result: SignatureResult): string {
  return result.ok ? 'ok' : result.reason;
}

test('verifySignature() rejects hostile signature header values as malformed, under each scheme', () => {
  const wholeValues: unknown[] = [HUGE, ' ', '\t', '\0', '\r\n', ',', '=', 'null', 'undefined', 'é', '\u2028', '🔑', 123, true, {}, [], ['', ''], ['a', 'b']];
  const digestParts = ['', 'g'.repeat(64), 'a'.repeat(63), 'a'.repeat(65), 'a'.repeat(128), 'é'.repeat(32), 'AAAA', 'A'.repeat(88), HUGE];
  for (const scheme of SIGNATURE_SCHEMES) {
    const { name, around } = SIGNATURE[scheme];
    const values = [...wholeValues, ...digestParts.map(around)];
    for (const value of values) {
      const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : JSON.stringify(value);
      assert.equal(reasonOf(verifyWith(scheme, name, value)), 'malformed_signature', `${scheme}: ${shown}`);
    }
    for (const empty of [undefined, '', ['']]) {
      assert.equal(reasonOf(verifyWith(scheme, name, empty)), 'missing_signature', `${scheme}: ${JSON.stringify(empty)}`);
    }
  }
});

test('verifySignature() rejects hostile timestamps with a malformed reason, never a number read from them', () => {
  // [value, reason as its own header (standard-webhooks, house), reason inside Stripe-Signature]
  const cases: Array<[string, string, string]> = [
    ['NaN', 'malformed_timestamp', 'malformed_timestamp'],
    ['Infinity', 'malformed_timestamp', 'malformed_timestamp'],
    ['-1', 'malformed_timestamp', 'malformed_timestamp'],
    [`-${NOW}`, 'malformed_timestamp', 'malformed_timestamp'],
    ['1.5', 'malformed_timestamp', 'malformed_timestamp'],
    [`${NOW}.0`, 'malformed_timestamp', 'malformed_timestamp'],
    ['1e9', 'malformed_timestamp', 'malformed_timestamp'],
    [`+${NOW}`, 'malformed_timestamp', 'malformed_timestamp'],
    [`0x${NOW.toString(16)}`, 'malformed_timestamp', 'malformed_timestamp'],
    ['9'.repeat(16), 'malformed_timestamp', 'malformed_timestamp'],
    ['9'.repeat(400), 'malformed_timestamp', 'malformed_timestamp'],
    [` ${NOW}`, 'malformed_timestamp', 'malformed_signature'],
    [`${NOW} `, 'malformed_timestamp', 'malformed_signature'],
    [`${NOW}\n`, 'malformed_timestamp', 'malformed_signature'],
    ['１７６７２２５６００', 'malformed_timestamp', 'malformed_signature'],
    ['', 'missing_timestamp', 'malformed_signature'],
    ['0', 'timestamp_out_of_tolerance', 'timestamp_out_of_tolerance'],
    ['9'.repeat(15), 'timestamp_out_of_tolerance', 'timestamp_out_of_tolerance'],
    [`000${NOW}`, 'no_matching_signature', 'no_matching_signature'],
  ];
  const stripeDigest = signed('stripe').headers['stripe-signature']?.toString().split('v1=')[1] ?? '';
  for (const [value, ownHeader, inStripe] of cases) {
    assert.equal(reasonOf(verifyWith('standard-webhooks', 'webhook-timestamp', value)), ownHeader, `standard-webhooks: ${JSON.stringify(value)}`);
    assert.equal(reasonOf(verifyWith('house', 'x-signature-timestamp', value)), ownHeader, `house: ${JSON.stringify(value)}`);
    assert.equal(reasonOf(verifyWith('stripe', 'stripe-signature', `t=${value},v1=${stripeDigest}`)), inStripe, `stripe: ${JSON.stringify(value)}`);
  }
});

test('verifySignature() rejects hostile webhook-id and delivery id values as malformed', () => {
  const values: unknown[] = [' id', 'id ', 'a.b', 'a,b', 'é', '\0', 'x'.repeat(256), HUGE, 42, {}, ['a', 'b']];
  for (const value of values) {
    const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 20)) : JSON.stringify(value);
    assert.equal(reasonOf(verifyWith('standard-webhooks', 'webhook-id', value)), 'malformed_id', `webhook-id: ${shown}`);
    assert.equal(reasonOf(verifyWith('github', 'x-github-delivery', value)), 'malformed_id', `x-github-delivery: ${shown}`);
  }
});

test('verifySignature() ignores inherited header properties', () => {
  for (const scheme of SIGNATURE_SCHEMES) {
    const valid = signed(scheme);
    const inherited = Object.create(valid.headers) as IncomingHeaders;
    assert.equal(reasonOf(verifySignature(scheme, { ...valid, headers: inherited })), 'missing_signature', scheme);
  }
});

/** mulberry32: a small seeded generator, so a failing case can be replayed from its seed. */
function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = ['0', '9', 'a', 'f', 'A', 'Z', '+', '/', '=', ',', '.', ' ', '\t', '\n', '\0', '-', 'e', 't', 'v', '1', 'é', 'ÿ', '\u2028', '\ud800', '😀', 't=', 'v1=', 'v1,', 'sha256=', 'whsec_'];

function randomValue(random: () => number, valid: string): unknown {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const chars = (length: number) => Array.from({ length }, () => pick(ALPHABET)).join('');
  const mutate = (text: string) => {
    const at = Math.floor(random() * (text.length + 1));
    const cut = Math.floor(random() * 3);
    return text.slice(0, at) + chars(Math.floor(random() * 3)) + text.slice(at + cut);
  };
  switch (Math.floor(random() * 8)) {
    case 0: return chars(Math.floor(random() * 64));
    case 1: return mutate(valid);
    case 2: return mutate(mutate(mutate(valid)));
    case 3: return [valid, mutate(valid)].slice(0, Math.floor(random() * 3));
    case 4: return `${valid}, ${mutate(valid)}`;
    case 5: return pick([undefined, null, 0, -1, Number.NaN, 1.5, true, {}, '', HUGE]);
    case 6: return valid.repeat(1 + Math.floor(random() * 40));
    default: return String(Math.floor((random() - 0.5) * 2 * NOW * 2));
  }
}

test('verifySignature() never throws on 2,000 random header values and accepts none without the genuine digest', () => {
  const seed = 0x5eed_a17c;
  const random = randomSource(seed);
  for (let round = 0; round < 2000; round++) {
    const scheme = SIGNATURE_SCHEMES[round % SIGNATURE_SCHEMES.length] as SignatureScheme;
    const valid = signed(scheme);
    const names = Object.keys(valid.headers);
    const headers: Record<string, unknown> = { ...valid.headers };
    for (let changes = 1 + Math.floor(random() * names.length); changes > 0; changes--) {
      const name = names[Math.floor(random() * names.length)] as string;
      headers[name] = randomValue(random, String(valid.headers[name]));
    }
    const where = `seed ${seed}, round ${round}, ${scheme}: ${JSON.stringify(headers).slice(0, 300)}`;
    let result: SignatureResult | undefined;
    assert.doesNotThrow(() => {
      result = verifySignature(scheme, { ...valid, headers: headers as IncomingHeaders });
    }, where);
    assert.ok(result !== undefined && (result.ok || REASONS.includes(result.reason)), where);
    if (result.ok) {
      const genuine = String(valid.headers[SIGNATURE[scheme].name]).replace(/^.*(v1=|v1,|sha256=)/, '');
      assert.ok(String(headers[SIGNATURE[scheme].name]).includes(genuine), `accepted without the genuine digest: ${where}`);
    }
  }
});
