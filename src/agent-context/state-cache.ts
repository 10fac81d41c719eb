// Reads and scrapes fold the same evidence again and again between writes. This service is the
// only writer of its database, so a fold stays true until the store commits again: each value is
// kept with the commit count it was computed at. Writes check their preconditions inside their
// own transaction with fresh folds, never with these.

import type { Store } from '../kernel/index.ts';

export function memoByCommits<T>(store: () => Store, compute: (store: Store) => T): () => T {
  let at = -1;
  let value: T;
  return () => {
    const s = store();
    const commits = s.stats().commits;
    if (commits !== at) {
      value = compute(s);
      at = commits;
    }
    return value;
  };
}
