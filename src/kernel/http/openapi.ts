// OpenAPI 3.1 from a route table: the export is generated, never written by hand, so it cannot
// drift from what the router serves. `/*` families expand into one path per member.

import { isDeepStrictEqual } from 'node:util';
import { PROBLEM_TYPE } from './reply.ts';
import type { JsonSchema, ParameterSpec, Route } from './route.ts';

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

/**
 * The error body of a service whose errors are not RFC 9457 problems: Frappe's envelope on the ERP
 * service's Frappe paths, Alfresco's error body on the content repository. The export declares it
 * for every error its paths answer, so a generated client reads the errors the service sends.
 */
export interface ErrorBody {
  /** Its name under components.schemas, e.g. `FrappeError`. */
  name: string;
  /** The media type it is sent as, e.g. `application/json`. */
  mediaType: string;
  schema: JsonSchema;
  /** Whether a route path (as the table writes it, `/a/:id`) answers its errors with it; every path when absent. */
  appliesTo?: (path: string) => boolean;
  /** Only these kernel statuses take it (an authenticator's 401 and 403, say); every error status when absent. */
  onlyFor?: readonly number[];
  /** A kernel status the service answers with another (Frappe answers 400 and 422 with 417). */
  statuses?: Readonly<Record<number, number>>;
}

