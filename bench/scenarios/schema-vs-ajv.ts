// schema-vs-ajv: compileSchema() beside ajv 8 (its draft 2020-12 build, which generates code),
// on the same schema and instances as the schema scenario. ajv is never a dependency of this
// project: install it outside, then point BENCH_AJV_DIR at that folder:
//   npm install --prefix /tmp/ajv-scratch ajv
//   BENCH_AJV_DIR=/tmp/ajv-scratch npm run bench -- schema-vs-ajv
// Both run with every error collected and formats as annotations (ajv: allErrors,
// validateFormats: false). Before timing, the two must agree on each verdict and on where each
// error is (ajv adds one "if" error beside the one from "then"; ours does not).

import { createRequire } from 'node:module';
import { join } from 'node:path';
import { compileSchema } from '../../src/kernel/index.ts';
import { alternatingFigures } from '../lib/alternating.ts';
import { measureOps, type OpsMeasurement } from '../lib/measure-ops.ts';
import { INVALID_BODY, ORDER_SCHEMA, VALID_BODY } from '../lib/order-schema.ts';
import type { BenchRecord, Scenario } from '../lib/scenario.ts';

interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
}

type AjvValidate = ((data: unknown) => boolean) & { errors?: AjvError[] | null };

function loadAjv(dir: string): { version: string; compile: (schema: unknown) => AjvValidate } {
  const require = createRequire(join(dir, 'package.json'));
  const Ajv2020 = (require('ajv/dist/2020') as { default: new (options: object) => { compile: (schema: unknown) => AjvValidate } }).default;
  const { version } = require('ajv/package.json') as { version: string };
  const ajv = new Ajv2020({ allErrors: true, validateFormats: false, strict: false });
  return { version, compile: (schema) => ajv.compile(schema) };
}

/** Where each error is, as "<instance pointer> <keyword>", in the form both validators can give. */
function ajvLocations(errors: readonly AjvError[]): string[] {
  return errors
    .filter((e) => e.keyword !== 'if')
    .map((e) => {
      const member = e.params['additionalProperty'] ?? e.params['unevaluatedProperty'];
      return `${e.instancePath}${typeof member === 'string' ? `/${member}` : ''} ${e.keyword}`;
    })
    .sort();
}

export const scenario: Scenario = {
  name: 'schema-vs-ajv',
  description: 'compileSchema().validate() beside ajv 8 (BENCH_AJV_DIR) on the purchase order, valid and invalid',
  async run(options) {
    const dir = process.env['BENCH_AJV_DIR'];
    if (dir === undefined || dir === '') {
      process.stderr.write('schema-vs-ajv: skipped, set BENCH_AJV_DIR to a folder where `npm install --prefix <folder> ajv` was run\n');
      return [];
    }
    const ajv = loadAjv(dir);
    const theirs = ajv.compile(ORDER_SCHEMA);
    const { validate } = compileSchema(ORDER_SCHEMA);
    const records: BenchRecord[] = [];
    for (const [name, body] of [['schema-vs-ajv-valid', VALID_BODY], ['schema-vs-ajv-invalid', INVALID_BODY]] as const) {
      const instance: unknown = JSON.parse(JSON.stringify(body));
      const ours = validate(instance);
      const theirVerdict = theirs(instance);
      const oursAt = ours.errors.map((e) => `${e.instancePath} ${e.keyword}`).sort();
      const theirsAt = ajvLocations(theirs.errors ?? []);
      if (ours.valid !== theirVerdict || JSON.stringify(oursAt) !== JSON.stringify(theirsAt)) {
        throw new Error(`compileSchema() and ajv disagree on "${name}": ours ${JSON.stringify(oursAt)}, ajv ${JSON.stringify(theirsAt)}`);
      }
      const timing = { durationMs: Math.max(1, Math.round(options.durationMs / 2)), warmupMs: options.warmupMs };
      const ajvRuns: OpsMeasurement[] = [];
      const ourRuns: OpsMeasurement[] = [];
      for (let round = 0; round < 2; round++) {
        ajvRuns.push(await measureOps(() => theirs(instance), timing));
        ourRuns.push(await measureOps(() => validate(instance), timing));
      }
      records.push({
        ...alternatingFigures(name, ourRuns, ajvRuns),
        baseline: `ajv ${ajv.version} (Ajv2020, allErrors, validateFormats: false)`,
        validation_errors: ours.errors.length,
      });
    }
    return records;
  },
};
