// jhf-shuttle status: reads GET /api/v1/status of a running messaging API; exit 0 when the bus is
// connected and the mailbox adapter reachable, 1 when not, 2 when the API does not answer.

import { AirlockError, defineCommand, EXIT_FAILED, EXIT_OK } from '../../src/kernel/index.ts';
import { DEFAULT_API_LISTEN } from '../../src/messaging/config.ts';
import { API_STATUS_PATH } from '../../src/messaging/routes.ts';
import { splitCredentials } from './url-credentials.ts';

export const statusCommand = defineCommand({
  name: 'jhf-shuttle status',
  summary: 'Shows the messaging API status (bus, mailbox adapter, lane observers, last recovery); exit 1 when the bus or the adapter is down',
  options: {
    'api-url': { type: 'string', description: 'Base URL of the messaging API', default: `http://${DEFAULT_API_LISTEN}`, valueName: 'URL' },
    'timeout-ms': { type: 'string', description: 'How long to wait for the answer', default: '3000', valueName: 'MS' },
  },
  async run({ values, json, print, printJson }) {
    const { url, headers } = splitCredentials(`${values['api-url'].replace(/\/+$/, '')}${API_STATUS_PATH}`);
    let body: { bus?: { kind?: string; connected?: boolean; target?: string }; mailbox_adapter?: { reachable?: boolean; url?: string }; observers?: unknown[]; recovery?: { last_recovery?: unknown } };
    try {
      const res = await fetch(url, { headers, signal: AbortSignal.timeout(Number(values['timeout-ms']) || 3000) });
      if (!res.ok) throw new Error(`answered ${res.status}`);
      body = (await res.json()) as typeof body;
    } catch (error) {
      throw new AirlockError('environment', `Cannot read ${url}: ${(error as Error).message}`);
    }
    const ok = body.bus?.connected === true && body.mailbox_adapter?.reachable === true;
    if (json) printJson({ ok, status: body });
    else {
      print(`bus: ${body.bus?.kind} ${body.bus?.connected ? 'connected' : 'DISCONNECTED'} (${body.bus?.target})`);
      print(`mailbox adapter: ${body.mailbox_adapter?.reachable ? 'reachable' : 'UNREACHABLE'} (${body.mailbox_adapter?.url})`);
      print(`lane observers: ${body.observers?.length ?? 0}; last recovery: ${JSON.stringify(body.recovery?.last_recovery ?? null)}`);
    }
    return ok ? EXIT_OK : EXIT_FAILED;
  },
});
