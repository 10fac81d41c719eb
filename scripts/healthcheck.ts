// healthcheck: one probe of a loopback health URL, as the systemd healthcheck timers generated
// from the manifests' `healthchecks` run it (delivery/units.ts): exit 0 when it answers 2xx
// within the timeout (after up to --retries more tries), 1 when it does not, 2 on usage errors.

import { defineCommand, EXIT_FAILED, EXIT_OK, isLoopbackHost, main, usageError, wholeNumberOption } from '../src/kernel/index.ts';

interface Attempt {
  status: number | null;
  detail: string;
}

async function probe(url: string, timeoutMs: number): Promise<Attempt> {
  try {
    const response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
    await response.arrayBuffer();
    return { status: response.status, detail: `status ${response.status}` };
  } catch (error) {
    const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : ((error as { cause?: Error }).cause?.message ?? (error as Error).message);
    return { status: null, detail: reason };
  }
}

const command = defineCommand({
  name: 'healthcheck',
  summary: 'Probes a loopback health URL once (with retries) and exits 0 on a 2xx answer, 1 otherwise',
  description: 'What the generated airlock-<service>-health-<name>.timer units run. Only loopback URLs are probed (the units allow no other address).',
  options: {
    url: { type: 'string', valueName: 'URL', description: 'The health URL, e.g. http://127.0.0.1:18020/healthz' },
    timeout: { type: 'string', valueName: 'SECONDS', default: '10', description: 'Timeout of each try' },
    retries: { type: 'string', valueName: 'N', default: '0', description: 'Further tries after a failed one' },
  },
  async run({ values, json, print, printJson }) {
    const raw = values.url;
    if (raw === undefined) usageError('Missing --url: give the health URL, e.g. --url http://127.0.0.1:18020/healthz');
    if (!URL.canParse(raw) || !/^https?:$/.test(new URL(raw).protocol)) usageError(`Invalid --url "${raw}": use an http(s) URL`);
    if (!isLoopbackHost(new URL(raw).hostname)) usageError(`Refusing --url "${raw}": only loopback hosts are probed`);
    const timeoutMs = wholeNumberOption('--timeout', values.timeout) * 1000;
    const retries = wholeNumberOption('--retries', values.retries, 0);
    const attempts: Attempt[] = [];
    for (let i = 0; i <= retries; i += 1) {
      const attempt = await probe(raw, timeoutMs);
      attempts.push(attempt);
      if (attempt.status !== null && attempt.status >= 200 && attempt.status < 300) break;
    }
    const last = attempts.at(-1) as Attempt;
    const ok = last.status !== null && last.status >= 200 && last.status < 300;
    if (json) printJson({ ok, url: raw, attempts });
    else print(`${ok ? 'healthy' : 'unhealthy'}: ${raw} (${last.detail}${attempts.length > 1 ? `, ${attempts.length} tries` : ''})`);
    return ok ? EXIT_OK : EXIT_FAILED;
  },
});

await main(command);
