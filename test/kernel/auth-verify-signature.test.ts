import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  SIGNATURE_SCHEMES,
  signRequest,
  verifySignature,
  type IncomingHeaders,
  type SignatureResult,
  type SignatureScheme,
  type VerifySignatureOptions,
} from '../../src/kernel/auth/index.ts';

const NOW = 1_767_225_600;
const BODY = Buffer.from('{"event":"invoice.paid","amount":1200}');
const ID = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';
const SECRET: Record<SignatureScheme, string> = {
  stripe: 'whsec_stripe_test_0123456789',
  'standard-webhooks': 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  github: "It's a Secret to Everybody",
  house: 'house-secret-0123456789',
};
const OTHER_SECRET: Record<SignatureScheme, string> = {
  stripe: 'whsec_stripe_other',
  'standard-webhooks': 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD',
  github: 'another secret',
  house: 'house-other',
};
const SIGNATURE_HEADER: Record<SignatureScheme, string> = {
  stripe: 'stripe-signature',
  'standard-webhooks': 'webhook-signature',
  github: 'x-hub-signature-256',
  house: 'x-signature',
};
/** The separate timestamp header of the schemes that have one. */
const TIMESTAMP_HEADER: Partial<Record<SignatureScheme, string>> = {
  'standard-webhooks': 'webhook-timestamp',
  house: 'x-signature-timestamp',
};
const TIMED_SCHEMES = SIGNATURE_SCHEMES.filter((scheme) => scheme !== 'github');

/** The one valid request each bad-input test breaks in one place. */
function signed(scheme: SignatureScheme, over: { signedAt?: number; secret?: string } = {}): VerifySignatureOptions {
  const headers = signRequest(scheme, { rawBody: BODY, secret: over.secret ?? SECRET[scheme], now: over.signedAt ?? NOW, id: ID });
  return { rawBody: BODY, headers, secrets: [SECRET[scheme]], now: NOW };
}

function withHeader(input: VerifySignatureOptions, name: string, value: IncomingHeaders[string]): VerifySignatureOptions {
  return { ...input, headers: { ...input.headers, [name]: value } };
}

function header(input: VerifySignatureOptions, name: string): string {
  const value = input.headers[name];
  assert.equal(typeof value, 'string', `fixture has header ${name}`);
  return value as string;
}

function reasonOf(result: SignatureResult): string {
  return result.ok ? 'ok' : result.reason;
}

test('verifySignature() accepts a request signed by signRequest() under each scheme', () => {
  const expected: Record<SignatureScheme, SignatureResult> = {
    stripe: { ok: true, timestamp: NOW },
    'standard-webhooks': { ok: true, id: ID, timestamp: NOW },
    github: { ok: true, id: ID },
    house: { ok: true, timestamp: NOW },
  };
  for (const scheme of SIGNATURE_SCHEMES) {
    assert.deepEqual(verifySignature(scheme, signed(scheme)), expected[scheme], scheme);
  }
});

