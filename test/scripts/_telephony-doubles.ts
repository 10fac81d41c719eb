// Test doubles of the systems telephony_verify reads, over real HTTP on loopback, each able to
// misbehave on request: an agent runtime (GET /healthz), a telephony runtime speaking Asterisk
// ARI's GET /ari/asterisk/info (HTTP Basic; 401 with ARI's body and challenge without it), and a
// GUI operator origin whose port also stands for the host-local GUI backend.

import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Double<M extends string> {
  url: string;
  port: number;
  /** How it answers from now on: 'good' or a misbehaviour. */
  mode: M | 'good';
  close(): Promise<void>;
}

async function serve<M extends string>(answer: (mode: M | 'good', req: IncomingMessage, res: ServerResponse) => void): Promise<Double<M>> {
  const double = { mode: 'good' } as Double<M>;
  const server: Server = createServer((req, res) => answer(double.mode, req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(double, {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  });
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
}

export type AgentRuntimeFault = 'degraded' | 'server-error' | 'not-json';

export function agentRuntimeDouble(): Promise<Double<AgentRuntimeFault>> {
  return serve<AgentRuntimeFault>((mode, req, res) => {
    if (req.url !== '/healthz') return send(res, 404, '{"detail":"Not Found"}');
    if (mode === 'server-error') return send(res, 500, '{"detail":"boom"}');
    if (mode === 'not-json') return send(res, 200, 'OK', { 'content-type': 'text/plain' });
    send(res, 200, JSON.stringify({ status: mode === 'degraded' ? 'degraded' : 'ok', version: '2.3.1' }));
  });
}

export const ARI_USER = 'verify';
export const ARI_PASSWORD = 's3cret-ari';

export type TelephonyFault = 'unprotected' | 'missing' | 'refuses';

/** Asterisk ARI: GET /ari/asterisk/info needs HTTP Basic (or api_key); without it 401 {"error":"Authentication required"}. */
export function telephonyDouble(): Promise<Double<TelephonyFault>> {
  const expected = `Basic ${Buffer.from(`${ARI_USER}:${ARI_PASSWORD}`).toString('base64')}`;
  const info = { build: { os: 'Linux', kernel: '6.1.0', machine: 'x86_64', date: '2026-01-01 00:00:00 UTC', user: 'build' }, system: { version: '20.5.0', entity_id: '00:00:00:00:00:01' }, config: { name: '', default_language: 'en' }, status: { startup_time: '2026-11-24T10:00:00.000+0000', last_reload_time: '2026-11-24T10:00:00.000+0000' } };
  return serve<TelephonyFault>((mode, req, res) => {
    if (mode === 'missing' || !req.url?.startsWith('/ari/asterisk/info')) return send(res, 404, '{"message":"Resource not found"}');
    const authorized = mode === 'unprotected' || (mode !== 'refuses' && req.headers.authorization === expected);
    if (!authorized) return send(res, 401, '{"error":"Authentication required"}', { 'www-authenticate': 'Basic realm="Asterisk REST Interface"' });
    send(res, 200, JSON.stringify(info));
  });
}

export type GuiFault = 'bad-gateway';

export function guiDouble(): Promise<Double<GuiFault>> {
  return serve<GuiFault>((mode, _req, res) => {
    if (mode === 'bad-gateway') return send(res, 502, '<html>Bad Gateway</html>', { 'content-type': 'text/html' });
    send(res, 200, '<!doctype html><title>Operator console</title>', { 'content-type': 'text/html; charset=utf-8' });
  });
}
