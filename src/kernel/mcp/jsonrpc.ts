// JSON-RPC 2.0 as MCP uses it: one message per POST body (MCP removed batching in 2025-06-18),
// ids that are strings or numbers (never null), params that are objects. Classifies a parsed
// body and builds the replies the transport sends.

import type { Reply } from '../http/route.ts';
import { INVALID_REQUEST } from './protocol.ts';

export type RequestId = string | number;
export type JsonObject = Record<string, unknown>;

export type JsonRpcMessage =
  | { kind: 'request'; id: RequestId; method: string; params: JsonObject }
  | { kind: 'notification'; method: string; params: JsonObject }
  | { kind: 'response' }
  | { kind: 'invalid'; id: RequestId | undefined; reason: string };

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** True for a plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sorts a parsed body into request, notification, response or invalid (with the reason). */
export function classifyMessage(body: unknown): JsonRpcMessage {
  if (Array.isArray(body)) {
    return { kind: 'invalid', id: undefined, reason: 'Batch arrays are not accepted: MCP removed JSON-RPC batching in 2025-06-18, send one message per POST' };
  }
  if (!isJsonObject(body)) return { kind: 'invalid', id: undefined, reason: 'A JSON-RPC message must be a JSON object' };
  const id = readableId(body['id']);
  const invalid = (reason: string): JsonRpcMessage => ({ kind: 'invalid', id, reason });
  if (body['jsonrpc'] !== '2.0') return invalid('Member "jsonrpc" must be "2.0"');
  if (!('method' in body)) {
    if ('result' in body || 'error' in body) return { kind: 'response' };
    return invalid('A JSON-RPC message needs a "method" (request, notification) or a "result" or "error" (response)');
  }
  const method = body['method'];
  if (typeof method !== 'string' || method === '') return invalid('Member "method" must be a non-empty string');
  const params = body['params'] ?? {};
  if (!isJsonObject(params)) return invalid('Member "params" must be an object when present');
  if (!('id' in body)) return { kind: 'notification', method, params };
  if (id === undefined) return invalid('Member "id" must be a string or a finite number: MCP forbids null ids');
  if (method.startsWith('notifications/')) return invalid(`"${method}" is a notification and must not carry an id`);
  return { kind: 'request', id, method, params };
}

function readableId(id: unknown): RequestId | undefined {
  if (typeof id === 'string') return id;
  if (typeof id === 'number' && Number.isFinite(id)) return id;
  return undefined;
}

/** A successful JSON-RPC response. */
export function rpcResult(id: RequestId, result: JsonObject): JsonObject {
  return { jsonrpc: '2.0', id, result };
}

/** A JSON-RPC error response; without an id when the request's id could not be read. */
export function rpcError(id: RequestId | undefined, error: JsonRpcError): JsonObject {
  return { jsonrpc: '2.0', ...(id !== undefined && { id }), error };
}

/** A reply carrying one JSON-RPC message as application/json. */
export function rpcReply(status: number, message: JsonObject, headers?: Record<string, string>): Reply {
  return { status, body: message, ...(headers && { headers }) };
}

/** A transport-level refusal: an HTTP error status with a JSON-RPC error body that has no id. */
export function refusal(status: number, code: number, message: string, headers?: Record<string, string>): Reply {
  return rpcReply(status, rpcError(undefined, { code, message }), headers);
}

/** 400 for a body that is JSON but no acceptable JSON-RPC message. */
export function invalidRequest(id: RequestId | undefined, reason: string): Reply {
  return rpcReply(400, rpcError(id, { code: INVALID_REQUEST, message: `Invalid request: ${reason}` }));
}
