// resolveUri(): RFC 3986 §5.4 reference resolution examples, plus the URN bases JSON Schema uses.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveUri, splitFragment } from '../../src/kernel/schema/_uri.ts';

const BASE = 'http://a/b/c/d;p?q';

// RFC 3986 §5.4.1 (normal) and §5.4.2 (abnormal) examples.
const RFC_EXAMPLES: [string, string][] = [
  ['g:h', 'g:h'], ['g', 'http://a/b/c/g'], ['./g', 'http://a/b/c/g'], ['g/', 'http://a/b/c/g/'], ['/g', 'http://a/g'],
  ['//g', 'http://g'], ['?y', 'http://a/b/c/d;p?y'], ['g?y', 'http://a/b/c/g?y'], ['#s', 'http://a/b/c/d;p?q#s'],
  ['g#s', 'http://a/b/c/g#s'], ['g?y#s', 'http://a/b/c/g?y#s'], [';x', 'http://a/b/c/;x'], ['g;x', 'http://a/b/c/g;x'],
  ['g;x?y#s', 'http://a/b/c/g;x?y#s'], ['', 'http://a/b/c/d;p?q'], ['.', 'http://a/b/c/'], ['./', 'http://a/b/c/'],
  ['..', 'http://a/b/'], ['../', 'http://a/b/'], ['../g', 'http://a/b/g'], ['../..', 'http://a/'], ['../../', 'http://a/'],
  ['../../g', 'http://a/g'], ['../../../g', 'http://a/g'], ['../../../../g', 'http://a/g'], ['/./g', 'http://a/g'],
  ['/../g', 'http://a/g'], ['g.', 'http://a/b/c/g.'], ['.g', 'http://a/b/c/.g'], ['g..', 'http://a/b/c/g..'],
  ['..g', 'http://a/b/c/..g'], ['./../g', 'http://a/b/g'], ['./g/.', 'http://a/b/c/g/'], ['g/./h', 'http://a/b/c/g/h'],
  ['g/../h', 'http://a/b/c/h'], ['g;x=1/./y', 'http://a/b/c/g;x=1/y'], ['g;x=1/../y', 'http://a/b/c/y'],
  ['g?y/./x', 'http://a/b/c/g?y/./x'], ['g?y/../x', 'http://a/b/c/g?y/../x'], ['g#s/./x', 'http://a/b/c/g#s/./x'],
  ['g#s/../x', 'http://a/b/c/g#s/../x'], ['http:g', 'http:g'],
];

describe('resolveUri()', () => {
  for (const [ref, expected] of RFC_EXAMPLES) {
    it(`resolveUri() resolves "${ref}" against the RFC 3986 base to "${expected}"`, () => {
      assert.equal(resolveUri(BASE, ref), expected);
    });
  }

  it('resolveUri() resolves fragments and absolute URNs against a URN base', () => {
    assert.equal(resolveUri('urn:uuid:deadbeef-1234', '#/$defs/a'), 'urn:uuid:deadbeef-1234#/$defs/a');
    assert.equal(resolveUri('urn:uuid:deadbeef-1234', 'urn:example:x'), 'urn:example:x');
  });

  it('splitFragment() separates the fragment, empty when absent', () => {
    assert.deepEqual(splitFragment('http://x/y#/a'), { uri: 'http://x/y', fragment: '/a' });
    assert.deepEqual(splitFragment('http://x/y#'), { uri: 'http://x/y', fragment: '' });
    assert.deepEqual(splitFragment('http://x/y'), { uri: 'http://x/y', fragment: '' });
  });
});
