// The NATS client protocol as bytes: encoding the client's operations (CONNECT, PUB, HPUB, SUB,
// UNSUB, PING, PONG) and the NATS/1.0 header block (ADR-4). Subjects and sids are checked here,
// so nothing that would split a protocol line ever reaches the socket.

export const CRLF = '\r\n';
const HEADER_LINE = 'NATS/1.0';
/** A subject token: no whitespace, no empty tokens (`a..b`), wildcards only as whole tokens. */
const SUBJECT = /^[^\s.]+(?:\.[^\s.]+)*$/;

export type NatsHeaders = Readonly<Record<string, string>>;

/** True when `subject` is a valid subject to subscribe to (wildcards `*` and `>` allowed as whole tokens). */
export function isValidSubject(subject: string, options: { wildcards: boolean }): boolean {
  if (!SUBJECT.test(subject)) return false;
  const tokens = subject.split('.');
  for (const [i, token] of tokens.entries()) {
    const wild = token === '*' || token === '>';
    if (!wild && (token.includes('*') || token.includes('>'))) return false;
    if (wild && !options.wildcards) return false;
    if (token === '>' && i !== tokens.length - 1) return false;
  }
  return true;
}

/** True when a concrete subject matches a subscription subject with `*` and `>` wildcards. */
export function subjectMatches(pattern: string, subject: string): boolean {
  const want = pattern.split('.');
  const have = subject.split('.');
  for (let i = 0; i < want.length; i++) {
    const token = want[i]!;
    if (token === '>') return have.length > i;
    if (i >= have.length) return false;
    if (token !== '*' && token !== have[i]) return false;
  }
  return want.length === have.length;
}

function checkSubject(subject: string, wildcards: boolean): void {
  if (!isValidSubject(subject, { wildcards })) throw new TypeError(`Invalid NATS subject "${subject}": use dot-separated tokens without spaces${wildcards ? '' : ' or wildcards'}`);
}

/** Encodes a header block: `NATS/1.0\r\nName: value\r\n...\r\n\r\n`. */
export function encodeHeaders(headers: NatsHeaders): Buffer {
  let text = HEADER_LINE + CRLF;
  for (const [name, value] of Object.entries(headers)) {
    if (!/^[!#-9;-~]+$/.test(name)) throw new TypeError(`Invalid NATS header name "${name}": printable ASCII without ":" or spaces`);
    if (/[\r\n]/.test(value)) throw new TypeError(`Invalid value of NATS header "${name}": no CR or LF`);
    text += `${name}: ${value}${CRLF}`;
  }
  return Buffer.from(text + CRLF, 'utf8');
}

/** Parses a header block; a status line such as `NATS/1.0 503` is returned as `status`. */
export function parseHeaders(block: Buffer): { headers: Record<string, string>; status?: string } {
  const lines = block.toString('utf8').split(CRLF);
  const first = lines.shift() ?? '';
  if (!first.startsWith(HEADER_LINE)) throw new TypeError(`Invalid NATS header block: starts with "${first.slice(0, 20)}"`);
  const status = first.slice(HEADER_LINE.length).trim();
  const headers: Record<string, string> = {};
  for (const line of lines) {
    if (line === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    // Repeated names (allowed by ADR-4) are joined as HTTP does.
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return status === '' ? { headers } : { headers, status };
}

/** `PUB` or `HPUB`, whole, as one buffer. */
export function encodePublish(subject: string, payload: Uint8Array, options: { headers?: NatsHeaders; replyTo?: string } = {}): Buffer {
  checkSubject(subject, false);
  if (options.replyTo !== undefined) checkSubject(options.replyTo, false);
  const reply = options.replyTo === undefined ? '' : ` ${options.replyTo}`;
  const headers = options.headers && Object.keys(options.headers).length > 0 ? encodeHeaders(options.headers) : undefined;
  if (!headers) return Buffer.concat([Buffer.from(`PUB ${subject}${reply} ${payload.length}${CRLF}`), payload, Buffer.from(CRLF)]);
  const total = headers.length + payload.length;
  return Buffer.concat([Buffer.from(`HPUB ${subject}${reply} ${headers.length} ${total}${CRLF}`), headers, payload, Buffer.from(CRLF)]);
}

/** The size the server compares with max_payload: header block plus payload. */
export function publishedSize(payload: Uint8Array, headers?: NatsHeaders): number {
  return payload.length + (headers && Object.keys(headers).length > 0 ? encodeHeaders(headers).length : 0);
}

export function encodeSubscribe(subject: string, sid: number, queue?: string): string {
  checkSubject(subject, true);
  if (queue !== undefined && !/^\S+$/.test(queue)) throw new TypeError(`Invalid NATS queue group "${queue}"`);
  return `SUB ${subject}${queue === undefined ? '' : ` ${queue}`} ${sid}${CRLF}`;
}

export function encodeUnsubscribe(sid: number, max?: number): string {
  return `UNSUB ${sid}${max === undefined ? '' : ` ${max}`}${CRLF}`;
}

export interface ConnectOptions {
  name: string;
  version: string;
  user?: string;
  pass?: string;
  authToken?: string;
  tlsRequired: boolean;
}

/** CONNECT with headers and no_responders on, verbose off (flush uses PING/PONG instead of +OK). */
export function encodeConnect(options: ConnectOptions): string {
  const body: Record<string, unknown> = {
    verbose: false,
    pedantic: false,
    tls_required: options.tlsRequired,
    name: options.name,
    lang: 'node-airlock',
    version: options.version,
    protocol: 1,
    headers: true,
    no_responders: true,
  };
  if (options.user !== undefined) body['user'] = options.user;
  if (options.pass !== undefined) body['pass'] = options.pass;
  if (options.authToken !== undefined) body['auth_token'] = options.authToken;
  return `CONNECT ${JSON.stringify(body)}${CRLF}`;
}

export const PING = `PING${CRLF}`;
export const PONG = `PONG${CRLF}`;
