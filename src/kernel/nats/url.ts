// NATS server URLs: nats://[user:pass@|token@]host[:port] and tls://..., comma-separated for a
// cluster. Credentials in the URL are used only when NATS_USER/NATS_PASSWORD/NATS_TOKEN are not set.

export const DEFAULT_NATS_PORT = 4222;

export interface NatsServerAddress {
  host: string;
  port: number;
  tls: boolean;
  user?: string;
  pass?: string;
  token?: string;
  /** The URL without credentials, safe to log and to show in health. */
  display: string;
}

/** Parses one or more comma-separated NATS URLs; throws a TypeError naming the bad one (without its credentials). */
export function parseNatsUrls(text: string): NatsServerAddress[] {
  const out: NatsServerAddress[] = [];
  for (const raw of text.split(',').map((s) => s.trim()).filter((s) => s !== '')) out.push(parseOne(raw));
  if (out.length === 0) throw new TypeError('NATS_URL names no server: use nats://host:4222 or tls://host:4222');
  return out;
}

function parseOne(raw: string): NatsServerAddress {
  const withScheme = /^[a-z]+:\/\//i.test(raw) ? raw : `nats://${raw}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new TypeError(`Invalid NATS URL "${redact(raw)}": use nats://host:port or tls://host:port`);
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (scheme !== 'nats' && scheme !== 'tls') throw new TypeError(`Invalid NATS URL "${redact(raw)}": scheme "${scheme}" is not nats or tls`);
  if (url.hostname === '') throw new TypeError(`Invalid NATS URL "${redact(raw)}": no host`);
  const port = url.port === '' ? DEFAULT_NATS_PORT : Number(url.port);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const user = url.username === '' ? undefined : decodeURIComponent(url.username);
  const pass = url.password === '' ? undefined : decodeURIComponent(url.password);
  const base = { host, port, tls: scheme === 'tls', display: `${scheme}://${url.host.replace(/:\d+$/, '')}:${port}` };
  if (user !== undefined && pass === undefined) return { ...base, token: user };
  return { ...base, ...(user !== undefined && { user }), ...(pass !== undefined && { pass }) };
}

function redact(raw: string): string {
  return raw.replace(/\/\/[^@/]*@/, '//***@');
}
