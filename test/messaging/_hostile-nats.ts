// A NATS server double that speaks the client side of the text protocol byte for byte as the NATS
// protocol documentation describes (INFO first, then CONNECT/PING/PUB/HPUB/SUB from the client,
// PONG/MSG/-ERR from the server) and misbehaves on request: a malformed or endless INFO, -ERR at
// CONNECT or after a publish, garbage lines, a MSG announcing more bytes than it ever sends.
// Only for the misbehaviour a real nats-server cannot be made to show; everything else is tested
// against the real one (_nats-server.ts).

import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';

export interface ClientFrame {
  verb: string;
  args: string[];
  payload?: Buffer;
}

export interface HostileBehaviour {
  /** What the server writes first; default a well-formed INFO with max_payload 1048576. */
  greeting?: (socket: Socket) => void;
  /** Called once the CONNECT and its PING arrived; default: answer PONG. */
  onHandshake?: (socket: Socket, connect: Record<string, unknown>) => void;
  /** Called per PUB/HPUB after it is recorded; default: nothing. */
  onPublish?: (socket: Socket, frame: ClientFrame) => void;
  /** Called per PING after the handshake; default: answer PONG. */
  onPing?: (socket: Socket) => void;
}

export interface HostileNats {
  url: string;
  /** Every frame every client sent, in order. */
  frames: ClientFrame[];
  connections: number;
  close(): Promise<void>;
}

export function info(fields: Record<string, unknown> = {}): string {
  return `INFO ${JSON.stringify({ server_id: 'HOSTILE', version: '2.9.10', proto: 1, headers: true, max_payload: 1048576, ...fields })}\r\n`;
}

export async function startHostileNats(behaviour: HostileBehaviour = {}): Promise<HostileNats> {
  const frames: ClientFrame[] = [];
  const sockets = new Set<Socket>();
  const state = { connections: 0 };
  const server: Server = createServer((socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    (behaviour.greeting ?? ((s: Socket) => s.write(info())))(socket);
    let buffer = Buffer.alloc(0);
    let connect: Record<string, unknown> | undefined;
    let handshaken = false;
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const end = buffer.indexOf('\r\n');
        if (end === -1) return;
        const line = buffer.subarray(0, end).toString('utf8');
        const [verb = '', ...args] = line.split(' ');
        let payload: Buffer | undefined;
        if (verb === 'PUB' || verb === 'HPUB') {
          const total = Number(args[args.length - 1]);
          if (buffer.length < end + 2 + total + 2) return;
          payload = buffer.subarray(end + 2, end + 2 + total);
          buffer = buffer.subarray(end + 2 + total + 2);
        } else buffer = buffer.subarray(end + 2);
        const frame: ClientFrame = { verb, args, ...(payload && { payload }) };
        frames.push(frame);
        if (verb === 'CONNECT') connect = JSON.parse(args.join(' ')) as Record<string, unknown>;
        else if (verb === 'PING' && !handshaken) {
          handshaken = true;
          (behaviour.onHandshake ?? ((s: Socket) => s.write('PONG\r\n')))(socket, connect ?? {});
        } else if (verb === 'PING') (behaviour.onPing ?? ((s: Socket) => s.write('PONG\r\n')))(socket);
        else if (verb === 'PUB' || verb === 'HPUB') behaviour.onPublish?.(socket, frame);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('hostile NATS double has no port');
  return {
    url: `nats://127.0.0.1:${address.port}`,
    frames,
    get connections() {
      return state.connections;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
