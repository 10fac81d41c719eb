// The contract each signature scheme file fulfils. verifySignature, signRequest and
// checkSecret hold the shared logic (rotation, tolerance, constant-time matching); a scheme
// only says how its headers read and write and how its secret becomes an HMAC key.

import type { IncomingHeaders, SignatureFailure, SignedHeaders } from './signature-types.ts';

/** What a scheme's headers say, before any secret is involved. */
export interface ParsedSignature {
  readonly ok: true;
  /** The text the HMAC covers before the raw body, built from the header values as received. */
  readonly prefix: string;
  /** Every candidate digest of the scheme's current version, each DIGEST_BYTES long. */
  readonly signatures: readonly Buffer[];
  readonly timestamp?: number;
  readonly id?: string;
}

export interface SchemeDefinition {
  /** The HMAC key a configured secret value stands for; undefined when it cannot be one. */
  decodeSecret(value: string): Buffer | undefined;
  /** How checkSecret describes a value decodeSecret refuses, after "secret value 2 of 3". */
  readonly secretProblem: string;
  parseHeaders(headers: IncomingHeaders): ParsedSignature | SignatureFailure;
  signedPrefix(timestamp: string, id: string | undefined): string;
  formatHeaders(digests: readonly Buffer[], timestamp: string, id: string | undefined): SignedHeaders;
  /** True when the headers carry one signature per secret value; else only the first value signs. */
  readonly signsWithEveryValue: boolean;
  readonly usesTimestamp: boolean;
  readonly requiresId: boolean;
}

/** The HMAC keys of the values the scheme can use; unusable values are left out. */
export function decodeKeys(definition: SchemeDefinition, values: readonly string[]): Buffer[] {
  return values.flatMap((value) => definition.decodeSecret(value) ?? []);
}
