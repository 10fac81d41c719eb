// Mail-admission signing: the public JWKS, and the admission and revocation readbacks the
// mail-management consumer reads with its token. An admission is a compact JWS (EdDSA) over an
// allowed mail-management projection; a revocation names the admission a fresh withdrawal ended.
// Both are derived from the projection rows and signed deterministically, so reading them twice
// gives the same bytes. A missing or unusable key store fails closed (awaiting_transport_owner).

import { json } from '../../kernel/index.ts';
import type { Reply } from '../../kernel/index.ts';
import { identityProjections } from '../database.ts';
import { failClosed } from '../routing/read-route.ts';
import type { GovernanceRuntime } from '../runtime.ts';
import { signCompactJws } from './jws.ts';
import { materializedAdmissions } from './materialized-admissions.ts';
import { decide, latestProjection, projectedScopeKeys, rowsBackwards, withdrawalsOf } from './projection.ts';
import type { ProjectionRow } from './projection.ts';

export const ISSUER = 'urn:airlock:governance';
export const AUDIENCE = 'urn:airlock:mail-management';
export const JWKS_PATH = '/api/v1/identity/mail-admission/jwks';

function keyStoreMissing(runtime: GovernanceRuntime, what: string): Reply | undefined {
  const key = runtime.signingKey;
  if (key.ok) return undefined;
  return failClosed(`Cannot ${what}: the mail-admission key store is missing (${key.reason})`, { reason: 'key_store_missing', projection_state: 'awaiting_transport_owner' });
}

/** GET /api/v1/identity/mail-admission/jwks: the public key, kid = RFC 7638 thumbprint. */
export function jwksReply(runtime: GovernanceRuntime): Reply {
  const missing = keyStoreMissing(runtime, 'publish the JWKS');
  if (missing) return missing;
  return json({ keys: [runtime.signingKey.ok ? runtime.signingKey.publicJwk : null] });
}

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);
const jtiOf = (row: ProjectionRow) => `adm_${row.sha256.slice(0, 32)}`;

function scopeKeys(runtime: GovernanceRuntime): string[] {
  return projectedScopeKeys(runtime.store.sqlite, 'mail_management');
}

/** GET /api/v1/identity/mail-admission/admissions: one signed admission per scope allowed now. */
export function admissionsReply(runtime: GovernanceRuntime): Reply {
  const missing = keyStoreMissing(runtime, 'sign admissions');
  if (missing || !runtime.signingKey.ok) return missing!;
  const key = runtime.signingKey;
  const now = runtime.now();
  const admissions = scopeKeys(runtime).flatMap((scopeKey) => {
    const decision = decide(latestProjection(runtime.store.sqlite, 'mail_management', scopeKey), now);
    if (decision.decision !== 'allow') return [];
    const row = decision.row!;
    const administrator = row.payload.observation['administrator'] as { subject_id: string };
    const claims = {
      iss: ISSUER,
      aud: AUDIENCE,
      sub: administrator.subject_id,
      jti: jtiOf(row),
      iat: seconds(row.payload.observed_at),
      exp: seconds(row.payload.expires_at!),
      scope: row.payload.scope,
      projection: { table: identityProjections.name, seq: row.seq, sha256: row.sha256 },
    };
    return [{ jti: claims.jti, scope: row.payload.scope, subject_id: claims.sub, issued_at: row.payload.observed_at, expires_at: row.payload.expires_at, token: signCompactJws(claims, key) }];
  });
  const materialized = materializedAdmissions(runtime, { iss: ISSUER, aud: AUDIENCE });
  return json({ admissions, count: admissions.length, materialized, kid: key.kid, jwks: JWKS_PATH, projection_state: 'published', authority: 'an admission admits its administrator to mail management for its scope, until it expires or is revoked; a materialized sender is admitted with its scopes as the commit of main says; nothing else' });
}

/** GET /api/v1/identity/mail-admission/revocations: admissions a fresh withdrawal ended, signed as one list. */
export function revocationsReply(runtime: GovernanceRuntime): Reply {
  const missing = keyStoreMissing(runtime, 'sign revocations');
  if (missing || !runtime.signingKey.ok) return missing!;
  const revocations: { jti: string; scope: Record<string, string>; revoked_at: string; reasons: string[] }[] = [];
  const sqlite = runtime.store.sqlite;
  for (const scopeKey of scopeKeys(runtime)) {
    // A refreshed projection does not end the admission before it: a withdrawal ends every
    // projection since the previous withdrawal that is still unexpired when it is observed. A
    // scope's projections are never older than the one before them (a write refuses a superseded
    // observation) and each is valid for the same hour, so they expire in seq order: read back
    // from the withdrawal, the first one already expired ends the walk. The read costs the
    // withdrawals and the hour before each, not the scope's history of hourly refreshes.
    let previous = 0;
    for (const withdrawal of withdrawalsOf(sqlite, 'mail_management', scopeKey)) {
      const observed = Date.parse(withdrawal.payload.observed_at);
      for (const row of rowsBackwards(sqlite, 'mail_management', scopeKey, previous, withdrawal.seq)) {
        if (row.payload.effect !== 'projected') continue;
        if (!(Date.parse(row.payload.expires_at!) > observed)) break;
        revocations.push({ jti: jtiOf(row), scope: row.payload.scope, revoked_at: withdrawal.recorded_at, reasons: withdrawal.payload.reasons });
      }
      previous = withdrawal.seq;
    }
  }
  revocations.sort((a, b) => (a.revoked_at < b.revoked_at ? -1 : a.revoked_at > b.revoked_at ? 1 : a.jti < b.jti ? -1 : 1));
  const latest = revocations.at(-1)?.revoked_at;
  const token = signCompactJws({ iss: ISSUER, aud: AUDIENCE, iat: latest ? seconds(latest) : 0, revoked: revocations.map((r) => r.jti) }, runtime.signingKey);
  return json({ revocations, count: revocations.length, kid: runtime.signingKey.kid, jwks: JWKS_PATH, token, projection_state: 'published' });
}
