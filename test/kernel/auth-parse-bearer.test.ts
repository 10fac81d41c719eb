import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBearer } from '../../src/kernel/auth/index.ts';

test('parseBearer() returns the token68 of a Bearer header, whatever the case of the scheme', () => {
  const cases: Array<[string, string]> = [
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['BEARER abc', 'abc'],
    ['Bearer a-b.c_d~e+f/g', 'a-b.c_d~e+f/g'],
    ['Bearer abc==', 'abc=='],
    ['Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig'],
  ];
  for (const [header, token] of cases) assert.equal(parseBearer(header), token, header);
});

test('parseBearer() returns undefined for anything but exactly "Bearer <token68>"', () => {
  const cases: unknown[] = [
    undefined,
    '',
    'Bearer',
    'Bearer ',
    'Bearer  abc',
    ' Bearer abc',
    'Bearer abc ',
    'Bearer\tabc',
    'Bearer a b',
    'Bearer =abc',
    'Bearer a=b',
    'Bearer abc,',
    'Bearer abc, Bearer def',
    'Bearer é',
    'Bearer abc\n',
    'Basic YWxhZGRpbjpvcGVuc2VzYW1l',
    'Bearerabc',
    'Token abc',
    `Bearer ${'a'.repeat(5000)}`,
    ['Bearer abc'],
    ['Bearer abc', 'Bearer def'],
    42,
  ];
  for (const header of cases) {
    assert.equal(parseBearer(header as string | undefined), undefined, JSON.stringify(header)?.slice(0, 40));
  }
});
