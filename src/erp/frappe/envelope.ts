// Frappe's wire envelope (DESIGN.md "Seed 002"): success is `{"message": value}`; an error is
// `{"exc_type", "exception", "_server_messages"}` with the framework's status code, where
// `_server_messages` is a JSON string of a list of JSON strings, as frappe/utils/response.py
// builds it. Never a traceback.

import type { Reply } from '../../kernel/index.ts';

/** The Frappe exception classes this service raises, with their http_status_code. */
export const EXC_STATUS = {
  ValidationError: 417,
  AuthenticationError: 401,
  PermissionError: 403,
  DoesNotExistError: 404,
  DuplicateEntryError: 409,
  /** Frappe's InvalidStatusError, answered 409: a transition the state table does not allow. */
  InvalidStatusError: 409,
  TooManyRequestsError: 429,
  /** Frappe raises it for a locked login (it has no status of its own there, so Frappe answers 500); 429 here. */
  SecurityException: 429,
  RequestEntityTooLarge: 413,
  UnsupportedMediaType: 415,
  ServiceUnavailable: 503,
  InternalServerError: 500,
} as const;

export type ExcType = keyof typeof EXC_STATUS;

const JSON_CONTENT = 'application/json; charset=utf-8';

/**
 * RFC 9110 (11.6.1): every 401 names how to authenticate. Frappe's own ways in are its token scheme
 * (`Authorization: token <api_key>:<api_secret>`) and Basic over the same pair (validate_auth takes
 * both), so those are the challenges of a 401 unless a surface names another.
 */
export const FRAPPE_CHALLENGE = 'token realm="erp", Basic realm="erp"';
/** The headers each signature scheme is sent in (DESIGN.md "Signed requests"). */
const SIGNATURE_HEADERS: Readonly<Record<string, string>> = {
  stripe: 'Stripe-Signature',
  'standard-webhooks': 'webhook-id webhook-timestamp webhook-signature',
  house: 'X-Signature X-Signature-Timestamp',
};

/**
 * The challenge of a signed surface (webhooks, callbacks, a workspace caller). No registered HTTP
 * scheme names a body HMAC, so the challenge names the realm, the scheme and its headers.
 */
export function signatureChallenge(scheme: string): string {
  return `Signature realm="erp", scheme="${scheme}", headers="${SIGNATURE_HEADERS[scheme] ?? 'X-Signature'}"`;
}

/** HTTP 200 `{"message": value}`. */
export function frappeMessage(message: unknown, headers?: Record<string, string>): Reply {
  return { status: 200, body: { message }, contentType: JSON_CONTENT, ...(headers && { headers }) };
}

/**
 * A Frappe error reply. `status` defaults to the class's own code; the text says what was
 * wrong and what to do, and is the one server message.
 *
 * @example
 * return frappeError('DoesNotExistError', 'Supplier Intake SUP-INT-2026-00009 not found');
 */
export function frappeError(excType: ExcType, text: string, init: { status?: number; headers?: Record<string, string> } = {}): Reply {
  const serverMessage = JSON.stringify({ message: text, title: 'Message', indicator: 'red', raise_exception: 1 });
  const status = init.status ?? EXC_STATUS[excType];
  const headers = status === 401 && init.headers?.['www-authenticate'] === undefined ? { ...init.headers, 'www-authenticate': FRAPPE_CHALLENGE } : init.headers;
  return {
    status,
    contentType: JSON_CONTENT,
    body: { exc_type: excType, exception: `frappe.exceptions.${excType}: ${text}`, _server_messages: JSON.stringify([serverMessage]) },
    ...(headers && { headers }),
  };
}

/** Thrown by ERP code below a handler (argument checks, lookups) and turned into its reply by `frappeHandler`. */
export class FrappeThrow extends Error {
  readonly excType: ExcType;
  /** Headers of the reply, e.g. a 401's own challenge. */
  readonly headers: Record<string, string> | undefined;
  constructor(excType: ExcType, text: string, headers?: Record<string, string>) {
    super(text);
    this.name = 'FrappeThrow';
    this.excType = excType;
    this.headers = headers;
  }
}

/** `frappe.throw`: a ValidationError (417) unless another class is named. */
export function frappeThrow(text: string, excType: ExcType = 'ValidationError'): never {
  throw new FrappeThrow(excType, text);
}

/** The FrappeThrow an error carries, itself or as the cause a store write wrapped it in. */
export function asFrappeThrow(error: unknown): FrappeThrow | undefined {
  if (error instanceof FrappeThrow) return error;
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause instanceof FrappeThrow ? cause : undefined;
}