test('verifySignature() rejects each broken request with the right reason, under each scheme', () => {
  for (const scheme of SIGNATURE_SCHEMES) {
    const valid = signed(scheme);
    const name = SIGNATURE_HEADER[scheme];
    const value = header(valid, name);
    const tampered = Buffer.from(BODY);
    tampered[5] = (tampered[5] ?? 0) ^ 1;
    const cases: Array<[string, VerifySignatureOptions, string]> = [
      ['tampered body', { ...valid, rawBody: tampered }, 'no_matching_signature'],
      ['one byte more body', { ...valid, rawBody: Buffer.concat([BODY, Buffer.from('\n')]) }, 'no_matching_signature'],
      ['wrong secret', { ...valid, secrets: [OTHER_SECRET[scheme]] }, 'no_matching_signature'],
      ['signed with another secret', signed(scheme, { secret: OTHER_SECRET[scheme] }), 'no_matching_signature'],
      ['missing signature header', withHeader(valid, name, undefined), 'missing_signature'],
      ['empty signature header', withHeader(valid, name, ''), 'missing_signature'],
      ['truncated signature header', withHeader(valid, name, value.slice(0, -1)), 'malformed_signature'],
      ['signature header cut in half', withHeader(valid, name, value.slice(0, value.length >> 1)), 'malformed_signature'],
      ['leading whitespace', withHeader(valid, name, ` ${value}`), 'malformed_signature'],
      ['trailing whitespace', withHeader(valid, name, `${value} `), 'malformed_signature'],
      ['trailing tab', withHeader(valid, name, `${value}\t`), 'malformed_signature'],
      ['duplicated header as an array', withHeader(valid, name, [value, value]), 'malformed_signature'],
      ['duplicated header joined by Node', withHeader(valid, name, `${value}, ${value}`), 'malformed_signature'],
      ['duplicated header joined without space', withHeader(valid, name, `${value},${value}`), 'malformed_signature'],
      ['upper-case signature', withHeader(valid, name, value.toUpperCase()), 'malformed_signature'],
      ['no secret configured', { ...valid, secrets: [] }, 'no_secret_configured'],
      ['only empty secret values', { ...valid, secrets: ['', ' , '] }, 'no_secret_configured'],
    ];
    for (const [label, input, reason] of cases) {
      assert.equal(reasonOf(verifySignature(scheme, input)), reason, `${scheme}: ${label}`);
    }
  }
});

test('verifySignature() rejects a timestamp 301 s old or ahead and accepts 300 s, under each timed scheme', () => {
  for (const scheme of TIMED_SCHEMES) {
    const cases: Array<[number, string]> = [
      [NOW - 301, 'timestamp_out_of_tolerance'],
      [NOW + 301, 'timestamp_out_of_tolerance'],
      [NOW - 86_400, 'timestamp_out_of_tolerance'],
      [0, 'timestamp_out_of_tolerance'],
      [NOW - 300, 'ok'],
      [NOW + 300, 'ok'],
    ];
    for (const [signedAt, reason] of cases) {
      assert.equal(reasonOf(verifySignature(scheme, signed(scheme, { signedAt }))), reason, `${scheme}: signed at now${signedAt - NOW}`);
    }
  }
});

test('verifySignature() checks the timestamp before the signature, so an old forgery says timestamp_out_of_tolerance', () => {
  for (const scheme of TIMED_SCHEMES) {
    const old = signed(scheme, { signedAt: NOW - 1000, secret: OTHER_SECRET[scheme] });
    assert.equal(reasonOf(verifySignature(scheme, old)), 'timestamp_out_of_tolerance', scheme);
  }
});

test('verifySignature() rejects a timestamp moved after signing, under each timed scheme', () => {
  const moved: Array<[SignatureScheme, (input: VerifySignatureOptions) => VerifySignatureOptions]> = [
    ['stripe', (input) => withHeader(input, 'stripe-signature', header(input, 'stripe-signature').replace(`t=${NOW}`, `t=${NOW + 1}`))],
    ['standard-webhooks', (input) => withHeader(input, 'webhook-timestamp', String(NOW + 1))],
    ['house', (input) => withHeader(input, 'x-signature-timestamp', String(NOW + 1))],
  ];
  for (const [scheme, move] of moved) {
    assert.equal(reasonOf(verifySignature(scheme, move(signed(scheme)))), 'no_matching_signature', scheme);
  }
});

test('verifySignature() rejects missing, duplicated and padded timestamp headers', () => {
  for (const [scheme, name] of Object.entries(TIMESTAMP_HEADER) as Array<[SignatureScheme, string]>) {
    const valid = signed(scheme);
    const cases: Array<[string, IncomingHeaders[string], string]> = [
      ['missing', undefined, 'missing_timestamp'],
      ['empty', '', 'missing_timestamp'],
      ['duplicated as an array', [String(NOW), String(NOW)], 'malformed_timestamp'],
      ['duplicated and joined by Node', `${NOW}, ${NOW}`, 'malformed_timestamp'],
      ['leading space', ` ${NOW}`, 'malformed_timestamp'],
      ['trailing space', `${NOW} `, 'malformed_timestamp'],
    ];
    for (const [label, value, reason] of cases) {
      assert.equal(reasonOf(verifySignature(scheme, withHeader(valid, name, value))), reason, `${scheme}: ${label}`);
    }
  }
});

