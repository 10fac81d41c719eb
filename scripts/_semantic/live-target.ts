// What the commands with a --check-live part share: the semantic API's base URL (--base-url, else
// its listener in the stack contract), a client for it, and the command's own consumer token.

import { AirlockError, usageError } from '../../src/kernel/index.ts';
import { createHttpClient, parseBaseUrl } from './http-client.ts';
import type { HttpClient } from './http-client.ts';
import { stackExecutables } from './install-root.ts';
import type { InstallRoot } from './install-root.ts';
import { consumerToken, TOKEN_OPTIONS } from './tokens.ts';

export interface LiveValues {
  'base-url'?: string | undefined;
  'timeout-ms': string;
  'consumer-token-file'?: string | undefined;
  'consumer-tokens-file'?: string | undefined;
}

/** A client for the semantic API; a usage error when the URL or the timeout is not valid. */
export function liveClient(root: InstallRoot, values: LiveValues): HttpClient {
  const listener = stackExecutables(root.stack.doc).find((e) => e.name === 'semantic-api')?.listeners[0];
  const raw = values['base-url'] ?? (listener ? `http://${listener.host}:${listener.port}` : '');
  const baseUrl = parseBaseUrl(raw);
  if (baseUrl === undefined) usageError(`Invalid or missing --base-url "${raw}": give the semantic API's http(s) URL`);
  const timeoutMs = Number(values['timeout-ms']);
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) usageError(`Invalid --timeout-ms "${values['timeout-ms']}": use a positive whole number`);
  return createHttpClient(baseUrl, { timeoutMs });
}

/** The consumer token of `consumer`; an environment error when none is configured. */
export function requiredConsumerToken(consumer: string, env: NodeJS.ProcessEnv, values: LiveValues): string {
  const token = consumerToken(consumer, env, { tokenFile: values['consumer-token-file'], tokensFile: values['consumer-tokens-file'] });
  if (token === undefined) throw new AirlockError('environment', `Cannot read the live status without the consumer token of "${consumer}": give --consumer-token-file or a consumer tokens file`);
  return token;
}

/** The options of a command's live part, after its own --check-live. */
export const LIVE_OPTIONS = {
  'base-url': { type: 'string', valueName: 'URL', description: 'Base URL of the semantic API (default: its listener in the stack contract)' },
  'consumer-token-file': TOKEN_OPTIONS['consumer-token-file'],
  'consumer-tokens-file': TOKEN_OPTIONS['consumer-tokens-file'],
  'timeout-ms': { type: 'string', default: '5000', valueName: 'MS', description: 'Timeout of each live request' },
} as const;
