// Server-side sessions of the share UI and the repository API: a random id in a cookie
// (HttpOnly, SameSite=Lax, Secure and the __Host- prefix when the public URL is https); the
// database keeps only its SHA-256, the subject, a CSRF token and the ID token (for the
// provider's logout). Ending a session deletes its row, so the cookie is dead at once.

import { statement } from '../kernel/index.ts';
import { createHash, randomBytes } from 'node:crypto';
import type { Store } from '../kernel/index.ts';
import { CONTENT_EVENTS } from './database.ts';

export interface Session {
  idHash: string;
  subject: string;
  displayName: string;
  csrf: string;
  idToken: string;
  /** The provider's `groups` claim at login: the groups whose grants apply to this user. */
  groups: string[];
  expiresAt: number;
}

export interface CookieNames {
  session: string;
  state: string;
  secure: boolean;
}

export function cookieNames(publicUrl: string): CookieNames {
  const secure = publicUrl.startsWith('https:');
  return { session: secure ? '__Host-content_session' : 'content_session', state: secure ? '__Host-content_oidc_state' : 'content_oidc_state', secure };
}

export function hashId(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}

/** The value of cookie `name` in a Cookie header, if present once. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  const values = header.split(';').map((part) => part.trim()).filter((part) => part.startsWith(`${name}=`)).map((part) => part.slice(name.length + 1));
  return values.length === 1 ? values[0] : undefined;
}

/** A Set-Cookie value; maxAge 0 deletes. */
export function setCookie(name: string, value: string, options: { secure: boolean; maxAge: number }): string {
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Lax${options.secure ? '; Secure' : ''}; Max-Age=${options.maxAge}`;
}

export async function createSession(store: Store, init: { subject: string; displayName: string; idToken: string; groups: string[]; ttlSeconds: number; nowSeconds: number }): Promise<{ id: string; session: Session }> {
  const id = randomBytes(32).toString('base64url');
  const session: Session = { idHash: hashId(id), subject: init.subject, displayName: init.displayName, csrf: randomBytes(24).toString('base64url'), idToken: init.idToken, groups: init.groups, expiresAt: init.nowSeconds + init.ttlSeconds };
  await store.write((sqlite, tx) => {
    statement(sqlite, 'DELETE FROM sessions WHERE expires_at < ?').run(init.nowSeconds);
    statement(sqlite, 'INSERT INTO sessions (id_hash, subject, display_name, csrf, id_token, groups, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(session.idHash, session.subject, session.displayName, session.csrf, session.idToken, JSON.stringify(session.groups), init.nowSeconds, session.expiresAt);
    tx.append(CONTENT_EVENTS, { node_id: '', action: 'session-started', payload: { actor: init.subject, session: session.idHash.slice(0, 16), groups: session.groups, expires_at: session.expiresAt } });
  });
  return { id, session };
}

export function findSession(store: Store, id: string | undefined, nowSeconds: number): Session | undefined {
  if (id === undefined || !/^[A-Za-z0-9_-]{43}$/.test(id)) return undefined;
  const row = statement(store.sqlite, 'SELECT * FROM sessions WHERE id_hash = ? AND expires_at >= ?').get(hashId(id), nowSeconds);
  if (!row) return undefined;
  return { idHash: String(row['id_hash']), subject: String(row['subject']), displayName: String(row['display_name']), csrf: String(row['csrf']), idToken: String(row['id_token']), groups: JSON.parse(String(row['groups'])) as string[], expiresAt: Number(row['expires_at']) };
}

export async function endSession(store: Store, session: Session): Promise<void> {
  await store.write((sqlite, tx) => {
    statement(sqlite, 'DELETE FROM sessions WHERE id_hash = ?').run(session.idHash);
    tx.append(CONTENT_EVENTS, { node_id: '', action: 'session-ended', payload: { actor: session.subject, session: session.idHash.slice(0, 16) } });
  });
}
