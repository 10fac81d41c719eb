import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AirlockError, isAirlockError } from '../../src/kernel/errors.ts';

test('AirlockError keeps its code, message and cause', () => {
  const cause = new Error('inner');
  const err = new AirlockError('usage', 'Unknown option "--x"', { cause });
  assert.equal(err.code, 'usage');
  assert.equal(err.message, 'Unknown option "--x"');
  assert.equal(err.cause, cause);
  assert.ok(isAirlockError(err, 'usage'));
  assert.ok(!isAirlockError(err, 'environment'));
  assert.ok(!isAirlockError(new Error('x')));
});
