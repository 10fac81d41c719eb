// Sessions of the session-era revisions (2025-11-25 transports, "Session Management"): minted at
// initialize, required on every later request, ended by DELETE or by idling past the TTL. A
// session is bound to the principal that opened it, so a leaked id is useless to anyone else
// (security best practices, "Session Hijacking").

import { randomUUID } from 'node:crypto';

export interface McpSession {
  /** A random UUID: visible ASCII, as the transport requires. */
  id: string;
  protocolVersion: string;
  /** The admitted principal, serialized; requests under another principal do not see the session. */
  principalKey: string;
  clientInfo: unknown;
  /** Set by notifications/initialized. */
  initialized: boolean;
  lastUsedAt: number;
}

export interface SessionStore {
  open(init: { protocolVersion: string; principalKey: string; clientInfo: unknown }): McpSession;
  /** The live session with this id opened by this principal, touched; undefined otherwise. */
  find(id: string, principalKey: string): McpSession | undefined;
  /** Ends a session; false when there was none to end for this principal. */
  end(id: string, principalKey: string): boolean;
  readonly size: number;
}

export interface SessionStoreOptions {
  /** Idle time after which a session ends. */
  idleMs: number;
  /** At most this many live sessions; opening one more ends the least recently used. */
  maxSessions: number;
  /** At most this many per principal, so one caller cannot push everyone else's sessions out. */
  maxPerPrincipal: number;
  now: () => number;
}

/** Serializes what an authenticator admitted into the key a session is bound to. */
export function principalKey(principal: unknown): string {
  if (principal === undefined) return '';
  try {
    return JSON.stringify(principal) ?? '';
  } catch {
    // A principal without a JSON form has no stable identity to bind a session to.
    throw new TypeError('Cannot bind an MCP session: the authenticate hook admitted a principal that is not JSON');
  }
}

/** An in-memory session store (sessions do not survive a restart: clients re-initialize on 404). */
export function createSessionStore(options: SessionStoreOptions): SessionStore {
  // Map order is recency order: a touched session is moved to the end.
  const sessions = new Map<string, McpSession>();
  const live = (id: string): McpSession | undefined => {
    const session = sessions.get(id);
    if (session === undefined) return undefined;
    if (options.now() - session.lastUsedAt > options.idleMs) {
      sessions.delete(id);
      return undefined;
    }
    return session;
  };
  return {
    open(init) {
      const own = [...sessions.values()].filter((s) => s.principalKey === init.principalKey);
      for (const session of own.slice(0, Math.max(0, own.length - options.maxPerPrincipal + 1))) sessions.delete(session.id);
      while (sessions.size >= options.maxSessions) {
        const oldest = sessions.keys().next();
        if (oldest.done) break;
        sessions.delete(oldest.value);
      }
      const session: McpSession = { id: randomUUID(), ...init, initialized: false, lastUsedAt: options.now() };
      sessions.set(session.id, session);
      return session;
    },
    find(id, key) {
      const session = live(id);
      if (session === undefined || session.principalKey !== key) return undefined;
      session.lastUsedAt = options.now();
      sessions.delete(id);
      sessions.set(id, session);
      return session;
    },
    end(id, key) {
      const session = live(id);
      if (session === undefined || session.principalKey !== key) return false;
      return sessions.delete(id);
    },
    get size() {
      return sessions.size;
    },
  };
}
