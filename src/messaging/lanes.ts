// Runs the lane observers and restart recovery of the messaging API on timers, records every
// poll and every recovery event as lane_events evidence, and keeps the snapshot /api/v1/status
// shows. Timers are injectable so tests run the schedule without waiting. An observer polls only
// while it holds its target's lease (observer-lease.ts).

import type { Logger, Store } from '../kernel/index.ts';
import type { RecoveryConfig } from './config.ts';
import { LANE_EVENTS } from './database.ts';
import { nextPollSeconds, pollLog } from './lane-observer.ts';
import { createObserverLeases } from './observer-lease.ts';
import type { LeaseOutcome } from './observer-lease.ts';
import type { ObserverSpec } from './lane-observer.ts';
import { applyProbe, initialPartState, nextRecoverySeconds } from './restart-recovery.ts';
import type { RecoveryEvent } from './restart-recovery.ts';

export type Probe = () => Promise<{ ok: boolean; error?: string }>;

export interface Timers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  now(): number;
}

export const REAL_TIMERS: Timers = {
  setTimeout: (run, ms) => {
    const t = setTimeout(run, ms);
    t.unref();
    return t;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
  now: () => Date.now(),
};

export interface ObserverSnapshot {
  target: string;
  log_path: string;
  interval_seconds: number;
  idle_interval_seconds: number;
  max_lines: number;
  window_seconds: number;
  timeout_ms: number;
  polls: number;
  last_poll_at: string | undefined;
  last_lines: number;
  idle: boolean;
  last_error: string | undefined;
  next_poll_in_seconds: number;
  /** True while this process holds the target's lease and polls; false on standby; null before the first attempt. */
  active: boolean | null;
  /** Who holds the lease (this process or another) and until when. */
  lease_holder: string | null;
  lease_expires_at: string | null;
}

/** A part's recovery state as /api/v1/status shows it. */
export interface PartSnapshot {
  up: boolean | null;
  consecutive_failures: number;
  last_change: string | null;
  last_error: string | null;
  next_check_in_seconds: number;
}

export interface Lanes {
  observers(): ObserverSnapshot[];
  recovery(): { parts: Record<string, PartSnapshot>; last_recovery: RecoveryEvent | undefined };
  /** Runs every observer poll and probe once now (status on demand and tests). */
  runOnce(): Promise<void>;
  /** Stops the timers and gives back the observer leases this process holds. */
  stop(): Promise<void>;
}

/**
 * An observer's lease outlives two idle intervals, so the holder keeps it across an idle pause; a
 * crashed holder's targets are taken over within that time.
 */
export function leaseTtlMs(spec: ObserverSpec): number {
  return 2 * spec.idleIntervalSeconds * 1000;
}

export function startLanes(options: { store: Store; observers: readonly ObserverSpec[]; probes: Record<string, Probe>; recovery: RecoveryConfig; log: Logger; timers?: Timers; random?: () => number }): Lanes {
  const timers = options.timers ?? REAL_TIMERS;
  const handles = new Map<string, unknown>();
  let stopped = false;
  let lastRecovery: RecoveryEvent | undefined;
  const iso = () => new Date(timers.now()).toISOString();

  const leases = createObserverLeases(options.store);
  const observerState = new Map(options.observers.map((spec) => [spec.target, { spec, polls: 0, lastPollAt: undefined as string | undefined, lastLines: 0, idle: false, lastError: undefined as string | undefined, mark: undefined as { size: number; mtimeMs: number } | undefined, next: spec.intervalSeconds, lease: undefined as LeaseOutcome | undefined }]));
  const parts = new Map(Object.keys(options.probes).map((name) => [name, { state: initialPartState(), next: options.recovery.intervalSeconds }]));

  async function pollObserver(target: string): Promise<void> {
    const entry = observerState.get(target)!;
    const lease = await leases.acquire(target, { now: timers.now(), ttlMs: leaseTtlMs(entry.spec) });
    if (!lease.held && entry.lease?.held !== false) options.log.warn('lane observer on standby: another process observes this gateway target', { target, holder: lease.holder });
    entry.lease = lease;
    if (!lease.held) {
      entry.next = entry.spec.intervalSeconds;
      return;
    }
    const result = await pollLog(entry.spec, entry.mark, timers.now());
    entry.polls++;
    entry.lastPollAt = iso();
    entry.lastLines = result.lines.length;
    entry.idle = result.idle;
    entry.lastError = result.error;
    if (result.mark) entry.mark = result.mark;
    entry.next = nextPollSeconds(entry.spec, result.idle);
    await options.store.append(LANE_EVENTS, {
      target,
      kind: 'observer_poll',
      payload: { lines: result.lines.length, skipped: result.skipped, idle: result.idle, ...(result.error !== undefined && { error: result.error }), tail: result.lines.slice(-20) },
    });
  }

  async function probePart(name: string): Promise<void> {
    const part = parts.get(name)!;
    let result: { ok: boolean; error?: string };
    try {
      result = await options.probes[name]!();
    } catch (error) {
      result = { ok: false, error: (error as Error).message };
    }
    const event = applyProbe(part.state, name, result, iso());
    part.next = nextRecoverySeconds(options.recovery, part.state.consecutiveFailures, options.random);
    if (!event) return;
    if (event.kind === 'recovered') lastRecovery = event;
    options.log.warn(`restart recovery: ${name} ${event.kind}`, { part: name, failures: event.failures });
    await options.store.append(LANE_EVENTS, { target: name, kind: `recovery_${event.kind}`, payload: { ...event } });
  }

  function schedule(key: string, seconds: number, run: () => Promise<void>, nextSeconds: () => number): void {
    if (stopped) return;
    handles.set(key, timers.setTimeout(() => {
      run().then(
        () => schedule(key, nextSeconds(), run, nextSeconds),
        (error: unknown) => {
          options.log.error('lane task failed', { task: key, error });
          schedule(key, nextSeconds(), run, nextSeconds);
        },
      );
    }, seconds * 1000));
  }

  for (const [target, entry] of observerState) schedule(`observer:${target}`, entry.spec.intervalSeconds, () => pollObserver(target), () => entry.next);
  for (const [name, part] of parts) schedule(`recovery:${name}`, 0, () => probePart(name), () => part.next);

  return {
    observers: () =>
      [...observerState.values()].map((e) => ({
        target: e.spec.target,
        log_path: e.spec.logPath,
        interval_seconds: e.spec.intervalSeconds,
        idle_interval_seconds: e.spec.idleIntervalSeconds,
        max_lines: e.spec.maxLines,
        window_seconds: e.spec.windowSeconds,
        timeout_ms: e.spec.timeoutMs,
        polls: e.polls,
        last_poll_at: e.lastPollAt,
        last_lines: e.lastLines,
        idle: e.idle,
        last_error: e.lastError,
        next_poll_in_seconds: e.next,
        active: e.lease === undefined ? null : e.lease.held,
        lease_holder: e.lease === undefined ? null : e.lease.held ? leases.holder : e.lease.holder,
        lease_expires_at: e.lease === undefined ? null : new Date(e.lease.expiresAt).toISOString(),
      })),
    recovery: () => ({
      parts: Object.fromEntries(
        [...parts].map(([name, p]) => [
          name,
          { up: p.state.up ?? null, consecutive_failures: p.state.consecutiveFailures, last_change: p.state.lastChange ?? null, last_error: p.state.lastError ?? null, next_check_in_seconds: Math.round(p.next * 10) / 10 },
        ]),
      ),
      last_recovery: lastRecovery,
    }),
    async runOnce() {
      for (const target of observerState.keys()) await pollObserver(target);
      for (const name of parts.keys()) await probePart(name);
    },
    async stop() {
      stopped = true;
      for (const handle of handles.values()) timers.clearTimeout(handle);
      handles.clear();
      if (observerState.size > 0) await leases.releaseAll();
    },
  };
}
