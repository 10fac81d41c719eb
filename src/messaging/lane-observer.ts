// Lane observers: each watches one gateway target's log file, polling it (45 s by default, never
// below 30 s, 120 s once a poll found nothing new). A poll reads the file's tail once, never
// follows it: at most 300 lines, only lines inside the time window, within a hard time limit.
// One active observer per gateway target; a second one for the same target is refused.

import { open } from 'node:fs/promises';
import { AirlockError } from '../kernel/index.ts';
import type { ObserverDefaults } from './config.ts';
import { OBSERVER_BOUNDS } from './config.ts';

/** One observer: its target and log file, and the poll settings (the defaults unless the file sets them). */
export interface ObserverSpec extends ObserverDefaults {
  target: string;
  logPath: string;
}

export interface PollResult {
  target: string;
  lines: string[];
  /** Lines the tail held beyond max_lines or outside the window, not read into `lines`. */
  skipped: number;
  /** True when nothing changed in the file since the previous poll. */
  idle: boolean;
  error?: string;
}

/** Bytes read from the end of the file per poll: enough for max_lines of long log lines. */
const TAIL_BYTES_PER_LINE = 4096;
const TARGET = /^[A-Za-z0-9_.:-]{1,128}$/;

/** Checks one observer entry of MESSAGING_OBSERVERS_FILE against the seed's bounds; lists every problem. */
export function checkObserverSpec(raw: unknown, defaults: ObserverDefaults, where: string): { spec?: ObserverSpec; problems: string[] } {
  const problems: string[] = [];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { problems: [`${where}: must be an object with "target" and "log_path"`] };
  const entry = raw as Record<string, unknown>;
  const known = new Set(['target', 'log_path', 'interval_seconds', 'idle_interval_seconds', 'max_lines', 'window_seconds', 'timeout_ms']);
  for (const key of Object.keys(entry)) if (!known.has(key)) problems.push(`${where}: unknown field "${key}"`);
  const target = entry['target'];
  if (typeof target !== 'string' || !TARGET.test(target)) problems.push(`${where}: "target" must be a name of letters, digits and _.:- (1 to 128)`);
  const logPath = entry['log_path'];
  if (typeof logPath !== 'string' || logPath === '') problems.push(`${where}: "log_path" must be a file path`);
  const int = (key: string, fallback: number, min: number, max: number): number => {
    const value = entry[key] ?? fallback;
    if (typeof value !== 'number' || !Number.isInteger(value)) problems.push(`${where}: "${key}" must be a whole number`);
    else if (value < min || value > max) problems.push(`${where}: "${key}" ${value} is outside ${min} to ${max}`);
    return value as number;
  };
  const interval = int('interval_seconds', defaults.intervalSeconds, OBSERVER_BOUNDS.floorSeconds, OBSERVER_BOUNDS.idleSeconds);
  const idle = int('idle_interval_seconds', defaults.idleIntervalSeconds, OBSERVER_BOUNDS.floorSeconds, OBSERVER_BOUNDS.idleSeconds);
  if (idle < interval) problems.push(`${where}: "idle_interval_seconds" ${idle} is below "interval_seconds" ${interval}`);
  const maxLines = int('max_lines', defaults.maxLines, 1, OBSERVER_BOUNDS.maxLines);
  const windowSeconds = int('window_seconds', defaults.windowSeconds, 1, 86_400);
  const timeoutMs = int('timeout_ms', defaults.timeoutMs, 100, 30_000);
  if (problems.length > 0) return { problems };
  return { spec: { target: target as string, logPath: logPath as string, intervalSeconds: interval, idleIntervalSeconds: idle, maxLines, windowSeconds, timeoutMs }, problems };
}

export interface ObserverRegistry {
  /** Admits an observer; a second one for an active target is refused with a reason. */
  register(spec: ObserverSpec): { ok: true } | { ok: false; reason: string };
  release(target: string): void;
  list(): ObserverSpec[];
}

