// OpenAPI 3.1 from a route table: the export is generated, never written by hand, so it cannot
// drift from what the router serves. `/*` families expand into one path per member.

import { PROBLEM_TYPE } from './reply.ts';
import type { JsonSchema, ParameterSpec, Route } from './route.ts';

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

export interface OpenApiOptions {
  info: OpenApiInfo;
  routes: readonly Route[];
  /** Security scheme per authenticator name used by the routes (`none` needs none). */
  securitySchemes?: Record<string, Record<string, unknown>>;
  /** Only routes of these listeners (all by default). */
  listeners?: readonly string[];
  servers?: readonly { url: string; description?: string }[];
  /**
   * A server per listener: each path item then names the servers of the listeners it is on
   * (OpenAPI's path-level `servers`), for a document that covers several listeners; an operation
   * on listeners with different authentication lists each (`x-airlock-auth`).
   */
  listenerServers?: Readonly<Record<string, { url: string; description?: string }>>;
}

const PROBLEM_SCHEMA = {
  type: 'object',
  required: ['type', 'title', 'status'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    errors: { type: 'array', items: { type: 'object', required: ['pointer', 'detail'], properties: { pointer: { type: 'string' }, detail: { type: 'string' } } } },
  },
} as const;

const STANDARD_ERRORS: Record<string, string> = {
  '400': 'Malformed JSON or nesting deeper than 64 levels',
  '401': 'Missing or invalid credential or signature',
  '403': 'Authenticated but not admitted',
  '404': 'Unknown route or record',
  '409': 'Idempotency-Key still in flight',
  '413': 'Body over its limit',
  '415': 'Wrong Content-Type',
  '422': 'Body fails its schema',
};

/** Builds the OpenAPI 3.1 document for `routes`. Throws TypeError for a family without members. */
export function exportOpenApi(options: OpenApiOptions): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const hoisted = new Map<string, { name: string; schema: Record<string, unknown> }>();
  const usedSchemes = new Set<string>();
  const routes = options.routes.filter((r) => !options.listeners || options.listeners.includes(r.listener ?? 'main'));
  for (const route of routes) {
    if (route.auth !== 'none') usedSchemes.add(route.auth);
    for (const { path, member } of expandPath(route)) {
      const method = route.method.toLowerCase();
      const existing = paths[path]?.[method] as Record<string, unknown> | undefined;
      if (existing) {
        // The same operation served on another listener: one operation, both listeners named.
        const listeners = existing['x-airlock-listeners'] as string[];
        existing['x-airlock-listeners'] = [...new Set([...listeners, route.listener ?? 'main'])].sort();
        if (options.listenerServers) mergeListenerAuth(existing, route);
        continue;
      }
      paths[path] = { ...paths[path], [method]: hoistIdentified(describeOperation(route, path, member), hoisted) };
    }
  }
  if (options.listenerServers) for (const item of Object.values(paths)) item['servers'] = pathServers(item, options.listenerServers);
  const sortedPaths = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const schemes = Object.fromEntries([...usedSchemes].sort().map((name) => {
    const scheme = options.securitySchemes?.[name];
    if (!scheme) throw new TypeError(`Authenticator "${name}" has no security scheme for the export`);
    return [name, scheme];
  }));
  return {
    openapi: '3.1.0',
    info: options.info,
    ...(options.servers && { servers: options.servers }),
    paths: sortedPaths,
    components: {
      schemas: { Problem: PROBLEM_SCHEMA, ...Object.fromEntries([...hoisted.values()].sort((a, b) => (a.name < b.name ? -1 : 1)).map((h) => [h.name, h.schema])) },
      ...(usedSchemes.size > 0 && { securitySchemes: schemes }),
    },
  };
}

/** The servers of the listeners a path item's operations are on, in listener order. */
function pathServers(item: Record<string, unknown>, servers: Readonly<Record<string, { url: string; description?: string }>>): { url: string; description?: string }[] {
  const listeners = new Set(Object.values(item).flatMap((operation) => (operation as { 'x-airlock-listeners': string[] })['x-airlock-listeners']));
  return [...listeners].sort().map((listener) => {
    const server = servers[listener];
    if (!server) throw new TypeError(`Listener "${listener}" has no server for the export`);
    return server;
  });
}

