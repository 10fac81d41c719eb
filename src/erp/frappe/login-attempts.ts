// Frappe's LoginAttemptTracker (frappe/auth.py): after `maxConsecutive` failed logins in a row for
// one user name, the name is locked for `lockSeconds`, and every login for it, right or wrong,
// is refused until the lock ends; a successful login clears the count. Frappe's System Settings
// defaults are 10 attempts and 60 s. The count is kept per lower-cased `usr` whether or not such
// a user exists, so the lock says nothing about which names are real. In memory (a restart
// forgets it, as Frappe's cache does), and bounded: the oldest entries go first.

export interface LoginAttempts {
  /** Seconds until `usr` may try again, or 0 when it may try now. */
  lockedFor(usr: string, nowMs: number): number;
  failed(usr: string, nowMs: number): void;
  succeeded(usr: string): void;
}

interface Entry {
  failures: number;
  lockedUntilMs: number;
}

export function createLoginAttempts(options: { maxConsecutive?: number; lockSeconds?: number; maxEntries?: number } = {}): LoginAttempts {
  const maxConsecutive = options.maxConsecutive ?? 10;
  const lockMs = (options.lockSeconds ?? 60) * 1000;
  const maxEntries = options.maxEntries ?? 10_000;
  const entries = new Map<string, Entry>();
  const key = (usr: string) => usr.trim().toLowerCase();
  return {
    lockedFor(usr, nowMs) {
      const entry = entries.get(key(usr));
      if (!entry || entry.lockedUntilMs <= nowMs) return 0;
      return Math.ceil((entry.lockedUntilMs - nowMs) / 1000);
    },
    failed(usr, nowMs) {
      const k = key(usr);
      const entry = entries.get(k) ?? { failures: 0, lockedUntilMs: 0 };
      // A lock that has run out starts a fresh count, as Frappe's does.
      if (entry.lockedUntilMs !== 0 && entry.lockedUntilMs <= nowMs) Object.assign(entry, { failures: 0, lockedUntilMs: 0 });
      entry.failures += 1;
      if (entry.failures >= maxConsecutive) entry.lockedUntilMs = nowMs + lockMs;
      entries.delete(k);
      entries.set(k, entry);
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    },
    succeeded(usr) {
      entries.delete(key(usr));
    },
  };
}