export function createObserverRegistry(): ObserverRegistry {
  const active = new Map<string, ObserverSpec>();
  return {
    register(spec) {
      if (active.has(spec.target)) return { ok: false, reason: `An observer for gateway target "${spec.target}" is already active: one per target` };
      active.set(spec.target, spec);
      return { ok: true };
    },
    release: (target) => void active.delete(target),
    list: () => [...active.values()],
  };
}

/** Parses an observers file's JSON text into admitted specs; throws config_invalid listing every problem. */
export function parseObserversFile(text: string, defaults: ObserverDefaults, registry: ObserverRegistry): ObserverSpec[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new AirlockError('config_invalid', 'MESSAGING_OBSERVERS_FILE is not JSON', { details: [(error as Error).message] });
  }
  if (!Array.isArray(raw)) throw new AirlockError('config_invalid', 'MESSAGING_OBSERVERS_FILE must hold a JSON array of observers');
  const problems: string[] = [];
  const specs: ObserverSpec[] = [];
  raw.forEach((entry, i) => {
    const checked = checkObserverSpec(entry, defaults, `observer ${i}`);
    problems.push(...checked.problems);
    if (!checked.spec) return;
    const admitted = registry.register(checked.spec);
    if (admitted.ok) specs.push(checked.spec);
    else problems.push(`observer ${i}: ${admitted.reason}`);
  });
  if (problems.length > 0) throw new AirlockError('config_invalid', `Invalid lane observers: ${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}`, { details: problems });
  return specs;
}

/** Reads the tail of the target's log once; never throws (a failure is `error`). */
export async function pollLog(spec: ObserverSpec, previous: { size: number; mtimeMs: number } | undefined, now: number): Promise<PollResult & { mark?: { size: number; mtimeMs: number } }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`poll exceeded its hard limit of ${spec.timeoutMs} ms`)), spec.timeoutMs);
  });
  try {
    return await Promise.race([readTail(spec, previous, now), timeout]);
  } catch (error) {
    return { target: spec.target, lines: [], skipped: 0, idle: false, error: (error as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

async function readTail(spec: ObserverSpec, previous: { size: number; mtimeMs: number } | undefined, now: number) {
  const handle = await open(spec.logPath, 'r');
  try {
    const stat = await handle.stat();
    const mark = { size: stat.size, mtimeMs: stat.mtimeMs };
    const idle = previous !== undefined && previous.size === stat.size && previous.mtimeMs === stat.mtimeMs;
    const budget = Math.min(stat.size, spec.maxLines * TAIL_BYTES_PER_LINE);
    const buffer = Buffer.alloc(budget);
    await handle.read(buffer, 0, budget, stat.size - budget);
    let all = buffer.toString('utf8').split('\n');
    if (budget < stat.size) all = all.slice(1); // The first line is cut by the byte budget.
    if (all.at(-1) === '') all.pop();
    const tail = all.slice(-spec.maxLines);
    const since = now - spec.windowSeconds * 1000;
    const lines = tail.filter((line) => {
      const at = lineTime(line);
      return at === undefined || at >= since;
    });
    return { target: spec.target, lines, skipped: all.length - lines.length, idle, mark };
  } finally {
    await handle.close();
  }
}

/** A line's time: a JSON "time"/"timestamp"/"ts" field or a leading ISO 8601 timestamp; undefined when it has none. */
export function lineTime(line: string): number | undefined {
  const trimmed = line.trimStart();
  if (trimmed.startsWith('{')) {
    try {
      const parsed = JSON.parse(trimmed) as Record<string, unknown>;
      for (const key of ['time', 'timestamp', 'ts']) {
        const value = parsed[key];
        if (typeof value === 'string' && !Number.isNaN(Date.parse(value))) return Date.parse(value);
      }
    } catch {
      return undefined; // Not JSON after all: a plain line without a time.
    }
    return undefined;
  }
  const match = /^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)/.exec(trimmed);
  return match && !Number.isNaN(Date.parse(match[1]!)) ? Date.parse(match[1]!) : undefined;
}

/** The pause before the next poll: the idle interval after a poll that found nothing new. */
export function nextPollSeconds(spec: ObserverSpec, idle: boolean): number {
  return idle ? spec.idleIntervalSeconds : spec.intervalSeconds;
}