/**
 * One method and path on two listeners with different authentication (messaging's mailbox
 * `/healthz`, open, and owner-readback's, behind a bearer token) is one OpenAPI operation: its
 * `security` lists each listener's requirement as an alternative (`{}` for none), and
 * `x-airlock-auth` says which listener requires which, so neither requirement is lost.
 */
function mergeListenerAuth(operation: Record<string, unknown>, route: Route): void {
  const listener = route.listener ?? 'main';
  const security = operation['security'] as Record<string, unknown>[] | undefined;
  const earlier = security === undefined ? 'none' : Object.keys(security[0]!)[0]!;
  const byListener = (operation['x-airlock-auth'] as Record<string, string> | undefined)
    ?? Object.fromEntries((operation['x-airlock-listeners'] as string[]).filter((l) => l !== listener).map((l) => [l, earlier]));
  byListener[listener] = route.auth;
  const kinds = [...new Set(Object.values(byListener))].sort();
  if (kinds.length === 1) return;
  operation['x-airlock-auth'] = Object.fromEntries(Object.entries(byListener).sort(([a], [b]) => (a < b ? -1 : 1)));
  operation['security'] = kinds.map((auth) => (auth === 'none' ? {} : { [auth]: [] }));
  if (!String(operation['summary']).includes(route.summary)) operation['summary'] = `${String(operation['summary'])}; ${route.summary}`;
  const responses = operation['responses'] as Record<string, unknown>;
  for (const response of route.responses ?? []) if (response.status >= 400) responses[String(response.status)] ??= problemResponse(`${response.description} (listener ${listener})`);
  if (route.auth !== 'none') responses['401'] ??= problemResponse(`${STANDARD_ERRORS['401']!} (listener ${listener})`);
}

/**
 * Moves every request or response schema that carries an `$id` into components.schemas, once,
 * and refers to it there: an `$id` then appears once in the document, and the schema's own local
 * references (`#/$defs/x`) are rewritten to its place in the document, so a tool that resolves
 * references against the document root (not against the embedded `$id`) finds them too.
 */
