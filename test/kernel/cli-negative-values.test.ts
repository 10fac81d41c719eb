// runCommand(): a negative number after a string option is that option's value (parseArgs alone
// refuses `--limit -1` as "ambiguous"), so the command's own check says what is wrong with it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defineCommand, EXIT_OK, EXIT_USAGE, runCommand, usageError } from '../../src/kernel/cli.ts';

const command = defineCommand({
  name: 'demo',
  summary: 'demo',
  positionals: '[ARG]',
  options: { limit: { type: 'string', description: 'limit', valueName: 'N' }, verbose: { type: 'boolean', description: 'talk' } },
  run({ values, positionals, print }) {
    if (values.limit !== undefined && Number(values.limit) < 0) usageError(`--limit must be at least 0, not "${values.limit}"`);
    print(JSON.stringify({ limit: values.limit ?? null, positionals }));
    return EXIT_OK;
  },
});

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCommand(command, argv, { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) }, env: {} });
  return { code, out, err };
}

test('runCommand() takes "--limit -1" as the value -1, so the command refuses the number itself', async () => {
  for (const argv of [['--limit', '-1'], ['--limit=-1'], ['--limit', '-2.5']]) {
    const result = await run(argv);
    assert.equal(result.code, EXIT_USAGE, argv.join(' '));
    assert.match(result.err, /--limit must be at least 0, not "-(1|2\.5)"/);
  }
});

test('runCommand() leaves everything else as parseArgs reads it: flags, "--" and non-numbers', async () => {
  assert.deepEqual(JSON.parse((await run(['--limit', '5', 'a'])).out), { limit: '5', positionals: ['a'] });
  assert.deepEqual(JSON.parse((await run(['--', '--limit', '-1'])).out), { limit: null, positionals: ['--limit', '-1'] });
  assert.equal((await run(['--verbose', '-1'])).code, EXIT_USAGE); // -1 after a boolean is still an unknown option
  assert.equal((await run(['--limit', '-x'])).code, EXIT_USAGE);
});
