// What every family slice shares: the route shape (a kernel route plus its seed family and
// stability label, which the capability inventory publishes), the dependencies handlers reach at
// request time, and the handler wrapper that turns a FrappeThrow into Frappe's error reply.

import type { Handler, IdempotencyStore, JsonSchema, Logger, ReadPool, Reply, RequestContext, Route, Store } from '../kernel/index.ts';
import type { ErpConfig, WebhookSecretName } from './config.ts';
import { WEBHOOK_SECRETS } from './config.ts';
import { asFrappeThrow, frappeError } from './frappe/envelope.ts';
import type { Sessions } from './frappe/sessions.ts';
import type { Stability } from './identity.ts';
import type { Supplier } from './suppliers.ts';

export interface ErpRoute extends Route {
  /** The seed's endpoint family: health, webhooks, workflows, framework (login, resources), ... */
  family: string;
  stability: Stability;
  /** The auth the capability inventory names, when the handler admits callers itself (auth 'none' for the kernel). */
  authLabel?: string;
  /** workflows.*: the input and output schemas the workflow-surface contract publishes. */
  contract?: { input: JsonSchema; output: JsonSchema };
}

/** What handlers use; built once per service, reached lazily so the manifest can build the table without it. */
export interface ErpDeps {
  config: ErpConfig;
  store: Store;
  /** Read-only connections off the event loop, for reads that walk many rows (lists). */
  reads: ReadPool;
  sessions: Sessions;
  /** The kernel's Idempotency-Key store (callbacks.* honour an optional key). */
  idempotency: IdempotencyStore;
  version: string;
  log: Logger;
  /** Milliseconds since the epoch. */
  now: () => number;
  /** The supplier master of ERP_SUPPLIERS_FILE as it is now (re-read when the file changed). */
  suppliers: () => readonly Supplier[];
  /** The service's own route table (the capability inventory reads it). */
  routes: () => readonly ErpRoute[];
}

export type DepsRef = () => ErpDeps;

/** Runs `fn`, answering a FrappeThrow (raised directly or inside a store write) with its Frappe error. */
export function frappeHandler(fn: (context: RequestContext) => Reply | Promise<Reply>): Handler {
  return async (context) => {
    try {
      return await fn(context);
    } catch (error) {
      const thrown = asFrappeThrow(error);
      if (thrown) return frappeError(thrown.excType, thrown.message, thrown.headers ? { headers: thrown.headers } : {});
      throw error;
    }
  };
}

/** The request body spec of a method that takes JSON or form arguments (or none). */
export const ARGS_BODY = {
  raw: true,
  optional: true,
  contentTypes: ['application/json', 'application/x-www-form-urlencoded'],
} as const;

/** A route's signature spec: the scheme of a configured secret, read at request time (unset: nothing verifies). */
export function signedBy(deps: DepsRef, name: WebhookSecretName) {
  return {
    scheme: WEBHOOK_SECRETS[name],
    secrets: () => {
      const value = deps().config.secrets[name];
      return value === undefined ? [] : [value];
    },
  };
}
