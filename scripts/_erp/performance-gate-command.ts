// The erp_performance_gate command (scripts/erp_performance_gate.ts runs it): drives a running ERP
// service with a realistic mix (signed webhooks of all four kinds, status reads, posting calls) for
// a duration at a concurrency, polls readiness (/healthz) every worker interval, reports progress
// while it runs, prints the figures, and exits 1 when a threshold fails. Seed 002 defaults: 60 s,
// concurrency 50, worker interval 1 s, p95 <= 2000 ms, error rate <= 1.0 %, no readiness loss. It
// signs with the service's own secret variables (or <NAME>_FILE).

import { Agent, request } from 'node:http';
import { AirlockError, defineCommand, EXIT_FAILED, EXIT_OK, readConfig, usageError } from '../../src/kernel/index.ts';
import type { CommandIO } from '../../src/kernel/index.ts';
import { createLoadMix } from './load-mix.ts';
import type { PlannedRequest } from './load-mix.ts';

const SECRET_SPEC = {
  PAYMENT_A_WEBHOOK_SECRET: { type: 'secret', required: true, description: 'signs payment_a' },
  PAYMENT_B_WEBHOOK_SECRET: { type: 'secret', required: true, description: 'signs payment_b' },
  AUTOMATION_SHARED_SECRET: { type: 'secret', required: true, description: 'signs supplier_intake' },
  ERP_API_SHARED_SECRET: { type: 'secret', required: true, description: 'signs website_contact_intake' },
  ERP_API_KEYS: { type: 'secret', required: true, description: 'token auth for the posting calls (first pair)' },
} as const;

/** `kind`: a threshold may be 0 (nothing passes), a span (duration, interval, timeout) must be above 0. */
function positive(name: string, text: string, kind: 'whole' | 'span' | 'threshold'): number {
  const value = Number(text);
  const bad = text.trim() === '' || !Number.isFinite(value) || value < 0 || (kind !== 'threshold' && value === 0) || (kind === 'whole' && !Number.isInteger(value));
  if (bad) usageError(`Option --${name} must be a ${{ whole: 'positive whole number', span: 'number above 0', threshold: 'number of at least 0' }[kind]}, got "${text}"`);
  return value;
}

interface Answer { ok: boolean; ms: number; status: number; body: string }

function send(agent: Agent, base: URL, planned: Pick<PlannedRequest, 'method' | 'path' | 'headers' | 'body'>, timeoutMs: number): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(new URL(planned.path, base), { method: planned.method, headers: planned.headers, agent, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ ok: res.statusCode === 200, ms: performance.now() - started, status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', () => resolve({ ok: false, ms: performance.now() - started, status: 0, body: '' }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ ok: false, ms: performance.now() - started, status: 0, body: '' }));
    req.end(planned.body);
  });
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const round = (n: number) => Math.round(n * 100) / 100;

/** Seconds between progress lines off a terminal (CI, a log file), as the sweep writes one per batch. */
const LOG_PROGRESS_EVERY_S = 10;

/**
 * Reports a running gate once a second: on a terminal one line redrawn in place (elapsed of total
 * seconds, requests, errors); elsewhere one JSON line every LOG_PROGRESS_EVERY_S seconds and at the
 * end, so a 60 s run is never silent.
 */
function gateProgress(stderr: CommandIO['stderr'], durationS: number, figures: () => { requests: number; errors: number }): { stop(): void } {
  const started = performance.now();
  const onTerminal = stderr.isTTY === true;
  let lastLogged = 0;
  const report = (final: boolean) => {
    const elapsed = Math.min(durationS, (performance.now() - started) / 1000);
    const { requests, errors } = figures();
    if (onTerminal) {
      stderr.write(`\r\x1b[Kerp_performance_gate ${Math.floor(elapsed)}/${durationS} s, ${requests} requests, ${errors} errors${final ? '\n' : ''}`);
    } else if (final || elapsed - lastLogged >= LOG_PROGRESS_EVERY_S) {
      lastLogged = elapsed;
      stderr.write(`${JSON.stringify({ msg: 'erp_performance_gate progress', elapsed_s: round(elapsed), duration_s: durationS, requests, errors })}\n`);
    }
  };
  const timer = setInterval(() => report(false), 1000);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      report(true);
    },
  };
}

