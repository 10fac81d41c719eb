// One connection to one NATS server, up to the point where it is usable: TCP, the server's INFO,
// the TLS upgrade when the URL says tls:// or the server requires it, CONNECT with credentials,
// and the PING/PONG that proves the server accepted CONNECT (an auth failure arrives as -ERR).

import { connect as connectTcp, isIP } from 'node:net';
import type { Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import { createParser } from './parser.ts';
import type { ServerInfo, ServerOp } from './parser.ts';
import { encodeConnect, PING } from './protocol.ts';
import type { NatsServerAddress } from './url.ts';

export interface Credentials {
  user?: string;
  pass?: string;
  token?: string;
}

export interface OpenedConnection {
  socket: Socket;
  info: ServerInfo;
  /** Feed further bytes here: the handshake's parser, now handing ops to `setHandler`'s function. */
  setHandler(handler: (op: ServerOp) => void): void;
}

export interface OpenOptions {
  address: NatsServerAddress;
  credentials: Credentials;
  tls?: TlsOptions;
  name: string;
  version: string;
  timeoutMs: number;
}

/** Opens a connection and completes the handshake, or rejects with a reason that names the server (never a credential). */
export function openConnection(options: OpenOptions): Promise<OpenedConnection> {
  const { address } = options;
  return new Promise((resolve, reject) => {
    // Small PUB/PING frames must not wait for Nagle's algorithm (a 40 ms stall per round trip).
    let socket: Socket = connectTcp({ host: address.host, port: address.port, noDelay: true });
    let info: ServerInfo | undefined;
    let handler: ((op: ServerOp) => void) | undefined;
    let settled = false;
    const fail = (message: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      reject(new Error(`NATS server ${address.display}: ${message}`));
    };
    const timer = setTimeout(() => fail(`no handshake within ${options.timeoutMs} ms`), options.timeoutMs);
    const onOp = (op: ServerOp) => {
      if (handler) return handler(op);
      if (op.op === 'info' && info === undefined) {
        info = op.info;
        const wantTls = address.tls || op.info.tls_required === true;
        if (wantTls && !(op.info.tls_required || op.info.tls_available)) return fail('TLS was asked for but the server offers none');
        if (!wantTls) return sendConnect(false);
        upgrade();
        return;
      }
      if (op.op === 'err') return fail(`refused the connection: ${op.message}`);
      if (op.op === 'pong' && info !== undefined && !settled) {
        settled = true;
        clearTimeout(timer);
        socket.setTimeout(0);
        resolve({ socket, info, setHandler: (h) => (handler = h) });
      }
    };
    let parse = createParser(onOp);
    const onData = (chunk: Buffer) => {
      try {
        parse(chunk);
      } catch (error) {
        if (!settled) fail((error as Error).message);
        else socket.destroy(error as Error);
      }
    };
    const sendConnect = (tls: boolean) => {
      const { user, pass, token } = options.credentials;
      socket.write(
        encodeConnect({
          name: options.name,
          version: options.version,
          tlsRequired: tls,
          ...(user !== undefined && { user }),
          ...(pass !== undefined && { pass }),
          ...(token !== undefined && { authToken: token }),
        }) + PING,
      );
    };
    const upgrade = () => {
      socket.off('data', onData);
      const plain = socket;
      // SNI carries host names only; an IP address is checked against the certificate's IP SANs.
      const secure = connectTls({ ...options.tls, socket: plain, ...(isIP(address.host) === 0 && { servername: address.host }), host: address.host });
      socket = secure;
      parse = createParser(onOp);
      secure.on('data', onData);
      secure.once('secureConnect', () => sendConnect(true));
      secure.on('error', (error) => fail(`TLS: ${error.message}`));
    };
    socket.on('data', onData);
    socket.on('error', (error) => fail(error.message));
    socket.on('close', () => fail('closed the connection during the handshake'));
  });
}
