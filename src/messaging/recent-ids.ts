// A bounded memory of recently seen message ids, so a subscriber drops a message sent again
// after a reconnect (at-least-once publishing) or published twice by a client that retried.

export const DEFAULT_RECENT_IDS = 100_000;

export interface RecentIds {
  /** True the first time `id` is seen (and remembers it); false for a repeat. */
  firstSighting(id: string): boolean;
  /** Forgets `id`: a message its subscriber did not take is new again when it comes back. */
  forget(id: string): void;
}

export function createRecentIds(limit = DEFAULT_RECENT_IDS): RecentIds {
  const seen = new Set<string>();
  return {
    firstSighting(id) {
      if (seen.has(id)) return false;
      seen.add(id);
      // A Set iterates in insertion order: the first entry is the oldest.
      if (seen.size > limit) seen.delete(seen.values().next().value!);
      return true;
    },
    forget(id) {
      seen.delete(id);
    },
  };
}
