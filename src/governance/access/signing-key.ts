// The mail-admission signing key: one Ed25519 key pair kept as a private JWK in a file of mode
// 0600. By default the file lives in $AIRLOCK_DATA_DIR and is created at first start (the
// platform-api and control-api processes share it: whichever starts first creates it, the other
// reads it). A key file named by GOVERNANCE_MAIL_ADMISSION_KEY_FILE is never created: when it is
// missing the key store is missing, and every signing surface fails closed.

import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { chmodSync, existsSync, linkSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { canonicalJson } from '../../kernel/index.ts';

export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

export type SigningKey =
  | { ok: true; file: string; kid: string; publicJwk: PublicJwk; privateKey: KeyObject; created: boolean }
  | { ok: false; file: string; reason: string };

/** RFC 7638 thumbprint of an OKP key: base64url SHA-256 of {"crv","kty","x"} in that order, no spaces. */
export function jwkThumbprint(jwk: { crv: string; kty: string; x: string }): string {
  return createHash('sha256').update(canonicalJson({ crv: jwk.crv, kty: jwk.kty, x: jwk.x })).digest('base64url');
}

/** Loads the key in `file`, creating it first when `create` is set and it does not exist. Never throws. */
export function loadSigningKey(file: string, options: { create: boolean }): SigningKey {
  let created = false;
  try {
    if (!existsSync(file)) {
      if (!options.create) return { ok: false, file, reason: `key file "${file}" does not exist` };
      created = createKeyFile(file);
    }
    const mode = statSync(file).mode & 0o777;
    if ((mode & 0o077) !== 0) return { ok: false, file, reason: `key file "${file}" has mode ${mode.toString(8).padStart(4, '0')}: only its owner may read it (0600)` };
    const jwk = JSON.parse(readFileSync(file, 'utf8')) as { kty?: unknown; crv?: unknown; x?: unknown; d?: unknown };
    if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string' || typeof jwk.d !== 'string') {
      return { ok: false, file, reason: `key file "${file}" does not hold a private Ed25519 JWK` };
    }
    // node:crypto refuses a JWK whose x is not the public half of d.
    const privateKey = createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x, d: jwk.d }, format: 'jwk' });
    const x = (createPublicKey(privateKey).export({ format: 'jwk' }) as { x: string }).x;
    const publicJwk: PublicJwk = { kty: 'OKP', crv: 'Ed25519', x, kid: jwkThumbprint({ crv: 'Ed25519', kty: 'OKP', x }), alg: 'EdDSA', use: 'sig' };
    return { ok: true, file, kid: publicJwk.kid, publicJwk, privateKey, created };
  } catch (error) {
    return { ok: false, file, reason: `key file "${file}" is unusable: ${(error as Error).message}` };
  }
}

/**
 * Writes a new private JWK beside `file`, then links it into place: the link either appears whole
 * or fails with EEXIST, so two processes starting together keep one key and never read half of it.
 */
function createKeyFile(file: string): boolean {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  const temporary = `${file}.${process.pid}.${randomUUID()}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, d: jwk.d })}\n`, { flag: 'wx', mode: 0o600 });
  try {
    chmodSync(temporary, 0o600);
    linkSync(temporary, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(temporary);
  }
}
