// exportOpenApi() declares what a service sends (issue 29): its own error body where it is not
// RFC 9457, with the statuses it renames; media types other than JSON; redirects and empty
// answers without a body; no invented credential for a peer check; and each listener's
// authentication where one operation is served open on one listener and secured on another.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exportOpenApi, json } from '../../src/kernel/index.ts';
import type { ErrorBody, Route } from '../../src/kernel/index.ts';

const handler = () => json({});
type Doc = { paths: Record<string, Record<string, Record<string, unknown>>>; components: { schemas: Record<string, unknown>; securitySchemes?: Record<string, unknown> } };
const FRAPPE: ErrorBody = { name: 'FrappeError', mediaType: 'application/json', schema: { type: 'object', required: ['exc_type'] }, appliesTo: (path) => path.startsWith('/api/method/'), statuses: { 400: 417, 422: 417 } };
const responses = (doc: Doc, path: string, method = 'get') => doc.paths[path]![method]!['responses'] as Record<string, { description: string; content?: Record<string, { schema: unknown }>; headers?: unknown }>;
const schemaOf = (response: { content?: Record<string, { schema: unknown }> } | undefined) => Object.entries(response?.content ?? {}).map(([media, { schema }]) => [media, schema]);

test('exportOpenApi() declares a service\'s own error body on its paths, renaming statuses, and RFC 9457 elsewhere', () => {
  const routes: Route[] = [
    { method: 'POST', path: '/api/method/app.intake', auth: 'token', summary: 'Intake', request: { schema: { type: 'object' } }, responses: [{ status: 200, description: 'OK' }, { status: 409, description: 'Duplicate' }], handler },
    { method: 'GET', path: '/healthz', auth: 'none', summary: 'Health', handler },
  ];
  const doc = exportOpenApi({ info: { title: 't', version: '1' }, routes, securitySchemes: { token: { type: 'apiKey', in: 'header', name: 'Authorization' } }, errorBodies: [FRAPPE] }) as Doc;
  const intake = responses(doc, '/api/method/app.intake', 'post');
  assert.deepEqual(Object.keys(intake).sort(), ['200', '401', '403', '404', '409', '413', '415', '417', 'default']);
  for (const status of ['401', '409', '417', 'default']) assert.deepEqual(schemaOf(intake[status]), [['application/json', { $ref: '#/components/schemas/FrappeError' }]], status);
  assert.match(intake['417']!.description, /Malformed JSON.*; Body fails its schema/);
  assert.deepEqual(schemaOf(responses(doc, '/healthz')['default']), [['application/problem+json', { $ref: '#/components/schemas/Problem' }]]);
  assert.deepEqual(Object.keys(doc.components.schemas).sort(), ['FrappeError', 'Problem']);
});

test('exportOpenApi() leaves the Problem schema out when no operation answers with it', () => {
  const doc = exportOpenApi({ info: { title: 't', version: '1' }, routes: [{ method: 'GET', path: '/api/method/a', auth: 'none', summary: 'a', handler }], errorBodies: [FRAPPE] }) as Doc;
  assert.deepEqual(Object.keys(doc.components.schemas), ['FrappeError']);
});

test('exportOpenApi() admits both bodies where a route declares its own for a status an authenticator also answers', () => {
  const rpc = { type: 'object', required: ['jsonrpc', 'error'] };
  const routes: Route[] = [{ method: 'POST', path: '/mcp', auth: 'token', summary: 'MCP', request: {}, responses: [{ status: 200, description: 'OK' }, { status: 403, description: 'Origin not allowed', schema: rpc }], handler }];
  const body: ErrorBody = { ...FRAPPE, appliesTo: (path) => path === '/mcp', onlyFor: [401, 403] };
  const doc = exportOpenApi({ info: { title: 't', version: '1' }, routes, securitySchemes: { token: { type: 'http', scheme: 'bearer' } }, errorBodies: [body] }) as Doc;
  const answer = responses(doc, '/mcp', 'post');
  assert.deepEqual(schemaOf(answer['403']), [['application/json', { anyOf: [rpc, { $ref: '#/components/schemas/FrappeError' }] }]]);
  assert.deepEqual(schemaOf(answer['401']), [['application/json', { $ref: '#/components/schemas/FrappeError' }]]);
  assert.deepEqual(schemaOf(answer['415']), [['application/problem+json', { $ref: '#/components/schemas/Problem' }]], 'onlyFor keeps other statuses RFC 9457');
});

