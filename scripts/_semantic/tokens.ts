// Where the seed-000 commands find the tokens they present to the semantic API: an option naming
// a file, else the variables the service itself reads (NAME or NAME_FILE). A consumer token may
// also come from the service's consumer tokens file, by consumer id. Tokens are never printed; a
// file that cannot be read is an environment error that names the file, not its content.

import { readFileSync } from 'node:fs';
import { AirlockError } from '../../src/kernel/index.ts';
import { isObject } from './json-file.ts';

function readSecretFile(path: string, what: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new AirlockError('environment', `Cannot read ${what} file "${path}": ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  return text.trim();
}

// The service accepts comma-separated values (rotation); a client presents the first.
function first(value: string | undefined): string | undefined {
  const token = value?.split(',')[0]?.trim();
  return token === undefined || token === '' ? undefined : token;
}

/** The operator token: --operator-token-file, else SEMANTIC_OPERATOR_TOKEN, else SEMANTIC_OPERATOR_TOKEN_FILE. */
export function operatorToken(env: NodeJS.ProcessEnv, file?: string): string | undefined {
  if (file !== undefined) return first(readSecretFile(file, 'operator token'));
  const direct = first(env['SEMANTIC_OPERATOR_TOKEN']);
  if (direct !== undefined) return direct;
  const named = env['SEMANTIC_OPERATOR_TOKEN_FILE'];
  return named === undefined || named === '' ? undefined : first(readSecretFile(named, 'operator token'));
}

/**
 * The bearer token of `consumer`: --consumer-token-file, else SEMANTIC_CONSUMER_TOKEN(_FILE), else
 * its entry in the consumer tokens file (--consumer-tokens-file or SEMANTIC_CONSUMER_TOKENS_FILE).
 */
export function consumerToken(consumer: string, env: NodeJS.ProcessEnv, files: { tokenFile?: string | undefined; tokensFile?: string | undefined } = {}): string | undefined {
  if (files.tokenFile !== undefined) return first(readSecretFile(files.tokenFile, 'consumer token'));
  const direct = first(env['SEMANTIC_CONSUMER_TOKEN']);
  if (direct !== undefined) return direct;
  const named = env['SEMANTIC_CONSUMER_TOKEN_FILE'];
  if (named !== undefined && named !== '') return first(readSecretFile(named, 'consumer token'));
  const tokensFile = files.tokensFile ?? env['SEMANTIC_CONSUMER_TOKENS_FILE'];
  if (tokensFile === undefined || tokensFile === '') return undefined;
  let doc: unknown;
  try {
    doc = JSON.parse(readSecretFile(tokensFile, 'consumer tokens'));
  } catch (error) {
    if (error instanceof AirlockError) throw error;
    throw new AirlockError('environment', `Cannot read consumer tokens file "${tokensFile}": not JSON`);
  }
  const token = isObject(doc) ? doc[consumer] : undefined;
  return typeof token === 'string' ? first(token) : undefined;
}

/** The token options every live command offers, for its option table. */
export const TOKEN_OPTIONS = {
  'operator-token-file': { type: 'string', valueName: 'FILE', description: 'File holding the operator token (default: $SEMANTIC_OPERATOR_TOKEN or $SEMANTIC_OPERATOR_TOKEN_FILE)' },
  'consumer-token-file': { type: 'string', valueName: 'FILE', description: 'File holding this command\'s consumer token (default: $SEMANTIC_CONSUMER_TOKEN(_FILE))' },
  'consumer-tokens-file': { type: 'string', valueName: 'FILE', description: 'The service\'s consumer tokens file, read by consumer id (default: $SEMANTIC_CONSUMER_TOKENS_FILE)' },
} as const;
