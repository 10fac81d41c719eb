// A streaming parser of what a NATS server sends: control lines (INFO, PING, PONG, +OK, -ERR)
// and messages (MSG, HMSG) whose payload follows the line as a counted number of bytes. Bytes
// arrive in arbitrary chunks; a frame is emitted only once it is complete.

import { parseHeaders } from './protocol.ts';

export interface ServerInfo {
  server_id?: string;
  version?: string;
  max_payload: number;
  headers?: boolean;
  auth_required?: boolean;
  tls_required?: boolean;
  tls_available?: boolean;
  [key: string]: unknown;
}

export type ServerOp =
  | { op: 'info'; info: ServerInfo }
  | { op: 'ping' }
  | { op: 'pong' }
  | { op: 'ok' }
  | { op: 'err'; message: string }
  | { op: 'msg'; subject: string; sid: number; replyTo?: string; headers?: Record<string, string>; status?: string; payload: Buffer };

/** A server line longer than this is a protocol violation (the server's own limit is 4 KiB for control lines). */
const MAX_CONTROL_LINE = 64 * 1024;

interface Pending {
  subject: string;
  sid: number;
  replyTo?: string;
  headerBytes: number;
  totalBytes: number;
}

/** Returns a function that takes chunks and calls `onOp` per complete frame; throws on a protocol violation. */
export function createParser(onOp: (op: ServerOp) => void): (chunk: Buffer) => void {
  let buffer: Buffer = Buffer.alloc(0);
  let pending: Pending | undefined;
  // A server's messages are bounded by the max_payload it announced; a MSG announcing more is a
  // violation, not a reason to buffer without end.
  let maxPayload = Number.MAX_SAFE_INTEGER;
  return (chunk) => {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    for (;;) {
      if (pending) {
        if (buffer.length < pending.totalBytes + 2) return;
        const body = buffer.subarray(0, pending.totalBytes);
        buffer = buffer.subarray(pending.totalBytes + 2);
        const { subject, sid, replyTo, headerBytes } = pending;
        pending = undefined;
        const base = { op: 'msg' as const, subject, sid, ...(replyTo !== undefined && { replyTo }) };
        if (headerBytes > 0) {
          const parsed = parseHeaders(body.subarray(0, headerBytes));
          onOp({ ...base, headers: parsed.headers, ...(parsed.status !== undefined && { status: parsed.status }), payload: Buffer.from(body.subarray(headerBytes)) });
        } else onOp({ ...base, payload: Buffer.from(body) });
        continue;
      }
      const end = buffer.indexOf('\r\n');
      if (end === -1) {
        if (buffer.length > MAX_CONTROL_LINE) throw new TypeError('NATS protocol violation: control line too long');
        return;
      }
      const line = buffer.subarray(0, end).toString('utf8');
      buffer = buffer.subarray(end + 2);
      const op = parseLine(line);
      if ('pending' in op) {
        if (op.pending.totalBytes > maxPayload) throw new TypeError(`NATS protocol violation: a message of ${op.pending.totalBytes} bytes exceeds the server's max_payload ${maxPayload}`);
        pending = op.pending;
      } else {
        if (op.op === 'info') maxPayload = op.info.max_payload;
        onOp(op);
      }
    }
  };
}

function parseLine(line: string): ServerOp | { pending: Pending } {
  const space = line.search(/[ \t]/);
  const verb = (space === -1 ? line : line.slice(0, space)).toUpperCase();
  const rest = space === -1 ? '' : line.slice(space + 1).trim();
  switch (verb) {
    case 'PING':
      return { op: 'ping' };
    case 'PONG':
      return { op: 'pong' };
    case '+OK':
      return { op: 'ok' };
    case '-ERR':
      return { op: 'err', message: rest.replace(/^'(.*)'$/, '$1') };
    case 'INFO': {
      let info: ServerInfo;
      try {
        info = JSON.parse(rest) as ServerInfo;
      } catch {
        throw new TypeError('NATS protocol violation: INFO is not JSON');
      }
      if (typeof info !== 'object' || info === null || !Number.isSafeInteger(info.max_payload) || info.max_payload < 1) throw new TypeError('NATS protocol violation: INFO without max_payload');
      return { op: 'info', info };
    }
    case 'MSG': {
      const args = rest.split(/[ \t]+/);
      if (args.length !== 3 && args.length !== 4) throw new TypeError(`NATS protocol violation: "MSG" with ${args.length} arguments`);
      const size = count(args[args.length - 1]!);
      return { pending: { subject: args[0]!, sid: count(args[1]!), ...(args.length === 4 && { replyTo: args[2]! }), headerBytes: 0, totalBytes: size } };
    }
    case 'HMSG': {
      const args = rest.split(/[ \t]+/);
      if (args.length !== 4 && args.length !== 5) throw new TypeError(`NATS protocol violation: "HMSG" with ${args.length} arguments`);
      const total = count(args[args.length - 1]!);
      const headerBytes = count(args[args.length - 2]!);
      if (headerBytes > total) throw new TypeError('NATS protocol violation: HMSG header bytes exceed total bytes');
      return { pending: { subject: args[0]!, sid: count(args[1]!), ...(args.length === 5 && { replyTo: args[2]! }), headerBytes, totalBytes: total } };
    }
    default:
      throw new TypeError(`NATS protocol violation: unknown operation "${verb.slice(0, 16)}"`);
  }
}

function count(text: string): number {
  if (!/^\d{1,10}$/.test(text)) throw new TypeError(`NATS protocol violation: "${text.slice(0, 16)}" is not a count`);
  return Number(text);
}
