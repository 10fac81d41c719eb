import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_IDEMPOTENCY_KEY_LENGTH, parseIdempotencyKey } from '../../src/kernel/store/parse-idempotency-key.ts';

const ACCEPTED: Array<[string, string, string]> = [
  ['an sf-string UUID', '"8e03978e-40d5-43e8-bc93-6894a57f9324"', '8e03978e-40d5-43e8-bc93-6894a57f9324'],
  ['a bare UUID', '8e03978e-40d5-43e8-bc93-6894a57f9324', '8e03978e-40d5-43e8-bc93-6894a57f9324'],
  ['an escaped quote', '"a\\"b"', 'a"b'],
  ['an escaped backslash', '"a\\\\b"', 'a\\b'],
  ['spaces inside quotes', '"order 42"', 'order 42'],
  ['surrounding whitespace', ' \t"k"\t ', 'k'],
  ['a bare token with : and /', 'urn:x/1', 'urn:x/1'],
  ['a bare token with tchar punctuation', "a!#$%&'*+-.^_`|~z", "a!#$%&'*+-.^_`|~z"],
  ['a key of exactly the maximum length', `"${'k'.repeat(MAX_IDEMPOTENCY_KEY_LENGTH)}"`, 'k'.repeat(MAX_IDEMPOTENCY_KEY_LENGTH)],
];

for (const [label, header, key] of ACCEPTED) {
  test(`parseIdempotencyKey() accepts ${label}`, () => {
    assert.deepEqual(parseIdempotencyKey(header), { ok: true, key });
  });
}

const REJECTED: Array<[string, string | undefined, string]> = [
  ['an absent header', undefined, 'header is missing'],
  ['an empty value', '', 'value is empty'],
  ['whitespace only', '  ', 'value is empty'],
  ['an empty sf-string', '""', 'key is empty'],
  ['a key one character too long', `"${'k'.repeat(MAX_IDEMPOTENCY_KEY_LENGTH + 1)}"`, 'key is longer than 255 characters'],
  ['a bare key too long', 'k'.repeat(MAX_IDEMPOTENCY_KEY_LENGTH + 1), 'key is longer than 255 characters'],
  ['a tab inside quotes', '"a\tb"', 'value contains a control character'],
  ['a NUL', 'a\x00b', 'value contains a control character'],
  ['DEL', '"a\x7f"', 'value contains a control character'],
  ['non-ASCII', '"caf\u00e9"', 'value contains a character outside ASCII'],
  ['an unclosed string', '"abc', 'the quoted string is not closed'],
  ['a string ending in a backslash', '"abc\\', 'a backslash may only escape a quote or a backslash'],
  ['another escape', '"a\\nb"', 'a backslash may only escape a quote or a backslash'],
  ['parameters', '"abc";v=1', 'text after the closing quote (parameters are not supported)'],
  ['a list of two keys', '"a", "b"', 'text after the closing quote (parameters are not supported)'],
  ['a bare value with a space', 'a b', 'value is neither a quoted string nor a token'],
  ['a bare value with a comma', 'a,b', 'value is neither a quoted string nor a token'],
  ['a bare value with a quote inside', 'a"b"', 'value is neither a quoted string nor a token'],
];

for (const [label, header, reason] of REJECTED) {
  test(`parseIdempotencyKey() rejects ${label}`, () => {
    assert.deepEqual(parseIdempotencyKey(header), { ok: false, reason });
  });
}
