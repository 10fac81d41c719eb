// A service is a route table, its authenticators and its listeners. createService() checks the
// table once (patterns, authenticators, schemas) and returns something to listen() and close().

import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createLogger } from '../log.ts';
import type { Logger } from '../log.ts';
import { accessLogEnabled, logAccess } from './access-log.ts';
import { answerClientError, clientErrorReply } from './client-error.ts';
import { checkListenHost } from './loopback.ts';
import { handleRequest, SERVER_ERROR_LOGGER } from './pipeline.ts';
import { MAX_HEAD_BYTES } from './request-head.ts';
import type { BodyCheck, ProblemRenderer } from './pipeline.ts';
import type { Authenticator, JsonSchema, Route } from './route.ts';
import { createRouter } from './router.ts';
import { compileSchema as compileJsonSchema } from '../schema/index.ts';

/** DESIGN.md: header timeout 10 s, request timeout 30 s. */
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;
/** How long close() waits for in-flight requests before cutting connections. */
export const DRAIN_TIMEOUT_MS = 10_000;

export const MAIN_LISTENER = 'main';

export interface ListenerOptions {
  host?: string;
  port?: number;
  /** Authenticator name that runs before route resolution (a 401 then proves nothing about routes). */
  authenticate?: string;
}

export type SchemaCompiler = (schema: JsonSchema) => BodyCheck;

export interface ServiceOptions {
  name: string;
  version: string;
  routes: readonly Route[];
  /** Listener name -> address; `{ main: {} }` (127.0.0.1, port 0) by default. */
  listeners?: Record<string, ListenerOptions>;
  authenticators?: Record<string, Authenticator>;
  /** Compiles request schemas; the kernel's draft 2020-12 validator by default. */
  compileSchema?: SchemaCompiler;
  log?: Logger;
  env?: NodeJS.ProcessEnv;
  timeouts?: { headersMs?: number; requestMs?: number; checkIntervalMs?: number; drainMs?: number };
  /** Current time in milliseconds; Date.now by default (tests inject a clock). */
  now?: () => number;
  /** One JSON line per request on `<name>.access`; by default on unless AIRLOCK_ACCESS_LOG=0 in `env`. */
  accessLog?: boolean;
  /**
   * Re-renders the kernel's own problem replies (404, 405, signature 401, body 400/413/415/422,
   * idempotency 400/409/422, 500) for services whose wire envelope is not RFC 9457 (the ERP
   * service speaks Frappe's). Handler replies of that content type pass through it too.
   */
  renderProblem?: ProblemRenderer;
  /**
   * The WWW-Authenticate challenge every 401 of an authenticator carries when its reply names none
   * (RFC 9110), by authenticator name: `Bearer realm="<name>"` unless given here. A refused
   * signature's is `Signature realm="<name>", scheme="<scheme>"`.
   */
  challenges?: Readonly<Record<string, string>>;
  /** Runs after the last connection closed: close databases here. */
  onClose?: () => void | Promise<void>;
  /**
   * Called once per request when its answer is done, whoever gave it (a handler, or the kernel's
   * own 401, 404, 405, 413, 415, 422, 500): for metrics that must see every answer.
   */
  onResponse?: (answer: AnswerInfo) => void;
}

/**
 * One finished request: `status` is null when the connection closed before an answer was sent.
 * A request node:http could not parse (answered 400, 408 or 431) has an empty method and path.
 */
export interface AnswerInfo {
  listener: string;
  method: string;
  /** The request target's path, without the query. */
  path: string;
  status: number | null;
}

export interface ListeningLine {
  msg: 'listening';
  service: string;
  listener: string;
  url: string;
}

export interface Service {
  readonly name: string;
  readonly version: string;
  readonly routes: readonly Route[];
  readonly log: Logger;
  /** Binds every listener (after the loopback guard); resolves with one line per listener. */
  listen(): Promise<ListeningLine[]>;
  /** The base URL of a listener, once listening. */
  url(listener?: string): string;
  /** Stops accepting, finishes in-flight requests (up to the drain timeout), then runs onClose. */
  close(): Promise<void>;
}

/**
 * Creates a service from its route table.
 *
 * @example
 * const service = createService({ name: 'semantic', version, routes, listeners: { main: { port: 18020 } } });
 * for (const line of await service.listen()) console.log(JSON.stringify(line));
 */
