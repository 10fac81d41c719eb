// The replay/rebuild comparison of an S0 projection-verification run, over the run's synthetic
// event log: replay folds the log in delivery order; rebuild derives each key's state from the log
// independently (the event with the highest sequence number per key, whatever the order). The two
// agree only when the log is well ordered and drift_items counts the keys on which they disagree;
// an S0 run generates its log in order, so its receipt labels the verdict synthetic.

import { digestOf } from './digest.ts';

export interface ProjectionEvent {
  /** Position in the source stream: later wins. */
  seq: number;
  key: string;
  value: string;
}

export interface ReplayRebuild {
  events: number;
  keys: number;
  replay_digest: string;
  rebuild_digest: string;
  /** Keys whose replayed state differs from the rebuilt one. */
  drift_items: number;
  outcome: 'equivalent' | 'divergent';
}

/** Events the run's log holds: enough to touch each key more than once. */
export const EVENTS_PER_RUN = 6;
const KEYS_PER_RUN = 3;

/** The synthetic event log of a run: a pure function of its namespace and source event. */
export function projectionEventLog(namespace: string, sourceEventId: string): ProjectionEvent[] {
  return Array.from({ length: EVENTS_PER_RUN }, (_, i) => ({
    seq: i + 1,
    key: `${namespace}/entity-${i % KEYS_PER_RUN}`,
    value: digestOf(['projection-event', namespace, sourceEventId, i]),
  }));
}

/**
 * Replays `events` in the order given and rebuilds from them independently; compares the two.
 *
 * @example
 * replayAndRebuild(projectionEventLog('ns', 'evt-1')).outcome; // 'equivalent'
 */
export function replayAndRebuild(events: readonly ProjectionEvent[]): ReplayRebuild {
  const replayed = new Map<string, ProjectionEvent>();
  for (const event of events) replayed.set(event.key, event);
  // Rebuild keeps each key's highest seq, whatever the order (the first of equal seqs).
  const rebuilt = new Map<string, ProjectionEvent>();
  for (const event of events) {
    const kept = rebuilt.get(event.key);
    if (kept === undefined || event.seq > kept.seq) rebuilt.set(event.key, event);
  }
  const state = (map: Map<string, ProjectionEvent>) => [...map.keys()].sort().map((key) => [key, map.get(key)!.seq, map.get(key)!.value]);
  const replayDigest = digestOf(['replay', state(replayed)]);
  const rebuildDigest = digestOf(['replay', state(rebuilt)]);
  const drift = [...rebuilt.keys()].filter((key) => replayed.get(key)?.seq !== rebuilt.get(key)!.seq).length;
  return {
    events: events.length,
    keys: rebuilt.size,
    replay_digest: replayDigest,
    rebuild_digest: rebuildDigest,
    drift_items: drift,
    outcome: replayDigest === rebuildDigest ? 'equivalent' : 'divergent',
  };
}
