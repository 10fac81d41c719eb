import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lineDiff } from '../../scripts/_materialize/line-diff.ts';

const lines = (...items: string[]) => `${items.join('\n')}\n`;

// [case, before, after, expected diff]
const CASES: [string, string, string, string[]][] = [
  ['equal texts', lines('a', 'b'), lines('a', 'b'), []],
  ['a new file', '', lines('x', 'y'), ['@@ -0,0 +1,2 @@', '+x', '+y']],
  ['an emptied file', lines('x', 'y'), '', ['@@ -1,2 +0,0 @@', '-x', '-y']],
  ['one changed line with context', lines('a', 'b', 'c', 'd', 'e'), lines('a', 'b', 'C', 'd', 'e'), ['@@ -1,5 +1,5 @@', ' a', ' b', '-c', '+C', ' d', ' e']],
  ['two distant changes in two hunks', lines('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'), lines('A', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'I'),
    ['@@ -1,3 +1,3 @@', '-a', '+A', ' b', ' c', '@@ -7,3 +7,3 @@', ' g', ' h', '-i', '+I']],
  ['two close changes in one hunk', lines('a', 'b', 'c', 'd', 'e'), lines('A', 'b', 'c', 'd', 'E'), ['@@ -1,5 +1,5 @@', '-a', '+A', ' b', ' c', ' d', '-e', '+E']],
  ['an inserted line', lines('a', 'b', 'c'), lines('a', 'b', 'new', 'c'), ['@@ -1,3 +1,4 @@', ' a', ' b', '+new', ' c']],
];

for (const [name, before, after, expected] of CASES) {
  test(`lineDiff() shows ${name}`, () => {
    assert.deepEqual(lineDiff(before, after), expected);
  });
}