export function createService(options: ServiceOptions): Service {
  const log = options.log ?? createLogger({ name: options.name, service: options.name });
  const listeners = options.listeners ?? { [MAIN_LISTENER]: {} };
  const authenticators = options.authenticators ?? {};
  const env = options.env ?? process.env;
  checkTable(options.routes, listeners, authenticators);
  const bodyChecks = new Map<Route, BodyCheck>();
  for (const route of options.routes) {
    if (route.request?.schema === undefined) continue;
    const compile = options.compileSchema ?? ((schema: JsonSchema) => compileJsonSchema(schema).validate);
    bodyChecks.set(route, compile(route.request.schema));
  }

  const servers = new Map<string, Server>();
  const urls = new Map<string, string>();
  let draining = false;
  let closing: Promise<void> | undefined;
  const serverErrorLog = log.child(SERVER_ERROR_LOGGER);
  const internalLog = log.child(`${options.name}.internal`);
  const accessLog = (options.accessLog ?? accessLogEnabled(env)) ? log.child(`${options.name}.access`) : undefined;

  for (const [listener, listenerOptions] of Object.entries(listeners)) {
    const router = createRouter(options.routes.filter((r) => (r.listener ?? MAIN_LISTENER) === listener));
    const server = createServer({
      headersTimeout: options.timeouts?.headersMs ?? HEADERS_TIMEOUT_MS,
      // Room for a long URL beside the headers: request-head.ts tells 414 from 431 within it.
      maxHeaderSize: MAX_HEAD_BYTES,
      requestTimeout: options.timeouts?.requestMs ?? REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: options.timeouts?.checkIntervalMs ?? 1_000,
    });
    server.on('request', (request, response) => {
      if (accessLog) logAccess(request, response, accessLog);
      if (options.onResponse) reportAnswer(request, response, listener, options.onResponse);
      void handleRequest(request, response, {
        listener,
        router,
        authenticators,
        listenerAuth: listenerOptions.authenticate,
        bodyChecks,
        log,
        serverErrorLog,
        internalLog,
        isDraining: () => draining,
        now: options.now ?? Date.now,
        ...(options.renderProblem && { renderProblem: options.renderProblem }),
        service: options.name,
        challenges: options.challenges ?? {},
      });
    });
    // Malformed requests, oversized headers and timeouts: a problem body when the socket still can, never a crash.
    server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
      const answers = socket.writable && error.code !== 'ECONNRESET';
      answerClientError(error, socket);
      if (answers && options.onResponse) options.onResponse({ listener, method: '', path: '', status: clientErrorReply(error.code).status });
    });
    servers.set(listener, server);
  }

  return {
    name: options.name,
    version: options.version,
    routes: options.routes,
    log,
    async listen() {
      const lines: ListeningLine[] = [];
      for (const [listener, server] of servers) {
        const { host = '127.0.0.1', port = 0 } = listeners[listener]!;
        const warning = checkListenHost(host, env);
        if (warning) log.warn(warning, { listener });
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(port, host, () => {
            server.off('error', reject);
            resolve();
          });
        });
        const address = server.address() as AddressInfo;
        const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
        const url = `http://${shownHost}:${address.port}`;
        urls.set(listener, url);
        lines.push({ msg: 'listening', service: options.name, listener, url });
      }
      return lines;
    },
    url(listener = MAIN_LISTENER) {
      const url = urls.get(listener);
      if (url === undefined) throw new TypeError(`Listener "${listener}" is not listening`);
      return url;
    },
    close() {
      closing ??= (async () => {
        draining = true;
        const drainMs = options.timeouts?.drainMs ?? DRAIN_TIMEOUT_MS;
        await Promise.all([...servers.values()].map((server) => closeServer(server, drainMs)));
        await options.onClose?.();
      })();
      return closing;
    },
  };
}

function closeServer(server: Server, drainMs: number): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), drainMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}

function checkTable(routes: readonly Route[], listeners: Record<string, ListenerOptions>, authenticators: Record<string, Authenticator>): void {
  for (const route of routes) {
    const where = `Route "${route.method} ${route.path}"`;
    const listener = route.listener ?? MAIN_LISTENER;
    if (!(listener in listeners)) throw new TypeError(`${where} names listener "${listener}", which the service does not have`);
    if (route.auth !== 'none' && !(route.auth in authenticators)) throw new TypeError(`${where} names authenticator "${route.auth}", which the service does not have`);
    if (route.signature && (!route.request || route.request.optional || !['POST', 'PUT', 'PATCH'].includes(route.method))) {
      // The signature is checked over the body bytes: a route without a required body would skip it.
      throw new TypeError(`${where} is signed, so it must be POST, PUT or PATCH with a required request body`);
    }
  }
  for (const [name, listener] of Object.entries(listeners)) {
    if (listener.authenticate !== undefined && !(listener.authenticate in authenticators)) {
      throw new TypeError(`Listener "${name}" names authenticator "${listener.authenticate}", which the service does not have`);
    }
  }
}

function reportAnswer(request: IncomingMessage, response: ServerResponse, listener: string, onResponse: (answer: AnswerInfo) => void): void {
  response.once('close', () => {
    const target = request.url ?? '/';
    const queryAt = target.indexOf('?');
    onResponse({ listener, method: request.method ?? 'GET', path: queryAt === -1 ? target : target.slice(0, queryAt), status: response.headersSent ? response.statusCode : null });
  });
}
