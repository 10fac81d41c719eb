// governance-readiness: seed 001's recommended readiness order as a command. It walks GET /health,
// /api/v1/platform/services, the observability, security, recovery and signoff readiness routes,
// then every other .../readiness route of the export, and stops at the first that is not ready.

import { defineCommand, EXIT_FAILED, EXIT_OK, EXIT_USAGE, main, usageError } from '../src/kernel/index.ts';

export const READINESS_ORDER = [
  '/health',
  '/api/v1/platform/services',
  '/api/v1/observability/readiness',
  '/api/v1/security/readiness',
  '/api/v1/recovery/readiness',
  '/api/v1/signoff/readiness',
] as const;

interface Step {
  path: string;
  status: number;
  ready: boolean;
  detail: string;
}

class Unreachable extends Error {}

async function get(baseUrl: string, path: string, timeoutMs: number): Promise<{ status: number; body: unknown }> {
  let response: Response;
  try {
    response = await fetch(`${baseUrl}${path}`, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
  } catch (error) {
    const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : ((error as { cause?: Error }).cause?.message ?? (error as Error).message);
    throw new Unreachable(`Cannot reach "${baseUrl}${path}": ${reason}`);
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: kept as text, and judged not ready below.
  }
  return { status: response.status, body };
}

/** Ready: a 200 whose health status (if any) is not fail and whose `ready` (if any) is not false. */
function judge(path: string, status: number, body: unknown): Step {
  const record = (typeof body === 'object' && body !== null ? body : {}) as { status?: unknown; ready?: unknown; checks?: Record<string, { status: string; output?: string }[]>; detail?: unknown };
  const failing = Object.entries(record.checks ?? {}).flatMap(([name, checks]) => checks.filter((c) => c.status === 'fail').map((c) => `${name}${c.output ? `: ${c.output}` : ''}`));
  const ready = status === 200 && record.status !== 'fail' && record.ready !== false;
  const detail = ready ? String(record.status ?? 'ok') : failing.length > 0 ? failing.join('; ') : typeof record.detail === 'string' ? record.detail : `status ${status}`;
  return { path, status, ready, detail };
}

/** The readiness routes of the export beyond the fixed order, in path order. */
function subsystemPaths(openapi: unknown): string[] {
  const paths = Object.keys((openapi as { paths?: Record<string, unknown> } | null)?.paths ?? {});
  return paths.filter((p) => p.endsWith('/readiness') && !(READINESS_ORDER as readonly string[]).includes(p)).sort();
}

const command = defineCommand({
  name: 'governance-readiness',
  summary: 'Walks the governance readiness order and exits 1 at the first route that is not ready',
  description: `Order: ${READINESS_ORDER.join(', ')}, then every other .../readiness route of /api/v1/openapi.json.\nExit 2 when the service cannot be reached.`,
  options: {
    'base-url': { type: 'string', valueName: 'URL', description: 'Base URL of the platform listener, e.g. http://127.0.0.1:18010' },
    'timeout-ms': { type: 'string', valueName: 'N', default: '5000', description: 'Timeout of each request' },
  },
  async run({ values, json, print, printJson, io }) {
    const raw = values['base-url'];
    if (raw === undefined) usageError('Missing --base-url: give the platform listener, e.g. --base-url http://127.0.0.1:18010');
    if (!URL.canParse(raw) || !/^https?:$/.test(new URL(raw).protocol)) usageError(`Invalid --base-url "${raw}": use an http(s) URL`);
    const timeoutMs = Number(values['timeout-ms']);
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) usageError(`Invalid --timeout-ms "${values['timeout-ms']}": use a positive whole number`);
    const baseUrl = raw.replace(/\/+$/, '');
    const steps: Step[] = [];
    const finish = (code: number, failure?: string) => {
      if (json) printJson({ ok: code === EXIT_OK, base_url: baseUrl, steps, ...(failure && { first_not_ready: failure }) });
      return code;
    };
    try {
      const walk = async (path: string): Promise<boolean> => {
        const { status, body } = await get(baseUrl, path, timeoutMs);
        const step = judge(path, status, body);
        steps.push(step);
        if (!json) print(`${step.ready ? 'ready    ' : 'NOT READY'} ${path}${step.ready ? '' : `: ${step.detail}`}`);
        return step.ready;
      };
      for (const path of READINESS_ORDER) if (!(await walk(path))) return finish(EXIT_FAILED, path);
      const exported = await get(baseUrl, '/api/v1/openapi.json', timeoutMs);
      if (exported.status !== 200) {
        steps.push({ path: '/api/v1/openapi.json', status: exported.status, ready: false, detail: `status ${exported.status}: cannot list the subsystems` });
        if (!json) print(`NOT READY /api/v1/openapi.json: status ${exported.status}`);
        return finish(EXIT_FAILED, '/api/v1/openapi.json');
      }
      for (const path of subsystemPaths(exported.body)) if (!(await walk(path))) return finish(EXIT_FAILED, path);
      if (!json) print(`all ${steps.length} ready`);
      return finish(EXIT_OK);
    } catch (error) {
      if (!(error instanceof Unreachable)) throw error;
      if (json) printJson({ ok: false, base_url: baseUrl, steps, error: error.message });
      io.stderr.write(`governance-readiness: ${error.message}\n`);
      return EXIT_USAGE;
    }
  },
});

await main(command);
