// Restart recovery: the messaging API polls the parts it depends on (the bus, the mailbox
// adapter) every 45 s by default (never below 30 s); while a part stays down the pause doubles up
// to 300 s, each with up to 3 s of jitter; the first good poll after a failure is a recovery.

import type { RecoveryConfig } from './config.ts';

export interface PartState {
  up: boolean | undefined;
  consecutiveFailures: number;
  lastChange: string | undefined;
  lastError: string | undefined;
}

export interface RecoveryEvent {
  part: string;
  kind: 'down' | 'recovered';
  at: string;
  failures: number;
  error?: string;
}

/** Seconds until the next poll after `failures` consecutive failures (0 = healthy), plus jitter in [0, jitterSeconds]. */
export function nextRecoverySeconds(policy: RecoveryConfig, failures: number, random: () => number = Math.random): number {
  const base = failures === 0 ? policy.intervalSeconds : Math.min(policy.maxBackoffSeconds, policy.intervalSeconds * 2 ** failures);
  return base + random() * policy.jitterSeconds;
}

/** Applies one probe result to a part's state; returns the event it causes, if any. */
export function applyProbe(state: PartState, part: string, result: { ok: boolean; error?: string }, at: string): RecoveryEvent | undefined {
  const wasUp = state.up;
  if (result.ok) {
    const failures = state.consecutiveFailures;
    state.up = true;
    state.consecutiveFailures = 0;
    state.lastError = undefined;
    if (wasUp === false) {
      state.lastChange = at;
      return { part, kind: 'recovered', at, failures };
    }
    return undefined;
  }
  state.up = false;
  state.consecutiveFailures++;
  state.lastError = result.error;
  if (wasUp !== false) {
    state.lastChange = at;
    return { part, kind: 'down', at, failures: state.consecutiveFailures, ...(result.error !== undefined && { error: result.error }) };
  }
  return undefined;
}

export function initialPartState(): PartState {
  return { up: undefined, consecutiveFailures: 0, lastChange: undefined, lastError: undefined };
}
