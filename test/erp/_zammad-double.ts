// A Zammad-speaking test double on loopback: the two REST calls support_desk_outbound makes
// (POST /api/v1/ticket_articles answers 201 with the article, PUT /api/v1/tickets/{id} answers 200
// with the ticket, as Zammad's API does), token auth as Zammad checks it
// (Authorization: Token token=<token>, else 401 {"error": ...}), every request recorded byte for
// byte, and misbehaviour on request: a 500, a 422 with Zammad's error body, or no answer at all.

import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';

export interface RecordedCall {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Misbehaviour = 'none' | 'error' | 'unprocessable' | 'hang';

export interface ZammadDouble {
  url: string;
  calls: RecordedCall[];
  misbehave(mode: Misbehaviour): void;
  close(): Promise<void>;
}

export async function startZammadDouble(token: string): Promise<ZammadDouble> {
  const calls: RecordedCall[] = [];
  let mode: Misbehaviour = 'none';
  let nextId = 100;
  const hanging = new Set<import('node:http').ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      calls.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      const reply = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(value));
      };
      if (mode === 'hang') return void hanging.add(res);
      if (req.headers.authorization !== `Token token=${token}`) return reply(401, { error: 'Authentication required', error_human: 'Authentication required' });
      if (mode === 'error') return reply(500, { error: 'internal error' });
      if (mode === 'unprocessable') return reply(422, { error: 'Ticket is locked', error_human: 'Ticket is locked' });
      const parsed = JSON.parse(body) as Record<string, unknown>;
      if (req.method === 'POST' && req.url === '/api/v1/ticket_articles') return reply(201, { id: nextId++, ...parsed, created_at: new Date().toISOString() });
      const ticket = /^\/api\/v1\/tickets\/([0-9]+)$/.exec(req.url ?? '');
      if (req.method === 'PUT' && ticket) return reply(200, { id: Number(ticket[1]), state: parsed['state'], updated_at: new Date().toISOString() });
      return reply(404, { error: 'No route matches' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    calls,
    misbehave: (next) => void (mode = next),
    close: () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