test('verifySignature() reads one-element arrays (req.headersDistinct) as the value', () => {
  for (const scheme of SIGNATURE_SCHEMES) {
    const valid = signed(scheme);
    const distinct = Object.fromEntries(Object.entries(valid.headers).map(([name, value]) => [name, [value as string]]));
    assert.equal(reasonOf(verifySignature(scheme, { ...valid, headers: distinct })), 'ok', scheme);
  }
});

test('verifySignature() accepts any value of a rotating secret, as one entry or several', () => {
  for (const scheme of SIGNATURE_SCHEMES) {
    const valid = signed(scheme);
    const accepted: Array<readonly string[]> = [
      [`${OTHER_SECRET[scheme]},${SECRET[scheme]}`],
      [`${SECRET[scheme]},${OTHER_SECRET[scheme]}`],
      [` ${OTHER_SECRET[scheme]} , ${SECRET[scheme]} `],
      [OTHER_SECRET[scheme], SECRET[scheme]],
      [`${OTHER_SECRET[scheme]},,${SECRET[scheme]}`],
    ];
    for (const secrets of accepted) {
      assert.equal(reasonOf(verifySignature(scheme, { ...valid, secrets })), 'ok', `${scheme}: ${JSON.stringify(secrets)}`);
    }
  }
});

test('verifySignature() says no_matching_signature, not invalid_secret, when a secret value is unusable', () => {
  const valid = signed('standard-webhooks');
  const unusable = ['MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whsec_not base64!', 'whsec_'];
  for (const bad of unusable) {
    assert.equal(reasonOf(verifySignature('standard-webhooks', { ...valid, secrets: [bad] })), 'no_matching_signature', bad);
    assert.equal(reasonOf(verifySignature('standard-webhooks', { ...valid, secrets: [`${bad},${SECRET['standard-webhooks']}`] })), 'ok', bad);
  }
});

test('verifySignature() for stripe takes any v1 of several, ignores v0 and needs exactly one t', () => {
  const valid = signed('stripe');
  const value = header(valid, 'stripe-signature');
  const [t, v1] = value.split(',');
  const other = `v1=${'0'.repeat(64)}`;
  const cases: Array<[string, string]> = [
    [`${t},${other},${v1}`, 'ok'],
    [`${t},${v1},${other}`, 'ok'],
    [`${v1},${t}`, 'ok'],
    [`${t},v0=${'ab'.repeat(32)},${v1}`, 'ok'],
    [`${t},v0=${(v1 ?? '').slice(3)}`, 'no_matching_signature'],
    [`${t},${other}`, 'no_matching_signature'],
    [`${t}`, 'no_matching_signature'],
    [`${v1}`, 'missing_timestamp'],
    [`${t},${t},${v1}`, 'malformed_signature'],
    [`${t},,${v1}`, 'malformed_signature'],
    [`${t},${v1},`, 'malformed_signature'],
    [`${t}, ${v1}`, 'malformed_signature'],
    [`t=${NOW}.0,${v1}`, 'malformed_timestamp'],
    [`t=,${v1}`, 'malformed_signature'],
  ];
  for (const [signature, reason] of cases) {
    assert.equal(reasonOf(verifySignature('stripe', withHeader(valid, 'stripe-signature', signature))), reason, signature);
  }
});

