// The consumer tokens file (SEMANTIC_CONSUMER_TOKENS_FILE): a JSON object of consumer id ->
// bearer token. Every id must be listed by ts01_consumer_matrix (gated ones may hold a token;
// they are refused per request with downstream_gated); tokens are long enough and distinct.

import { readFileSync } from 'node:fs';
import { isObject } from './_json.ts';
import { CONSUMER_MATRIX } from './cdc-matrix.ts';
import type { CdcConsumer } from './cdc-matrix.ts';

export interface ConsumerToken {
  consumer: string;
  token: string;
}

/** Shortest consumer token accepted: 128 bits of base64url text. */
export const MIN_CONSUMER_TOKEN_LENGTH = 22;

/** Reads and checks a tokens file; reasons never contain a token. */
export function readConsumerTokens(path: string, matrix: readonly CdcConsumer[] = CONSUMER_MATRIX): { tokens: ConsumerToken[]; reasons: string[] } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return { tokens: [], reasons: [`cannot read "${path}": ${(error as NodeJS.ErrnoException).code ?? 'error'}`] };
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    // JSON.parse's message quotes the text around the error, which may be a token: say no more.
    return { tokens: [], reasons: [`"${path}" is not JSON`] };
  }
  return checkConsumerTokens(doc, matrix);
}

/** Checks a parsed tokens document against the matrix. */
export function checkConsumerTokens(doc: unknown, matrix: readonly CdcConsumer[] = CONSUMER_MATRIX): { tokens: ConsumerToken[]; reasons: string[] } {
  if (!isObject(doc)) return { tokens: [], reasons: ['the file must hold a JSON object of consumer id -> token'] };
  const reasons: string[] = [];
  const tokens: ConsumerToken[] = [];
  const seen = new Map<string, string>();
  for (const [position, [consumer, token]] of Object.entries(doc).entries()) {
    if (!matrix.some((entry) => entry.consumer === consumer)) {
      // An unknown name is not echoed: an operator who swapped names and tokens would see a token.
      reasons.push(`entry ${position + 1} names a consumer that ts01_consumer_matrix does not list`);
      continue;
    }
    if (typeof token !== 'string' || token.length < MIN_CONSUMER_TOKEN_LENGTH || !/^[A-Za-z0-9\-._~+/]+=*$/.test(token)) {
      reasons.push(`token of consumer "${consumer}" must be a bearer token68 of at least ${MIN_CONSUMER_TOKEN_LENGTH} characters`);
      continue;
    }
    const other = seen.get(token);
    if (other !== undefined) reasons.push(`consumers "${other}" and "${consumer}" share one token`);
    seen.set(token, consumer);
    tokens.push({ consumer, token });
  }
  return { tokens, reasons };
}