test('exportOpenApi() declares pages, stylesheets, byte ranges, redirects and empty answers as they are sent', () => {
  const routes: Route[] = [
    { method: 'GET', path: '/share/', auth: 'none', summary: 'Page', etag: false, responses: [{ status: 200, description: 'Page', contentType: 'text/html; charset=utf-8', schema: { type: 'string' } }, { status: 302, description: 'To the login' }], handler },
    { method: 'GET', path: '/file', auth: 'none', summary: 'Bytes', etag: false, responses: [{ status: 200, description: 'Bytes', contentType: '*/*' }], handler },
    { method: 'POST', path: '/renditions', auth: 'none', summary: 'Request', responses: [{ status: 202, description: 'Accepted', empty: true }], handler },
  ];
  const doc = exportOpenApi({ info: { title: 't', version: '1' }, routes }) as Doc;
  const page = responses(doc, '/share/');
  assert.deepEqual(schemaOf(page['200']), [['text/html; charset=utf-8', { type: 'string' }]]);
  assert.equal(page['302']!.content, undefined);
  assert.deepEqual(page['302']!.headers, { Location: { description: 'Where the client goes next', schema: { type: 'string' } } });
  assert.deepEqual(schemaOf(responses(doc, '/file')['200']), [['*/*', {}]]);
  assert.equal(responses(doc, '/renditions', 'post')['202']!.content, undefined);
});

test('exportOpenApi() gives a peer-checked route no security scheme and no invented header', () => {
  const routes: Route[] = [{ method: 'GET', path: '/probes/-ready-', auth: 'loopback', summary: 'Ready', handler }];
  const doc = exportOpenApi({ info: { title: 't', version: '1' }, routes, peerChecks: { loopback: 'Loopback peers only' } }) as Doc;
  const ready = doc.paths['/probes/-ready-']!['get']!;
  assert.equal(ready['security'], undefined);
  assert.equal(ready['x-airlock-peer-check'], 'Loopback peers only');
  assert.equal(doc.components.securitySchemes, undefined);
  assert.deepEqual(Object.keys(ready['responses'] as object).sort(), ['200', '304', '403', '404', 'default']);
});

test('exportOpenApi() declares each listener\'s authentication for an operation open on one and secured on another', () => {
  const read = { method: 'GET', path: '/api/v1/things', summary: 'Things', handler } as const;
  const routes: Route[] = [{ ...read, listener: 'worker', auth: 'operator' }, { ...read, listener: 'platform', auth: 'none' }];
  const doc = exportOpenApi({ info: { title: 't', version: '1' }, routes, securitySchemes: { operator: { type: 'http', scheme: 'bearer' } } }) as Doc;
  const things = doc.paths['/api/v1/things']!['get']!;
  assert.deepEqual(things['security'], [{ operator: [] }, {}]);
  assert.deepEqual(things['x-airlock-listener-auth'], { platform: 'none', worker: 'operator' });
  assert.deepEqual(things['x-airlock-listeners'], ['platform', 'worker']);
  // Open listener first in the table: 401 and 403 are still declared for the secured one.
  const reversed = exportOpenApi({ info: { title: 't', version: '1' }, routes: [...routes].reverse(), securitySchemes: { operator: { type: 'http', scheme: 'bearer' } } }) as Doc;
  assert.ok(['401', '403'].every((s) => s in (reversed.paths['/api/v1/things']!['get']!['responses'] as object)));
});
