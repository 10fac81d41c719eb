// Login sessions: a random `sid` (the cookie Frappe sets), stored only as its SHA-256 with the
// user and an expiry, so a copy of the database holds no usable session.

import { createHash, randomBytes } from 'node:crypto';
import type { Store } from '../../kernel/index.ts';
import { statement } from '../../kernel/index.ts';

export interface Sessions {
  /** Starts a session for `usr`; resolves with the sid once it is durable. */
  start(usr: string): Promise<string>;
  /** The user of a live session, if any. */
  user(sid: string): string | undefined;
  end(sid: string): Promise<void>;
}

const SID_FORM = /^[A-Za-z0-9_-]{20,128}$/;

function digest(sid: string): string {
  return createHash('sha256').update(sid).digest('hex');
}

export function createSessions(store: Store, options: { ttlSeconds: number; now: () => number }): Sessions {
  return {
    async start(usr) {
      const sid = randomBytes(32).toString('base64url');
      const now = options.now();
      await store.write((sqlite) => {
        // Expired sessions go when a new one starts: the table never grows without bound.
        statement(sqlite, 'DELETE FROM sessions WHERE expires_at <= ?').run(now);
        statement(sqlite, 'INSERT INTO sessions (sid_sha256, usr, created_at, expires_at) VALUES (?, ?, ?, ?)').run(digest(sid), usr, new Date(now).toISOString(), now + options.ttlSeconds * 1000);
      });
      return sid;
    },
    user(sid) {
      if (!SID_FORM.test(sid)) return undefined;
      const row = statement(store.sqlite, 'SELECT usr, expires_at FROM sessions WHERE sid_sha256 = ?').get(digest(sid));
      if (!row || Number(row['expires_at']) <= options.now()) return undefined;
      return String(row['usr']);
    },
    async end(sid) {
      if (!SID_FORM.test(sid)) return;
      await store.write((sqlite) => {
        statement(sqlite, 'DELETE FROM sessions WHERE sid_sha256 = ?').run(digest(sid));
      });
    },
  };
}

/** The `sid` cookie of a request, if sent (and not Frappe's "Guest"). */
export function sidCookie(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === 'sid') {
      const value = part.slice(eq + 1).trim();
      return value === '' || value === 'Guest' ? undefined : value;
    }
  }
  return undefined;
}
