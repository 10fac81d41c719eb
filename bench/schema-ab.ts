// node bench/schema-ab.ts [--ajv-dir DIR] [--baseline DIR] [--runs N] [--slices N] [--slice N]
// The validator beside ajv 8 in one process, the steady form of the schema-vs-ajv scenario: slices
// of `--slice` validations of each subject alternate (ajv, this tree, and the tree at --baseline,
// say an older commit unpacked with `git archive <commit> | tar -x -C DIR`), each slice timed with
// process.hrtime.bigint(), and each run reports the median slice per subject and body. A busy
// machine slows every subject of a run alike, so the ratios hold where a wall-clock run of the
// scenario swings by a factor of two. ajv stays outside the project (BENCH_AJV_DIR, as for the
// scenario: `npm install --prefix /tmp/ajv-scratch ajv`).

import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { defineCommand, EXIT_OK, main, usageError, wholeNumberOption } from '../src/kernel/index.ts';
import { INVALID_BODY, ORDER_SCHEMA, VALID_BODY } from './lib/order-schema.ts';
import { median } from './lib/percentile.ts';

type Validate = (data: unknown) => boolean;

interface Subject {
  name: string;
  validate: Validate;
}

const BODIES = [['valid', VALID_BODY], ['invalid', INVALID_BODY]] as const;

async function ourValidator(root: string): Promise<(data: unknown) => boolean> {
  const url = pathToFileURL(join(root, 'src/kernel/schema/compile-schema.ts')).href;
  const { compileSchema } = (await import(url)) as { compileSchema: (schema: unknown) => { validate: (data: unknown) => { valid: boolean } } };
  const { validate } = compileSchema(ORDER_SCHEMA);
  return (data) => validate(data).valid;
}

function ajvValidator(dir: string): Validate {
  const require = createRequire(join(dir, 'package.json'));
  const Ajv2020 = (require('ajv/dist/2020') as { default: new (options: object) => { compile: (schema: unknown) => Validate } }).default;
  return new Ajv2020({ allErrors: true, validateFormats: false, strict: false }).compile(ORDER_SCHEMA);
}

/** Nanoseconds per validation of `count` calls. */
function slice(validate: Validate, instance: unknown, count: number, expected: boolean): number {
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) if (validate(instance) !== expected) throw new Error('A validator changed its verdict during the run');
  return Number(process.hrtime.bigint() - started) / count;
}

const command = defineCommand({
  name: 'schema-ab',
  summary: 'Times compileSchema() beside ajv 8 (and an older tree) in one process, slices interleaved; prints medians and ratios',
  options: {
    'ajv-dir': { type: 'string', valueName: 'DIR', description: 'Folder where `npm install --prefix DIR ajv` ran (default: $BENCH_AJV_DIR)' },
    baseline: { type: 'string', valueName: 'DIR', description: 'Another checkout of this project to time beside (optional)' },
    runs: { type: 'string', default: '3', valueName: 'N', description: 'Runs, each reporting its own medians' },
    slices: { type: 'string', default: '100', valueName: 'N', description: 'Slices per subject and body in one run' },
    slice: { type: 'string', default: '1000', valueName: 'N', description: 'Validations per slice' },
  },
  async run({ values, json, print }) {
    const ajvDir = values['ajv-dir'] ?? process.env['BENCH_AJV_DIR'] ?? '';
    if (ajvDir === '') usageError('Set --ajv-dir or BENCH_AJV_DIR to a folder where `npm install --prefix <folder> ajv` ran');
    const runs = wholeNumberOption('--runs', values.runs);
    const slices = wholeNumberOption('--slices', values.slices);
    const count = wholeNumberOption('--slice', values.slice);
    const instances = BODIES.map(([, body]) => JSON.parse(JSON.stringify(body)) as unknown);
    const ajv = ajvValidator(ajvDir);
    const subjects: Subject[] = [{ name: 'ajv', validate: ajv }];
    subjects.push({ name: 'ours', validate: await ourValidator(join(import.meta.dirname, '..')) });
    if (values.baseline !== undefined) subjects.push({ name: 'baseline', validate: await ourValidator(resolve(values.baseline)) });
    const expected = instances.map((instance) => ajv(instance));
    for (let run = 1; run <= runs; run++) {
      const times = subjects.map(() => BODIES.map((): number[] => []));
      for (let s = 0; s < slices; s++) {
        for (let b = 0; b < BODIES.length; b++) {
          for (let i = 0; i < subjects.length; i++) {
            const subject = subjects[i] as Subject;
            times[i]?.[b]?.push(slice(subject.validate, instances[b], count, expected[b] as boolean));
          }
        }
      }
      const medians = times.map((perBody) => perBody.map(median));
      const ajvNs = medians[0] as number[];
      for (let i = 1; i < subjects.length; i++) {
        const ns = medians[i] as number[];
        const figures = BODIES.map(([body], b) => ({ body, ns: Math.round(ns[b] as number), ajv_ns: Math.round(ajvNs[b] as number), vs_ajv: Math.round(((ajvNs[b] as number) / (ns[b] as number)) * 1000) / 1000 }));
        if (json) print(JSON.stringify({ run, subject: subjects[i]?.name, figures }));
        else print(`run ${run} ${subjects[i]?.name}: ${figures.map((f) => `${f.body} ${f.ns} ns (ajv ${f.ajv_ns} ns) = ${f.vs_ajv}x ajv`).join('; ')}`);
      }
    }
    return EXIT_OK;
  },
});

await main(command);
