// jhf-shuttle ping: probes the bus itself, not a service in front of it, so a dead NATS shows as
// such (the stack contract's bus healthcheck runs it). With NATS_MONITOR_URL: nats-server's own
// monitoring /healthz; otherwise a connection to NATS_URL answered by the server's PONG, or the
// embedded bus's database. Exit 0 up, 1 down.

import { defineCommand, EXIT_FAILED, EXIT_OK, readConfig, wholeNumberOption } from '../../src/kernel/index.ts';
import { BUS_SPEC, DATA_SPEC } from '../../src/messaging/config.ts';
import { busFromEnv } from './bus-from-env.ts';

export const pingCommand = defineCommand({
  name: 'jhf-shuttle ping',
  summary: 'Probes the bus itself; exit 0 when it answers, 1 when it does not',
  description:
    "With NATS_MONITOR_URL set: GET <NATS_MONITOR_URL>/healthz of nats-server's monitoring port (nats-server -m 8222), 200 is up. Otherwise with NATS_URL: connects and waits for the server's PONG (JetStream's stream too, as the services do). Otherwise the embedded bus: its database opens.",
  options: {
    'timeout-ms': { type: 'string', description: 'How long the bus may take to answer', default: '3000', valueName: 'MS' },
  },
  async run({ values, json, print, printJson, io }) {
    const timeoutMs = wholeNumberOption('--timeout-ms', values['timeout-ms']);
    const config = readConfig({ ...DATA_SPEC, ...BUS_SPEC }, io.env);
    const result = config.NATS_MONITOR_URL !== undefined ? await probeMonitor(config.NATS_MONITOR_URL, timeoutMs) : await probeBus(io.env, timeoutMs);
    if (json) printJson(result);
    else print(`bus ${result.target}: ${result.ok ? 'up' : `DOWN (${result.detail})`}`);
    return result.ok ? EXIT_OK : EXIT_FAILED;
  },
});

interface PingResult {
  ok: boolean;
  probe: 'nats-monitor' | 'nats' | 'embedded';
  target: string;
  detail: string;
}

async function probeMonitor(base: string, timeoutMs: number): Promise<PingResult> {
  const url = `${base.replace(/\/+$/, '')}/healthz`;
  const shown = new URL(url);
  shown.username = '';
  shown.password = '';
  const target = shown.href;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
    const text = (await res.text()).slice(0, 200);
    return { ok: res.status === 200, probe: 'nats-monitor', target, detail: `answered ${res.status} ${text.trim()}` };
  } catch (error) {
    const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : ((error as { cause?: Error }).cause?.message ?? (error as Error).message);
    return { ok: false, probe: 'nats-monitor', target, detail: `unreachable: ${reason}` };
  }
}

async function probeBus(env: NodeJS.ProcessEnv, timeoutMs: number): Promise<PingResult> {
  const probe = env['NATS_URL'] ? 'nats' : 'embedded';
  const down = (detail: string): PingResult => ({ ok: false, probe, target: probe === 'nats' ? 'NATS_URL' : 'embedded bus', detail });
  const attempt = (async (): Promise<PingResult> => {
    const opened = await busFromEnv(env, 'jhf-shuttle-ping');
    try {
      await opened.bus.ready();
      const health = opened.bus.health();
      return { ok: health.connected, probe, target: health.target, detail: health.connected ? `connected (${health.persistence})` : (health.last_error ?? 'disconnected') };
    } finally {
      await opened.close();
    }
  })();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<PingResult>((resolve) => {
    timer = setTimeout(() => resolve(down(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([attempt.catch((error: Error) => down(error.message)), late]);
  } finally {
    clearTimeout(timer);
  }
}
