// schema: validations per second of a realistic request body, a purchase order of ~40 fields
// with arrays, patterns, enums, $refs, oneOf, if/then and unevaluatedProperties, once valid
// and once with six errors (allErrors, so every error is found and described). Baseline:
// JSON.parse of the same body text, timed the same way in the same run.

import { compileSchema } from '../../src/kernel/index.ts';
import { INVALID_BODY, ORDER_SCHEMA, VALID_BODY } from '../lib/order-schema.ts';
import { measureOps } from '../lib/measure-ops.ts';
import { round3 } from '../lib/percentile.ts';
import type { BenchRecord, Scenario } from '../lib/scenario.ts';

export const scenario: Scenario = {
  name: 'schema',
  description: 'compileSchema().validate() of a ~40-field purchase order, valid and invalid, beside JSON.parse of the same body',
  async run(options) {
    const { validate } = compileSchema(ORDER_SCHEMA);
    const records: BenchRecord[] = [];
    const variants = [['schema-valid', VALID_BODY, 0], ['schema-invalid', INVALID_BODY, 6]] as const;
    for (const [name, body, expectedErrors] of variants) {
      // JSON.stringify drops the undefined members, as a client sending this body would.
      const text = JSON.stringify(body);
      const instance: unknown = JSON.parse(text);
      const got = validate(instance).errors.length;
      if (got !== expectedErrors) throw new Error(`Bench body "${name}" gives ${got} errors, expected ${expectedErrors}`);
      const timing = { durationMs: options.durationMs, warmupMs: options.warmupMs };
      const baseline = await measureOps(() => JSON.parse(text), timing);
      const measured = await measureOps(() => {
        if (validate(instance).errors.length !== expectedErrors) throw new Error('Verdict changed between runs');
      }, timing);
      records.push({
        scenario: name,
        rps: Math.round(measured.rps),
        baseline_rps: Math.round(baseline.rps),
        ratio: round3(measured.rps / baseline.rps),
        p50_ms: measured.p50_ms,
        p95_ms: measured.p95_ms,
        p99_ms: measured.p99_ms,
        errors: measured.errors,
        baseline: 'JSON.parse of the same body',
        body_bytes: Buffer.byteLength(text),
        validation_errors: expectedErrors,
      });
    }
    return records;
  },
};