export const performanceGateCommand = defineCommand({
  name: 'erp_performance_gate',
  summary: 'Drives a running ERP service with signed webhooks, status reads and posting calls; exit 1 when a threshold fails',
  description: [
    'Mix (of every 20 requests): 4 payment_b, 3 payment_a, 3 supplier_intake, 3 website_contact_intake (each a fresh,',
    'validly signed delivery), 4 integration_status reads, 3 posting calls on what the run staged. Every answer but HTTP 200',
    'is an error. Readiness (GET /healthz) is polled every worker interval; one failed poll is a readiness loss.',
    'Secrets come from the service\'s own variables: PAYMENT_A_WEBHOOK_SECRET, PAYMENT_B_WEBHOOK_SECRET,',
    'AUTOMATION_SHARED_SECRET, ERP_API_SHARED_SECRET and ERP_API_KEYS (or each <NAME>_FILE).',
    'While it runs, a progress line on stderr: redrawn every second on a terminal, one JSON line every 10 s elsewhere.',
    'Against `npm start`: the secrets are in var/dev-secrets.json under "erp" (docs/erp.md, Operations, shows the line).',
    'Exit codes: 0 every threshold held, 1 one failed, 2 usage error, missing secret or unreachable service.',
  ].join('\n'),
  options: {
    'base-url': { type: 'string', default: 'http://127.0.0.1:18030', valueName: 'URL', description: 'The running ERP service' },
    duration: { type: 'string', default: '60', valueName: 'S', description: 'Seconds of load' },
    concurrency: { type: 'string', default: '50', valueName: 'N', description: 'Requests in flight' },
    'worker-interval': { type: 'string', default: '1', valueName: 'S', description: 'Seconds between readiness polls' },
    'max-p95-ms': { type: 'string', default: '2000', valueName: 'MS', description: 'Largest p95 latency that passes' },
    'max-error-rate-pct': { type: 'string', default: '1.0', valueName: 'PCT', description: 'Largest error rate (percent) that passes' },
    'request-timeout': { type: 'string', default: '10', valueName: 'S', description: 'Seconds before one request counts as an error' },
  },
  async run({ values, json, io, print, printJson }) {
    const base = URL.canParse(values['base-url']) ? new URL(values['base-url']) : usageError(`Option --base-url is not a URL: "${values['base-url']}"`);
    const durationS = positive('duration', values.duration, 'span');
    const concurrency = positive('concurrency', values.concurrency, 'whole');
    const intervalS = positive('worker-interval', values['worker-interval'], 'span');
    const maxP95 = positive('max-p95-ms', values['max-p95-ms'], 'threshold');
    const maxErrorPct = positive('max-error-rate-pct', values['max-error-rate-pct'], 'threshold');
    const timeoutMs = positive('request-timeout', values['request-timeout'], 'span') * 1000;
    const secrets = readConfig(SECRET_SPEC, io.env);
    const apiKeyPair = secrets.ERP_API_KEYS.split(',')[0]!.trim();
    const agent = new Agent({ keepAlive: true, maxSockets: concurrency + 1 });
    try {
      const first = await send(agent, base, { method: 'GET', path: '/healthz', headers: {} }, timeoutMs);
      if (!first.ok) throw new AirlockError('environment', `Cannot reach a ready ERP service at ${base.origin}/healthz (${first.status === 0 ? 'no answer' : `HTTP ${first.status}`}): start it or fix --base-url`);
      const mix = createLoadMix({ ...secrets, apiKeyPair });
      const latencies: number[] = [];
      const byKind: Record<string, { requests: number; errors: number }> = {};
      const statusCounts: Record<string, number> = {};
      const readiness = { polls: 0, failures: 0 };
      const started = performance.now();
      const deadline = started + durationS * 1000;
      const poller = setInterval(() => {
        readiness.polls++;
        void send(agent, base, { method: 'GET', path: '/healthz', headers: {} }, timeoutMs).then((answer) => {
          if (!answer.ok) readiness.failures++;
        });
      }, Math.max(1, intervalS * 1000));
      const worker = async () => {
        while (performance.now() < deadline) {
          const planned = mix.next();
          const answer = await send(agent, base, planned, timeoutMs);
          latencies.push(answer.ms);
          const kind = (byKind[planned.kind] ??= { requests: 0, errors: 0 });
          kind.requests++;
          statusCounts[answer.status] = (statusCounts[answer.status] ?? 0) + 1;
          if (!answer.ok) kind.errors++;
          else if (planned.onAnswer) planned.onAnswer((JSON.parse(answer.body) as { message: Record<string, unknown> }).message);
        }
      };
      const progress = gateProgress(io.stderr, durationS, () => ({ requests: latencies.length, errors: Object.values(byKind).reduce((n, k) => n + k.errors, 0) }));
      await Promise.all(Array.from({ length: concurrency }, worker));
      clearInterval(poller);
      progress.stop();
      const elapsedS = (performance.now() - started) / 1000;
      latencies.sort((a, b) => a - b);
      const errors = Object.values(byKind).reduce((n, k) => n + k.errors, 0);
      const errorRate = latencies.length === 0 ? 100 : (errors / latencies.length) * 100;
      const p95 = percentile(latencies, 95);
      const failures = [
        ...(p95 > maxP95 ? [`p95 latency ${round(p95)} ms is above ${maxP95} ms`] : []),
        ...(errorRate > maxErrorPct ? [`error rate ${round(errorRate)} % is above ${maxErrorPct} %`] : []),
        ...(readiness.failures > 0 ? [`readiness lost in ${readiness.failures} of ${readiness.polls} polls`] : []),
        ...(latencies.length === 0 ? ['no request completed'] : []),
      ];
      const result = {
        ok: failures.length === 0,
        base_url: base.origin,
        duration_s: round(elapsedS),
        concurrency,
        worker_interval_s: intervalS,
        requests: latencies.length,
        rps: round(latencies.length / elapsedS),
        errors,
        error_rate_pct: round(errorRate),
        p50_ms: round(percentile(latencies, 50)),
        p95_ms: round(p95),
        p99_ms: round(percentile(latencies, 99)),
        readiness,
        by_kind: byKind,
        statuses: statusCounts,
        thresholds: { p95_latency_ms: maxP95, error_rate_pct: maxErrorPct, readiness_loss: 0 },
        failures,
      };
      if (json) printJson(result);
      else {
        print(`${result.requests} requests in ${result.duration_s} s (${result.rps}/s) at concurrency ${concurrency}: p50 ${result.p50_ms} ms, p95 ${result.p95_ms} ms, p99 ${result.p99_ms} ms`);
        print(`errors ${errors} (${result.error_rate_pct} %); readiness ${readiness.polls - readiness.failures}/${readiness.polls} polls ready`);
        print(failures.length === 0 ? 'PASS: every threshold held' : failures.map((f) => `FAIL: ${f}`).join('\n'));
      }
      return result.ok ? EXIT_OK : EXIT_FAILED;
    } finally {
      agent.destroy();
    }
  },
});

