// Runs the official JSON Schema Test Suite (draft 2020-12) against compileSchema(): every
// required file with the default options, and optional/format/ for the asserted formats with
// formats: "assert". Remotes are served from a registry under http://localhost:1234/. Each
// verdict is also reached by the checks alone (no tests), and both must say the same.

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { compileValidator } from '../../src/kernel/schema/compile-schema.ts';
import { compileSchema, type CompileOptions, type SchemaValidator } from '../../src/kernel/schema/index.ts';

interface SuiteCase {
  description: string;
  data: unknown;
  valid: boolean;
}

interface SuiteGroup {
  description: string;
  schema: unknown;
  tests: SuiteCase[];
}

const SUITE = resolve(import.meta.dirname, '../../../shared/json-schema-test-suite');
const TESTS = join(SUITE, 'tests/draft2020-12');
const ASSERTED_FORMATS = [
  'date-time', 'date', 'time', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uri', 'uri-reference', 'uuid', 'regex', 'json-pointer',
];

const totals = new Map<string, { passed: number; failed: number }>();

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8'));
}

function loadRemotes(): Map<string, unknown> {
  const registry = new Map<string, unknown>();
  const remotes = join(SUITE, 'remotes');
  for (const entry of readdirSync(remotes, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.json')) continue;
    const path = join(entry.parentPath, entry.name);
    registry.set(`http://localhost:1234/${relative(remotes, path).split('\\').join('/')}`, readJson(path));
  }
  return registry;
}

/** Runs one suite file; each group is one test, failing with the list of wrong verdicts. */
function runFile(group: string, path: string, options: CompileOptions): void {
  const name = relative(TESTS, path);
  describe(name, () => {
    for (const suiteGroup of readJson(path) as SuiteGroup[]) {
      it(suiteGroup.description, () => {
        const tally = totals.get(group) ?? { passed: 0, failed: 0 };
        totals.set(group, tally);
        let validate: SchemaValidator['validate'];
        let checksOnly: SchemaValidator['validate'];
        try {
          validate = compileSchema(suiteGroup.schema, options).validate;
          checksOnly = compileValidator(suiteGroup.schema, { ...options, tests: false }).validate;
        } catch (error) {
          tally.failed += suiteGroup.tests.length;
          throw error;
        }
        const wrong: string[] = [];
        for (const test of suiteGroup.tests) {
          const result = validate(test.data);
          // The tests that decide valid instances must agree with the checks, errors and all.
          const reference = checksOnly(test.data);
          if (result.valid === test.valid && reference.valid === test.valid && result.errors.length === (test.valid ? 0 : reference.errors.length)) {
            assert.deepEqual(result.errors, reference.errors, test.description);
            tally.passed++;
          } else {
            tally.failed++;
            wrong.push(`${test.description}: expected ${test.valid ? 'valid' : 'invalid'}, got ${result.valid ? 'valid' : 'invalid'} (checks alone: ${reference.valid ? 'valid' : 'invalid'})`);
          }
        }
        assert.deepEqual(wrong, []);
      });
    }
  });
}

if (!existsSync(TESTS)) {
  it('JSON Schema Test Suite', (t) => t.skip(`not found at ${TESTS}: copy the suite to ../shared/json-schema-test-suite`));
} else {
  const registry = loadRemotes();
  for (const file of readdirSync(TESTS).filter((f) => f.endsWith('.json')).sort()) {
    runFile('required', join(TESTS, file), { registry });
  }
  for (const format of ASSERTED_FORMATS) {
    runFile('optional/format (asserted)', join(TESTS, 'optional/format', `${format}.json`), { registry, formats: 'assert' });
  }
  after(() => {
    for (const [group, { passed, failed }] of totals) {
      console.log(`JSON Schema Test Suite draft 2020-12, ${group}: ${passed} passed, ${failed} failed`);
    }
  });
}
