// A loopback HTTP server whose every answer is a 200 with a body that never ends: for the tests
// that show a client stops reading at its bound instead of buffering until its timeout.

import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Starts the server; its URL, and close(). */
export async function startEndlessServer(contentType = 'application/json'): Promise<{ url: string; server: Server; close: () => void }> {
  const chunk = Buffer.alloc(1 << 20, 0x20);
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': contentType });
    const pump = () => {
      while (!res.destroyed && res.write(chunk));
    };
    res.on('drain', pump);
    req.on('close', () => res.destroy());
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, close: () => server.close() };
}
