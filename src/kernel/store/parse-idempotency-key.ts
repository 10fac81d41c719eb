// Reading the Idempotency-Key request header (IETF httpapi draft). The draft makes the value an
// RFC 8941 structured-field string: "8e03978e-40d5-43e8-bc93-6894a57f9324". Clients often send
// the bare value instead, so a bare token is accepted too; as UUIDs start with a digit, "token"
// here is RFC 9110's (1*tchar, plus ":" and "/" as in RFC 8941 tokens), not RFC 8941's.

/** Longest key accepted, in characters after unescaping. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

export type IdempotencyKeyResult = { ok: true; key: string } | { ok: false; reason: string };

const BARE_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z:/]+$/;
const CONTROL = /[\x00-\x1f\x7f]/;
const NON_ASCII = /[^\x00-\x7f]/;

/**
 * The key carried by an Idempotency-Key header value, or why it is not acceptable.
 * An absent header is not acceptable either: the caller decides whether the route requires one.
 *
 * @example
 * parseIdempotencyKey('"a\\"b"'); // { ok: true, key: 'a"b' }
 * parseIdempotencyKey('8e03978e-40d5'); // { ok: true, key: '8e03978e-40d5' }
 */
export function parseIdempotencyKey(headerValue: string | undefined): IdempotencyKeyResult {
  if (headerValue === undefined) return invalid('header is missing');
  const value = headerValue.replace(/^[ \t]+|[ \t]+$/g, '');
  if (CONTROL.test(value)) return invalid('value contains a control character');
  if (NON_ASCII.test(value)) return invalid('value contains a character outside ASCII');
  if (value.startsWith('"')) return checkLength(parseSfString(value));
  if (value === '') return invalid('value is empty');
  if (!BARE_TOKEN.test(value)) return invalid('value is neither a quoted string nor a token');
  return checkLength({ ok: true, key: value });
}

/** RFC 8941 section 4.2.5 on an ASCII value without controls that starts with a quote. */
function parseSfString(value: string): IdempotencyKeyResult {
  let key = '';
  for (let index = 1; index < value.length; index++) {
    const char = value[index] as string;
    if (char === '\\') {
      const next = value[++index];
      if (next !== '"' && next !== '\\') return invalid('a backslash may only escape a quote or a backslash');
      key += next;
    } else if (char === '"') {
      if (index !== value.length - 1) return invalid('text after the closing quote (parameters are not supported)');
      return { ok: true, key };
    } else {
      key += char;
    }
  }
  return invalid('the quoted string is not closed');
}

function checkLength(result: IdempotencyKeyResult): IdempotencyKeyResult {
  if (!result.ok) return result;
  if (result.key.length === 0) return invalid('key is empty');
  if (result.key.length > MAX_IDEMPOTENCY_KEY_LENGTH) return invalid(`key is longer than ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
  return result;
}

/** `reason` is the detail alone, for the caller's own sentence: `Cannot use the Idempotency-Key header: ${reason}`. */
function invalid(reason: string): IdempotencyKeyResult {
  return { ok: false, reason };
}
