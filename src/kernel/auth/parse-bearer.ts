// The token of an `Authorization: Bearer <token>` header (RFC 6750), or nothing.

/** Longest Authorization header we read. */
const MAX_AUTHORIZATION_LENGTH = 4096;
// Scheme name in any case, exactly one space, then a token68 (RFC 7235).
const BEARER = /^bearer ([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * The bearer token, or undefined when the header is absent, duplicated, another scheme, or not
 * exactly `Bearer <token68>`.
 *
 * @example
 * parseBearer('Bearer abc.def'); // 'abc.def'
 * parseBearer('Bearer  abc');    // undefined (two spaces)
 */
export function parseBearer(authorization: string | readonly string[] | undefined): string | undefined {
  if (typeof authorization !== 'string' || authorization.length > MAX_AUTHORIZATION_LENGTH) return undefined;
  return BEARER.exec(authorization)?.[1];
}
