// The public vocabulary of signed-request verification: scheme names, failure reasons,
// the shapes verifySignature and signRequest take and return, and the replay tolerance.

/** Timestamps further than this from `now`, in the past or the future, are rejected. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** Every scheme verifySignature and signRequest know (DESIGN.md, "Signed requests"). */
export const SIGNATURE_SCHEMES = ['stripe', 'standard-webhooks', 'github', 'house'] as const;

export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];

/**
 * Why a signed request was refused. Log it; tell the caller one fixed thing.
 * `invalid_secret` only ever comes from checkSecret: a verification with an unusable secret
 * value says `no_matching_signature`, so a caller cannot tell a configuration slip from a forgery.
 */
export type SignatureFailureReason =
  | 'no_secret_configured'
  | 'invalid_secret'
  | 'missing_signature'
  | 'malformed_signature'
  | 'missing_timestamp'
  | 'malformed_timestamp'
  | 'timestamp_out_of_tolerance'
  | 'missing_id'
  | 'malformed_id'
  | 'no_matching_signature';

export interface SignatureFailure {
  readonly ok: false;
  readonly reason: SignatureFailureReason;
}

/** A verified request: `id` is the delivery or message id, `timestamp` the signed unix seconds. */
export interface SignatureSuccess {
  readonly ok: true;
  readonly id?: string;
  readonly timestamp?: number;
}

export type SignatureResult = SignatureSuccess | SignatureFailure;

/**
 * Node-style incoming headers with lower-case names: `req.headers`, or `req.headersDistinct`
 * (one-element arrays are read as their value, longer arrays are duplicates and malformed).
 */
export type IncomingHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifySignatureOptions {
  /** The body bytes exactly as received, before any parsing. */
  readonly rawBody: Uint8Array;
  readonly headers: IncomingHeaders;
  /** Configured secrets; each may hold several comma-separated values (rotation). */
  readonly secrets: readonly string[];
  /** The current time in unix seconds. */
  readonly now: number;
}

export interface SignRequestOptions {
  readonly rawBody: Uint8Array;
  /** One configured secret; comma-separated values as for verification, the first is current. */
  readonly secret: string;
  /** Unix seconds; required by every scheme but github. */
  readonly now?: number;
  /** Message id (standard-webhooks, required) or delivery id (github, optional). */
  readonly id?: string;
}

/** Header names (lower case) and values to send with a signed request. */
export type SignedHeaders = Record<string, string>;

export type SecretCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'no_secret_configured' | 'invalid_secret'; readonly detail: string };
