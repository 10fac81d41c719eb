// The throttled_api_sweep command: options, the export, the plan, the run, the evidence file
// and the exit code. A factory, so tests can hand it a fake clock and run it in-process.

import { AirlockError, defineCommand, EXIT_FAILED, EXIT_OK, usageError, writeFileAtomic } from '../../src/kernel/index.ts';
import { createBudget } from './budget.ts';
import { FAILING_CLASSES } from './classify.ts';
import { SYSTEM_CLOCK } from './clock.ts';
import type { SweepClock } from './clock.ts';
import { buildEvidence } from './evidence.ts';
import type { SweepEvidence, SweepSettings } from './evidence.ts';
import { EXPORT_PATH, loadExport } from './load-export.ts';
import { planSweep } from './plan.ts';
import { runSweep } from './run.ts';
import { sendGet } from './send.ts';
import type { SendGet } from './send.ts';

export interface SweepDependencies {
  clock?: SweepClock;
  send?: SendGet;
}

const DESCRIPTION = `Sends one GET per GET operation of an OpenAPI 3.x export (fetched from BASE_URL${EXPORT_PATH}, or
read from --openapi FILE), one at a time, never more than --rate-limit-rpm request starts in any
60 s window (retries count) and a pause of --batch-sleep-seconds after every --batch-size requests.
Path parameters (and required query parameters) get deterministic sample values: the export's
examples, else a value derived from the schema. 429 is retried with backoff, honouring Retry-After.

Classes: ok (2xx); sample_dependent (404 or 422 where the sweep supplied a value: not a failure);
auth_required (401 or 403 on an operation that declares security: not a failure, the sweep sends
no credential). Failures: unexpected_status, rate_limited (429 after the retries), server_error
(any 5xx, a readiness route's 503 included), transport_error (refused, reset, timeout),
unresolved_parameter. With --allow-not-ready, a 503 from a readiness route (.../readiness,
/production-readiness/...) is not_ready instead: its documented "not ready", not a failure.

Exit codes: 0 green, 1 a failure was recorded, 2 usage error or unreachable target or unusable
export. See docs/sweep.md for the evidence file format.`;

/** Builds the command; the script passes no dependencies. */
export function createSweepCommand(dependencies: SweepDependencies = {}) {
  const clock = dependencies.clock ?? SYSTEM_CLOCK;
  const send = dependencies.send ?? sendGet;
  return defineCommand({
    name: 'throttled_api_sweep',
    summary: 'GET-only, rate-limited sweep of every GET operation of an OpenAPI 3.x export',
    description: DESCRIPTION,
    options: {
      'base-url': { type: 'string', valueName: 'URL', description: 'The server to sweep, e.g. the platform listener http://127.0.0.1:18010 (required)' },
      openapi: { type: 'string', valueName: 'FILE', description: `Read the export from FILE instead of BASE_URL${EXPORT_PATH}` },
      'rate-limit-rpm': { type: 'string', valueName: 'N', default: '90', description: 'At most N request starts in any 60 s window' },
      'batch-size': { type: 'string', valueName: 'N', default: '30', description: 'Pause after every N requests' },
      'batch-sleep-seconds': { type: 'string', valueName: 'S', default: '20', description: 'Length of that pause' },
      'retry-429': { type: 'string', valueName: 'N', default: '2', description: 'Retries of a request answered 429' },
      'timeout-seconds': { type: 'string', valueName: 'S', default: '10', description: 'Deadline of one request (connect, headers and body)' },
      'allow-not-ready': { type: 'boolean', description: 'Tolerate a readiness route\'s 503 (fail-closed "not ready") as not_ready; without it every 5xx fails the sweep' },
      output: { type: 'string', valueName: 'FILE', description: 'Write the JSON evidence file there (atomically)' },
      include: { type: 'string', valueName: 'GLOB', multiple: true, description: 'Sweep only path templates matching GLOB (* within a segment, ** across)' },
      exclude: { type: 'string', valueName: 'GLOB', multiple: true, description: 'Skip path templates matching GLOB' },
    },
    async run({ values, json, print, printJson, progress, io }) {
      const baseUrl = parseBaseUrl(values['base-url']);
      const settings: SweepSettings = {
        rate_limit_rpm: parseNumber('rate-limit-rpm', values['rate-limit-rpm'], { integer: true, min: 1 }),
        batch_size: parseNumber('batch-size', values['batch-size'], { integer: true, min: 1 }),
        batch_sleep_seconds: parseNumber('batch-sleep-seconds', values['batch-sleep-seconds'], { min: 0 }),
        retry_429: parseNumber('retry-429', values['retry-429'], { integer: true, min: 0 }),
        timeout_seconds: parseNumber('timeout-seconds', values['timeout-seconds'], { min: 0.001 }),
        allow_not_ready: values['allow-not-ready'] === true,
        include: values.include ?? [],
        exclude: values.exclude ?? [],
      };
      const timeoutMs = Math.round(settings.timeout_seconds * 1000);
      const loaded = await loadExport({ baseUrl, file: values.openapi, timeoutMs, send });
      const plan = planSweep(loaded.document, { include: settings.include, exclude: settings.exclude });
      if (plan.operations.length === 0) {
        throw new AirlockError('usage', `Nothing to sweep in "${loaded.source}": no GET operation${plan.filteredOut > 0 ? ` passes the filters (${plan.filteredOut} left out)` : ''}`);
      }
      const budget = createBudget({ rpm: settings.rate_limit_rpm, batchSize: settings.batch_size, batchSleepMs: settings.batch_sleep_seconds * 1000, clock });
      const bar = progress(plan.operations.length, 'sweep');
      const startedAt = clock.now();
      // Off a terminal (CI, a log file) the bar is silent: one JSON line per batch says the sweep is alive.
      const offTerminal = io.stderr.isTTY !== true;
      const classes: Record<string, number> = {};
      const batchLine = (result: { class: string }, done: number) => {
        classes[result.class] = (classes[result.class] ?? 0) + 1;
        if (!offTerminal || (done % settings.batch_size !== 0 && done !== plan.operations.length)) return;
        io.stderr.write(`${JSON.stringify({ msg: 'sweep progress', done, total: plan.operations.length, elapsed_ms: Math.round(clock.now() - startedAt), classes })}\n`);
      };
      const requests = await runSweep(plan.operations, {
        baseUrl,
        prefix: plan.prefix,
        budget,
        clock,
        send,
        retry429: settings.retry_429,
        timeoutMs,
        reachable: values.openapi === undefined,
        allowNotReady: settings.allow_not_ready,
        onResult: (result, done) => {
          bar.tick(done);
          batchLine(result, done);
        },
      });
      bar.done();
      const evidence = buildEvidence({ baseUrl, exportInfo: loaded, settings, startedAt, finishedAt: clock.now(), filteredOut: plan.filteredOut, requests });
      if (values.output !== undefined) writeEvidence(values.output, evidence);
      if (json) printJson(evidence);
      else for (const line of summaryLines(evidence, values.output)) print(line);
      return evidence.ok ? EXIT_OK : EXIT_FAILED;
    },
  });
}