test('verifySignature() for standard-webhooks takes any v1 of several, ignores other versions, and checks the id', () => {
  const valid = signed('standard-webhooks');
  const v1 = header(valid, 'webhook-signature');
  const other = 'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=';
  const cases: Array<[string, IncomingHeaders[string], string]> = [
    ['webhook-signature', `${other} ${v1}`, 'ok'],
    ['webhook-signature', `v1a,${'A'.repeat(86)}== ${v1}`, 'ok'],
    ['webhook-signature', `v2,${v1.slice(3)}`, 'no_matching_signature'],
    ['webhook-signature', `${other}  ${v1}`, 'malformed_signature'],
    ['webhook-signature', `${other},${v1}`, 'malformed_signature'],
    ['webhook-signature', v1.replace('v1,', 'v1='), 'malformed_signature'],
    ['webhook-signature', v1.replace(/=$/, ''), 'malformed_signature'],
    ['webhook-signature', Array.from({ length: 17 }, () => v1).join(' '), 'malformed_signature'],
    ['webhook-id', undefined, 'missing_id'],
    ['webhook-id', `${ID}, ${ID}`, 'malformed_id'],
    ['webhook-id', [ID, ID], 'malformed_id'],
    ['webhook-id', `${ID}.1`, 'malformed_id'],
    ['webhook-id', 'x'.repeat(256), 'malformed_id'],
    ['webhook-id', `${ID}x`, 'no_matching_signature'],
  ];
  for (const [name, value, reason] of cases) {
    assert.equal(reasonOf(verifySignature('standard-webhooks', withHeader(valid, name, value))), reason, `${name}: ${String(value)}`);
  }
});

test('verifySignature() for github ignores now and reads the delivery id from GitHub or Gitea headers', () => {
  const valid = signed('github');
  const signature = { 'x-hub-signature-256': header(valid, 'x-hub-signature-256') };
  const cases: Array<[string, IncomingHeaders, SignatureResult]> = [
    ['no delivery id', signature, { ok: true }],
    ['gitea delivery id', { ...signature, 'x-gitea-delivery': 'd-1' }, { ok: true, id: 'd-1' }],
    ['both, equal', { ...signature, 'x-github-delivery': 'd-1', 'x-gitea-delivery': 'd-1' }, { ok: true, id: 'd-1' }],
    ['both, different', { ...signature, 'x-github-delivery': 'd-1', 'x-gitea-delivery': 'd-2' }, { ok: false, reason: 'malformed_id' }],
    ['duplicated delivery id', { ...signature, 'x-github-delivery': 'd-1, d-1' }, { ok: false, reason: 'malformed_id' }],
    ['legacy sha1 header only', { 'x-hub-signature': 'sha1=0000' }, { ok: false, reason: 'missing_signature' }],
    ['sha1 prefix', { 'x-hub-signature-256': signature['x-hub-signature-256'].replace('sha256', 'sha1') }, { ok: false, reason: 'malformed_signature' }],
  ];
  for (const [label, headers, expected] of cases) {
    assert.deepEqual(verifySignature('github', { ...valid, headers }), expected, label);
  }
  assert.deepEqual(verifySignature('github', { ...valid, now: 0 }), { ok: true, id: ID }, 'a year-old now');
});

test('verifySignature() for house accepts exactly one v1 signature', () => {
  const valid = signed('house');
  const v1 = header(valid, 'x-signature');
  for (const signature of [`${v1},${v1}`, `v2=${v1.slice(3)}`, v1.slice(3), `V1=${v1.slice(3)}`]) {
    assert.equal(reasonOf(verifySignature('house', withHeader(valid, 'x-signature', signature))), 'malformed_signature', signature);
  }
});

test('verifySignature() throws a TypeError for programmer mistakes, not for hostile input', () => {
  const valid = signed('house');
  const mistakes: Array<[string, () => unknown]> = [
    ['unknown scheme', () => verifySignature('hmac' as SignatureScheme, valid)],
    ['prototype key as scheme', () => verifySignature('toString' as SignatureScheme, valid)],
    ['NaN now', () => verifySignature('house', { ...valid, now: Number.NaN })],
    ['string body', () => verifySignature('house', { ...valid, rawBody: 'x' as unknown as Uint8Array })],
    ['secret string instead of list', () => verifySignature('house', { ...valid, secrets: 'x' as unknown as string[] })],
    ['null headers', () => verifySignature('house', { ...valid, headers: null as unknown as IncomingHeaders })],
  ];
  for (const [label, call] of mistakes) assert.throws(call, TypeError, label);
});
