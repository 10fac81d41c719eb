// An MCP client written from the Streamable HTTP transport text alone (no SDK), for tests:
// 2025-11-25 sessions (initialize, Mcp-Session-Id, MCP-Protocol-Version, DELETE) and
// 2026-07-28 stateless requests (`_meta` version claim, Mcp-Method, Mcp-Name).

import assert from 'node:assert/strict';
import { send, type TestResponse } from './http.ts';

export const ACCEPT = 'application/json, text/event-stream';
export const STATELESS = '2026-07-28';

export interface RpcAnswer {
  response: TestResponse;
  /** The parsed body, or undefined for an empty one. */
  message: Record<string, any> | undefined;
}

/** POSTs one body (a value to serialize, or raw text) with the transport's required headers. */
export async function post(url: string, body: unknown, headers: Record<string, string | undefined> = {}): Promise<RpcAnswer> {
  const response = await send(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const message = response.text === '' ? undefined : (response.json() as Record<string, any>);
  return { response, message };
}

/** A 2025-11-25 session: initialize, then every message with the session and version headers. */
export class SessionClient {
  readonly url: string;
  readonly headers: Record<string, string>;
  sessionId: string | undefined;
  protocolVersion: string | undefined;
  #nextId = 1;

  constructor(url: string, headers: Record<string, string> = {}) {
    this.url = url;
    this.headers = headers;
  }

  async initialize(protocolVersion = '2025-11-25'): Promise<RpcAnswer> {
    const answer = await post(this.url, {
      jsonrpc: '2.0',
      id: this.#nextId++,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'spec-test-client', version: '1.0.0' } },
    }, this.headers);
    assert.equal(answer.response.status, 200, answer.response.text);
    this.sessionId = answer.response.headers['mcp-session-id'] as string | undefined;
    this.protocolVersion = answer.message?.['result']?.['protocolVersion'];
    return answer;
  }

  sessionHeaders(): Record<string, string> {
    return {
      ...this.headers,
      ...(this.sessionId !== undefined && { 'mcp-session-id': this.sessionId }),
      ...(this.protocolVersion !== undefined && { 'mcp-protocol-version': this.protocolVersion }),
    };
  }

  notify(method: string, params?: Record<string, unknown>): Promise<RpcAnswer> {
    return post(this.url, { jsonrpc: '2.0', method, ...(params && { params }) }, this.sessionHeaders());
  }

  request(method: string, params?: Record<string, unknown>, headers: Record<string, string | undefined> = {}): Promise<RpcAnswer> {
    return post(this.url, { jsonrpc: '2.0', id: this.#nextId++, method, ...(params && { params }) }, { ...this.sessionHeaders(), ...headers });
  }

  delete(): Promise<TestResponse> {
    return send(this.url, { method: 'DELETE', headers: this.sessionHeaders() });
  }
}

/** The `_meta` a 2026-07-28 request must carry. */
export function statelessMeta(version = STATELESS): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': version,
    'io.modelcontextprotocol/clientInfo': { name: 'spec-test-client', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
}

/** One 2026-07-28 request with the metadata headers mirrored from the body (override any with `headers`). */
export function statelessRequest(url: string, method: string, params: Record<string, unknown> = {}, headers: Record<string, string | undefined> = {}): Promise<RpcAnswer> {
  const name = params['name'] ?? params['uri'];
  const mirrored: Record<string, string> = { 'mcp-protocol-version': STATELESS, 'mcp-method': method };
  if (typeof name === 'string' && ['tools/call', 'resources/read', 'prompts/get'].includes(method)) mirrored['mcp-name'] = name;
  return post(url, { jsonrpc: '2.0', id: `req-${method}`, method, params: { ...params, _meta: statelessMeta() } }, { ...mirrored, ...headers });
}