function writeEvidence(file: string, evidence: SweepEvidence): void {
  try {
    writeFileAtomic(file, `${JSON.stringify(evidence, null, 2)}\n`);
  } catch (error) {
    throw new AirlockError('environment', `Cannot write the evidence file "${file}": ${(error as Error).message}`, { cause: error });
  }
}

function summaryLines(evidence: SweepEvidence, output: string | undefined): string[] {
  const lines = evidence.requests
    .filter((r) => FAILING_CLASSES.has(r.class))
    .map((r) => `FAIL ${r.class} ${r.status ?? '-'} GET ${r.path ?? r.path_template}${r.detail ? `: ${r.detail}` : ''}`);
  const totals = Object.entries(evidence.totals).filter(([, n]) => n > 0).map(([c, n]) => `${c} ${n}`).join(', ');
  lines.push(
    `sweep ${evidence.ok ? 'green' : 'failed'}: ${totals}; ${evidence.operations} operations, ${evidence.requests_sent} requests in ${(evidence.elapsed_ms / 1000).toFixed(1)} s; export sha256 ${evidence.export.sha256}`,
  );
  if (output !== undefined) lines.push(`evidence written to ${output}`);
  return lines;
}

function parseBaseUrl(value: string | undefined): string {
  if (value === undefined) usageError('Missing --base-url: name the server to sweep, e.g. http://127.0.0.1:18010');
  const url = URL.parse(value);
  if (url === null) usageError(`Invalid --base-url "${value}": not a URL`);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') usageError(`Invalid --base-url "${value}": use http or https`);
  if (url.search !== '' || url.hash !== '') usageError(`Invalid --base-url "${value}": no query or fragment allowed`);
  return value.replace(/\/+$/, '');
}

function parseNumber(name: string, text: string, rule: { integer?: boolean; min: number }): number {
  const value = Number(text);
  const shape = rule.integer ? /^\d+$/ : /^\d+(\.\d+)?$/;
  if (!shape.test(text) || !Number.isFinite(value) || value < rule.min) {
    usageError(`Invalid --${name} "${text}": expected ${rule.integer ? 'an integer' : 'a number'} of at least ${rule.min}`);
  }
  return value;
}
