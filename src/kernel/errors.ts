// The one error type of Airlock. Expected failures carry a stable `code` that callers
// narrow with `switch`; programmer mistakes stay plain TypeError/RangeError.

/** Every code an AirlockError can carry. Add new codes here, never ad hoc strings. */
export type AirlockErrorCode =
  | 'config_invalid'
  | 'usage'
  | 'environment'
  | 'listen_refused'
  | 'body_too_large'
  | 'unsupported_media_type'
  | 'malformed_json'
  | 'too_deep'
  | 'client_aborted'
  | 'schema_invalid'
  | 'schema_compile'
  | 'store_version'
  | 'store_open'
  | 'store_migration'
  | 'store_write'
  | 'store_closed'
  | 'store_read'
  | 'read_budget'
  | 'append_only'
  | 'signature'
  | 'idempotency'
  | 'bus_unavailable'
  | 'bus_payload_too_large'
  | 'bus_timeout'
  | 'evidence_replication';

/**
 * An expected, reportable failure.
 *
 * @example
 * throw new AirlockError('config_invalid', 'Missing SEMANTIC_OPERATOR_TOKEN: set it or SEMANTIC_OPERATOR_TOKEN_FILE');
 */
export class AirlockError extends Error {
  readonly code: AirlockErrorCode;
  /** Extra machine-readable detail (never a secret). */
  readonly details: readonly string[];

  constructor(code: AirlockErrorCode, message: string, options?: { cause?: unknown; details?: readonly string[] }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AirlockError';
    this.code = code;
    this.details = options?.details ?? [];
  }
}

/** True when `value` is an AirlockError, optionally with the given code. */
export function isAirlockError(value: unknown, code?: AirlockErrorCode): value is AirlockError {
  return value instanceof AirlockError && (code === undefined || value.code === code);
}