export interface OpenApiOptions {
  info: OpenApiInfo;
  routes: readonly Route[];
  /** Security scheme per authenticator name used by the routes (`none` needs none). */
  securitySchemes?: Record<string, Record<string, unknown>>;
  /**
   * Authenticators that ask for no credential but check the peer (loopback callers only): the
   * operation then has no security requirement, and `x-airlock-peer-check` says what is checked.
   * No invented header a generated client would have to send.
   */
  peerChecks?: Readonly<Record<string, string>>;
  /** Error bodies other than RFC 9457, by path (the first that applies wins). */
  errorBodies?: readonly ErrorBody[];
  /** Only routes of these listeners (all by default). */
  listeners?: readonly string[];
  servers?: readonly { url: string; description?: string }[];
  /**
   * A server per listener: each path item then names the servers of the listeners it is on
   * (OpenAPI's path-level `servers`), for a document that covers several listeners; an operation
   * on listeners with different authentication lists each (`x-airlock-listener-auth`).
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

/** Names the error bodies may take in components.schemas; a hoisted schema takes another. */
const RESERVED_NAMES = new Set(['Problem', 'FrappeError', 'AlfrescoError']);

const PROBLEM_BODY: ErrorBody = { name: 'Problem', mediaType: PROBLEM_TYPE, schema: PROBLEM_SCHEMA };

/** How one operation's errors are declared: which body per status, and which status the service sends for a kernel status. */
interface ErrorStyle {
  response: (status: number | 'default', description: string) => Record<string, unknown>;
  status: (status: number) => number;
}

function errorStyle(route: Route, options: OpenApiOptions, used: Map<string, JsonSchema>): ErrorStyle {
  const bodyFor = (status: number | 'default') =>
    options.errorBodies?.find((b) => (b.appliesTo === undefined || b.appliesTo(route.path)) && (b.onlyFor === undefined || (status !== 'default' && b.onlyFor.includes(status)))) ?? PROBLEM_BODY;
  return {
    response: (status, description) => {
      const body = bodyFor(status);
      used.set(body.name, body.schema);
      return { description, content: { [body.mediaType]: { schema: { $ref: `#/components/schemas/${body.name}` } } } };
    },
    status: (status) => bodyFor(status).statuses?.[status] ?? status,
  };
}

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
  const usedErrors = new Map<string, JsonSchema>();
  /** Per operation: the authenticator of each listener that serves it, and how its errors read. */
  const served = new Map<Record<string, unknown>, { auth: Record<string, string>; errors: ErrorStyle }>();
  const routes = options.routes.filter((r) => !options.listeners || options.listeners.includes(r.listener ?? 'main'));
  for (const route of routes) {
    if (route.auth !== 'none' && options.peerChecks?.[route.auth] === undefined) usedSchemes.add(route.auth);
    for (const { path, member } of expandPath(route)) {
      const method = route.method.toLowerCase();
      const existing = paths[path]?.[method] as Record<string, unknown> | undefined;
      if (existing) {
        // The same operation served on another listener: one operation, both listeners named.
        const listeners = existing['x-airlock-listeners'] as string[];
        existing['x-airlock-listeners'] = [...new Set([...listeners, route.listener ?? 'main'])].sort();
        served.get(existing)!.auth[route.listener ?? 'main'] = route.auth;
        continue;
      }
      const errors = errorStyle(route, options, usedErrors);
      const operation = hoistIdentified(describeOperation(route, { path, member, errors, peerCheck: options.peerChecks?.[route.auth] }), hoisted);
      served.set(operation, { auth: { [route.listener ?? 'main']: route.auth }, errors });
      paths[path] = { ...paths[path], [method]: operation };
    }
  }
  if (options.listenerServers) for (const item of Object.values(paths)) item['servers'] = pathServers(item, options.listenerServers);
  for (const [operation, { auth, errors }] of served) describeListenerAuth(operation, auth, errors, options);
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
      schemas: {
        ...Object.fromEntries([...usedErrors].sort(([a], [b]) => (a < b ? -1 : 1))),
        ...Object.fromEntries([...hoisted.values()].sort((a, b) => (a.name < b.name ? -1 : 1)).map((h) => [h.name, h.schema])),
      },
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
 * An operation served on several listeners with different authenticators (governance's reads: no
 * credential on the public platform listener, the operator token on the worker) declares each
 * listener's, and its security lists the alternatives, `{}` among them when a listener asks for
 * none: a client of the open listener is then not told to send a credential it does not need.
 */
function describeListenerAuth(operation: Record<string, unknown>, auth: Record<string, string>, errors: ErrorStyle, options: OpenApiOptions): void {
  const distinct = [...new Set(Object.values(auth))];
  if (distinct.length < 2) return;
  operation['x-airlock-listener-auth'] = Object.fromEntries(Object.entries(auth).sort(([a], [b]) => (a < b ? -1 : 1)));
  const credentials = distinct.filter((name) => name !== 'none' && options.peerChecks?.[name] === undefined).sort();
  const open = credentials.length < distinct.length;
  operation['security'] = [...credentials.map((name) => ({ [name]: [] })), ...(open ? [{}] : [])];
  const responses = operation['responses'] as Record<string, unknown>;
  for (const status of credentials.length > 0 ? [401, 403] : []) {
    responses[String(errors.status(status))] ??= errors.response(status, STANDARD_ERRORS[String(status)]!);
  }
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
        for (let n = 2; taken.has(name) || RESERVED_NAMES.has(name); n++) name = `${base}_${n}`;
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

interface OperationPlace {
  path: string;
  member: string | undefined;
  errors: ErrorStyle;
  /** Set when the route's authenticator checks the peer, not a credential. */
  peerCheck: string | undefined;
}

function describeOperation(route: Route, { path, member, errors: style, peerCheck }: OperationPlace): Record<string, unknown> {
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
  const addError = (status: number, description: string) => {
    const key = String(style.status(status));
    const existing = responses[key] as { description: string } | undefined;
    if (existing === undefined) responses[key] = style.response(status, description);
    else if (!existing.description.includes(description)) existing.description = `${existing.description}; ${description}`;
  };
  for (const response of route.responses ?? [{ status: 200, description: 'OK' }]) {
    // An error status declared without a body is answered in the service's error body, as every error is.
    if (response.status >= 400 && response.schema === undefined && response.contentType === undefined) {
      addError(response.status, response.description);
      continue;
    }
    const bodiless = response.empty === true || response.status === 204 || response.status === 304 || (response.status >= 300 && response.status < 400 && response.schema === undefined && response.contentType === undefined);
    responses[String(response.status)] = {
      description: response.description,
      ...(response.status >= 300 && response.status < 400 && response.status !== 304 && { headers: { Location: { description: 'Where the client goes next', schema: { type: 'string' } } } }),
      ...(!bodiless && { content: { [response.contentType ?? 'application/json']: { schema: response.schema ?? {} } } }),
    };
  }
  if (route.method === 'GET' && route.etag !== false) responses['304'] ??= { description: 'Not modified (If-None-Match matched the ETag)' };
  const errors = ['404'];
  if (route.auth !== 'none') errors.push(...(peerCheck === undefined ? ['401', '403'] : ['403']));
  if (route.request || route.idempotency) errors.push('400', '413', '415', '422');
  if (route.idempotency) errors.push('409');
  if (route.signature) errors.push('401');
  const kernel = kernelStatuses(route);
  for (const status of [...new Set(errors)].sort().map(Number)) {
    const own = responses[String(status)] as { content?: Record<string, { schema: unknown }> } | undefined;
    // A status the route declared with its own body may still come from the kernel or an
    // authenticator, in the service's error body: the declaration admits both.
    if (own?.content !== undefined && style.status(status) === status && kernel.has(status)) admitErrorBody(own.content, style.response(status, ''));
    else if (own === undefined || style.status(status) !== status) addError(status, STANDARD_ERRORS[status]!);
  }
  responses['default'] = style.response('default', 'Server error (logged once on uvicorn.error)');
  operation['responses'] = responses;
  if (route.auth !== 'none' && peerCheck === undefined) operation['security'] = [{ [route.auth]: [] }];
  if (peerCheck !== undefined) operation['x-airlock-peer-check'] = peerCheck;
  operation['x-airlock-listeners'] = [route.listener ?? 'main'];
  return operation;
}

/** The statuses the kernel or the route's authenticator can answer for `route` before its handler runs. */
function kernelStatuses(route: Route): Set<number> {
  const statuses = new Set<number>();
  if (route.auth !== 'none') [401, 403].forEach((s) => statuses.add(s));
  if (route.signature) statuses.add(401);
  if (route.request) {
    statuses.add(413);
    if (!(route.request.stream && route.request.contentTypes === undefined)) statuses.add(415);
    if (!route.request.raw && !route.request.stream) [400, 422].forEach((s) => statuses.add(s));
  }
  if (route.idempotency) [400, 409, 422].forEach((s) => statuses.add(s));
  return statuses;
}

/** Adds `error`'s media types to `content`; where both name one media type, either schema is admitted. */
function admitErrorBody(content: Record<string, { schema: unknown }>, error: Record<string, unknown>): void {
  for (const [media, { schema }] of Object.entries(error['content'] as Record<string, { schema: unknown }>)) {
    const own = content[media];
    if (own === undefined) content[media] = { schema };
    else if (!isDeepStrictEqual(own.schema, schema) && !(own.schema as { anyOf?: unknown[] }).anyOf?.some((s) => isDeepStrictEqual(s, schema))) own.schema = { anyOf: [own.schema, schema] };
  }
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

function slug(text: string): string {
  return text.toLowerCase().replace(/[{}]/g, '').replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '');
}