function hoistIdentified(operation: Record<string, unknown>, hoisted: Map<string, { name: string; schema: Record<string, unknown> }>): Record<string, unknown> {
  const visitContent = (content: unknown) => {
    for (const media of Object.values((content ?? {}) as Record<string, { schema?: unknown }>)) {
      const schema = media.schema;
      if (typeof schema !== 'object' || schema === null || typeof (schema as { $id?: unknown }).$id !== 'string') continue;
      const id = (schema as { $id: string }).$id;
      let entry = hoisted.get(id);
      if (!entry) {
        const base = id.split(/[:/#]/).filter(Boolean).at(-1)?.replace(/[^A-Za-z0-9._-]/g, '_') || 'Schema';
        const taken = new Set([...hoisted.values()].map((h) => h.name));
        let name = base;
        for (let n = 2; taken.has(name) || name === 'Problem'; n++) name = `${base}_${n}`;
        const { $id: _dropped, ...rest } = schema as Record<string, unknown>;
        entry = { name, schema: relocateRefs(rest, `#/components/schemas/${name}`) as Record<string, unknown> };
        hoisted.set(id, entry);
      }
      media.schema = { $ref: `#/components/schemas/${entry.name}` };
    }
  };
  visitContent((operation['requestBody'] as { content?: unknown } | undefined)?.content);
  for (const response of Object.values((operation['responses'] ?? {}) as Record<string, { content?: unknown }>)) visitContent(response.content);
  return operation;
}

/** A copy of `schema` whose document-local references (`#...`) point at `base` instead of its root. */
function relocateRefs(schema: unknown, base: string): unknown {
  if (Array.isArray(schema)) return schema.map((item) => relocateRefs(item, base));
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    Object.defineProperty(out, key, {
      value: key === '$ref' && typeof value === 'string' && value.startsWith('#') ? `${base}${value.slice(1)}` : relocateRefs(value, base),
      enumerable: true, writable: true, configurable: true,
    });
  }
  return out;
}

/** `/a/:id` -> `/a/{id}`; a family -> one concrete path per member. */
function expandPath(route: Route): { path: string; member?: string }[] {
  const templated = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  if (!route.path.endsWith('/*')) return [{ path: templated }];
  if (!route.members || route.members.length === 0) {
    throw new TypeError(`Family route "${route.method} ${route.path}" lists no members for the export`);
  }
  const prefix = templated.slice(0, -1);
  return route.members.map((member) => ({ path: `${prefix}${member}`, member }));
}

function describeOperation(route: Route, path: string, member: string | undefined): Record<string, unknown> {
  const operation: Record<string, unknown> = {
    operationId: route.operationId ? (member ? `${route.operationId}_${slug(member)}` : route.operationId) : slug(`${route.method} ${path}`),
    summary: member ? `${route.summary}: ${member}` : route.summary,
  };
  if (route.tags) operation['tags'] = route.tags;
  const parameters = [
    ...[...path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => parameter(m[1]!, 'path', route.params?.[m[1]!])),
    ...Object.entries(route.query ?? {}).map(([name, spec]) => parameter(name, 'query', spec)),
  ];
  if (route.idempotency) {
    const hours = route.idempotency.store.retentionMs / 3_600_000;
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: route.idempotency.required,
      description: `Structured-field string or token; the same key and body replay the stored response (Idempotent-Replayed: true), another body is 422, a key in flight is 409. Keys are kept ${hours} h.`,
      schema: { type: 'string', maxLength: 257 },
    });
    operation['x-airlock-idempotency'] = { required: route.idempotency.required, retention_seconds: route.idempotency.store.retentionMs / 1000 };
  }
  if (parameters.length > 0) operation['parameters'] = parameters;
  if (route.request) {
    const types = route.request.contentTypes ?? ['application/json'];
    operation['requestBody'] = {
      required: route.request.optional !== true,
      content: Object.fromEntries(types.map((t) => [t, { schema: route.request?.schema ?? {} }])),
    };
  }
  const responses: Record<string, unknown> = {};
  for (const response of route.responses ?? [{ status: 200, description: 'OK' }]) {
    // An error status declared without a body schema is answered as a problem, as every error is.
    if (response.status >= 400 && response.schema === undefined && response.contentType === undefined) {
      responses[String(response.status)] = problemResponse(response.description);
      continue;
    }
    responses[String(response.status)] = {
      description: response.description,
      ...(response.status !== 204 && response.status !== 304 && { content: { [response.contentType ?? 'application/json']: { schema: response.schema ?? {} } } }),
    };
  }
  if (route.method === 'GET' && route.etag !== false) responses['304'] ??= { description: 'Not modified (If-None-Match matched the ETag)' };
  const errors = ['404'];
  if (route.auth !== 'none') errors.push('401', '403');
  if (route.request || route.idempotency) errors.push('400', '413', '415', '422');
  if (route.idempotency) errors.push('409');
  if (route.signature) errors.push('401');
  for (const status of errors.sort()) responses[status] ??= problemResponse(STANDARD_ERRORS[status]!);
  responses['default'] = problemResponse('Server error (logged once on uvicorn.error)');
  operation['responses'] = responses;
  if (route.auth !== 'none') operation['security'] = [{ [route.auth]: [] }];
  operation['x-airlock-listeners'] = [route.listener ?? 'main'];
  return operation;
}

function parameter(name: string, where: 'path' | 'query', spec: ParameterSpec | undefined): Record<string, unknown> {
  if (where === 'path' && spec?.example === undefined) {
    throw new TypeError(`Path parameter "${name}" has no example for the export`);
  }
  return {
    name,
    in: where,
    required: where === 'path' ? true : spec?.required === true,
    ...(spec?.description && { description: spec.description }),
    schema: (spec?.schema ?? { type: 'string' }) as JsonSchema,
    ...(spec?.example !== undefined && { example: spec.example }),
  };
}

function problemResponse(description: string): Record<string, unknown> {
  return { description, content: { [PROBLEM_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } } };
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[{}]/g, '').replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '');
}
