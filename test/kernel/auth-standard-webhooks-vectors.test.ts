// The Standard Webhooks vectors of ../shared/test-vectors/standard-webhooks/VECTORS.md, read
// from that file as it is: the positive vectors from its tables, the negative signatures from
// its "Negative values" bullets.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { signRequest, verifySignature, type SignatureResult } from '../../src/kernel/auth/index.ts';

const VECTORS_FILE = fileURLToPath(new URL('../../../shared/test-vectors/standard-webhooks/VECTORS.md', import.meta.url));
const MISSING = `Standard Webhooks vectors absent: ${VECTORS_FILE} not found (../shared is not checked out)`;

interface Vector {
  readonly name: string;
  readonly secret: string;
  readonly id: string;
  readonly timestamp: string;
  readonly payload: string;
  readonly signature: string;
}

/** `## Vector N` sections: the backticked value in the value column of each table row, by field. */
function readVectors(markdown: string): Map<string, Vector> {
  const vectors = new Map<string, Vector>();
  for (const section of markdown.split(/^## /m).filter((part) => part.startsWith('Vector '))) {
    const name = section.slice(0, section.indexOf(' ('));
    const field = (label: string): string => {
      const row = section.split('\n').find((line) => line.startsWith(`| ${label}`));
      const value = row?.split('|')[2]?.match(/`([^`]*)`/)?.[1];
      assert.ok(value !== undefined, `${name} has a "${label}" row with a backticked value`);
      return value;
    };
    vectors.set(name, {
      name,
      secret: field('secret'),
      id: field('msg id'),
      timestamp: field('timestamp'),
      payload: field('payload'),
      signature: field('expected signature'),
    });
  }
  return vectors;
}

/** Each "Negative values" bullet: the vector whose inputs it uses and the signatures it quotes. */
function readNegatives(markdown: string): Array<{ vector: string; signatures: string[] }> {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('Negative values')) ?? '';
  return section
    .split(/^- /m)
    .slice(1)
    .map((bullet) => ({
      vector: bullet.match(/Vector \d/)?.[0] ?? '',
      signatures: [...bullet.matchAll(/`(v1,[^`]+)`/g)].map((match) => match[1] ?? ''),
    }));
}

function verifyVector(vector: Vector, signature: string, now = Number(vector.timestamp)): SignatureResult {
  return verifySignature('standard-webhooks', {
    rawBody: Buffer.from(vector.payload, 'utf8'),
    headers: { 'webhook-id': vector.id, 'webhook-timestamp': vector.timestamp, 'webhook-signature': signature },
    secrets: [vector.secret],
    now,
  });
}

const markdown = existsSync(VECTORS_FILE) ? readFileSync(VECTORS_FILE, 'utf8') : undefined;
const vectors = markdown === undefined ? new Map<string, Vector>() : readVectors(markdown);

test('Standard Webhooks VECTORS.md holds the two published vectors', (t) => {
  if (markdown === undefined) return t.skip(MISSING);
  assert.deepEqual([...vectors.keys()], ['Vector 1', 'Vector 2']);
  assert.deepEqual(vectors.get('Vector 1'), {
    name: 'Vector 1',
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
    timestamp: '1614265330',
    payload: '{"test": 2432232314}',
    signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  });
});

test('verifySignature() accepts each published Standard Webhooks vector', (t) => {
  if (markdown === undefined) return t.skip(MISSING);
  for (const vector of vectors.values()) {
    assert.deepEqual(verifyVector(vector, vector.signature), { ok: true, id: vector.id, timestamp: Number(vector.timestamp) }, vector.name);
  }
});

test('signRequest() reproduces each published Standard Webhooks signature exactly', (t) => {
  if (markdown === undefined) return t.skip(MISSING);
  for (const vector of vectors.values()) {
    const headers = signRequest('standard-webhooks', {
      rawBody: Buffer.from(vector.payload, 'utf8'),
      secret: vector.secret,
      now: Number(vector.timestamp),
      id: vector.id,
    });
    assert.deepEqual(headers, { 'webhook-id': vector.id, 'webhook-timestamp': vector.timestamp, 'webhook-signature': vector.signature }, vector.name);
  }
});

test('verifySignature() rejects each published vector once its timestamp is 301 s old', (t) => {
  if (markdown === undefined) return t.skip(MISSING);
  for (const vector of vectors.values()) {
    assert.deepEqual(verifyVector(vector, vector.signature, Number(vector.timestamp) + 301), { ok: false, reason: 'timestamp_out_of_tolerance' }, vector.name);
  }
});

test('verifySignature() rejects each published vector with its payload, id or secret changed', (t) => {
  if (markdown === undefined) return t.skip(MISSING);
  for (const vector of vectors.values()) {
    const minified = JSON.stringify(JSON.parse(vector.payload));
    const changed: Array<[string, Vector]> = [
      ['payload with a space added', { ...vector, payload: `${vector.payload} ` }],
      ...(minified === vector.payload ? [] : [['payload re-serialised', { ...vector, payload: minified }] as [string, Vector]]),
      ['id', { ...vector, id: `${vector.id}x` }],
      ['secret of the other vector', { ...vector, secret: [...vectors.values()].find((other) => other !== vector)?.secret ?? '' }],
    ];
    for (const [label, broken] of changed) {
      assert.deepEqual(verifyVector(broken, vector.signature), { ok: false, reason: 'no_matching_signature' }, `${vector.name}: ${label}`);
    }
  }
});

test('verifySignature() rejects the published negative signatures alone and accepts them beside a valid one', (t) => {
  if (markdown === undefined) return t.skip(MISSING);
  const negatives = readNegatives(markdown);
  assert.equal(negatives.length, 2, 'two negative bullets');
  for (const { vector: name, signatures } of negatives) {
    const vector = vectors.get(name);
    assert.ok(vector !== undefined && signatures.length > 0, `negative bullet names a vector (${name}) and a signature`);
    for (const bad of signatures) {
      assert.deepEqual(verifyVector(vector, bad), { ok: false, reason: 'no_matching_signature' }, `${name}: ${bad}`);
      // The upstream multi-signature case: non-matching v1, a v2 entry, the valid one, v1 again.
      const mixed = [bad, bad.replace('v1,', 'v2,'), vector.signature, bad].join(' ');
      assert.equal(verifyVector(vector, mixed).ok, true, `${name}: mixed with the valid signature`);
      assert.deepEqual(verifyVector(vector, [bad, bad.replace('v1,', 'v2,')].join(' ')), { ok: false, reason: 'no_matching_signature' }, `${name}: v2 copy is ignored`);
    }
  }
});
