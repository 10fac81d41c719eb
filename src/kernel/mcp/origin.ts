// The DNS-rebinding guard of the Streamable HTTP transport ("Security Warning"): a request that
// carries an Origin header must name an allowed origin, else 403. A request without Origin (a
// non-browser client such as an SDK or curl) passes: browsers always send it on the requests
// that rebinding could forge.

/** An allowlist of origins in their ASCII serialization; throws TypeError for an entry that is not one. */
export function createOriginCheck(allowed: readonly string[]): (origin: string | string[] | undefined) => boolean {
  const set = new Set(allowed.map((entry) => {
    const origin = serializeOrigin(entry);
    if (origin === undefined) throw new TypeError(`Allowed origin "${entry}" must be scheme://host[:port], e.g. "http://127.0.0.1:18030"`);
    return origin;
  }));
  return (header) => {
    if (header === undefined) return true;
    if (Array.isArray(header)) return false;
    const origin = serializeOrigin(header);
    return origin !== undefined && set.has(origin);
  };
}

/** `scheme://host[:port]` lower-cased with the default port dropped, or undefined (including "null"). */
function serializeOrigin(value: string): string | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/?#]+$/i.test(value)) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // Not a URL at all: no origin we could have allowed.
    return undefined;
  }
  if (url.username !== '' || url.password !== '') return undefined;
  return url.origin === 'null' ? undefined : url.origin;
}
