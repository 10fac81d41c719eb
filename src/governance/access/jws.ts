// Compact JWS (RFC 7515) signed with EdDSA (RFC 8037) on node:crypto. Header and payload are
// serialized as canonical JSON, and Ed25519 signatures are deterministic, so the same claims
// always give the same token.

import { sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { canonicalJson } from '../../kernel/index.ts';
import type { JsonValue } from '../../kernel/index.ts';

export const JWS_TYPE = 'JWT';

/** `<header>.<payload>.<signature>`, each base64url. */
export function signCompactJws(claims: Record<string, unknown>, key: { kid: string; privateKey: KeyObject }): string {
  const header = { alg: 'EdDSA', kid: key.kid, typ: JWS_TYPE };
  const input = `${encode(header)}.${encode(claims)}`;
  return `${input}.${sign(null, Buffer.from(input, 'ascii'), key.privateKey).toString('base64url')}`;
}

function encode(value: Record<string, unknown>): string {
  return Buffer.from(canonicalJson(value as JsonValue), 'utf8').toString('base64url');
}
