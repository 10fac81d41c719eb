// Structured logs: one JSON object per line on stderr. Every value of a configured secret is
// redacted from the finished line, wherever a careless caller put it (message, field, stack).

import { isoTime, isoTimeOfMs } from './iso-time.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const LEVEL_RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** The variable that sets the least level a logger writes, for every service and command. */
export const LOG_LEVEL_VARIABLE = 'AIRLOCK_LOG_LEVEL';

/** The --help line every service and command prints for AIRLOCK_LOG_LEVEL. */
export const LOG_LEVEL_HELP = `${LOG_LEVEL_VARIABLE}: debug, info, warn or error, the least level logged on stderr (default: info)`;

/**
 * The level `env` names in AIRLOCK_LOG_LEVEL (any case, surrounding blanks ignored), undefined
 * when unset or empty; a message saying what to set when it names no level.
 */
export function logLevelFromEnv(env: NodeJS.ProcessEnv): { level: LogLevel | undefined } | { error: string } {
  const raw = env[LOG_LEVEL_VARIABLE]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return { level: undefined };
  if (Object.hasOwn(LEVEL_RANK, raw)) return { level: raw as LogLevel };
  return { error: `${LOG_LEVEL_VARIABLE} "${env[LOG_LEVEL_VARIABLE]!.slice(0, 32)}" names no level: set debug, info, warn or error` };
}

/** The replacement written instead of a secret's value. */
export const REDACTED = '[redacted]';

/** Shortest secret value that is redacted; shorter strings would shred ordinary text. */
export const MIN_REDACTED_LENGTH = 4;

export type LogFields = Record<string, unknown>;

export interface Logger {
  readonly name: string;
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger with another `logger` name, sharing output, level and secrets. */
  child(name: string): Logger;
  /** Registers more secret values to redact, for this logger and all its relatives. */
  addSecrets(values: Iterable<string>): void;
}

export interface LoggerOptions {
  /** The `logger` field of each record. */
  name?: string;
  /** The `service` field of each record, when set. */
  service?: string;
  /** The least level written; AIRLOCK_LOG_LEVEL of `env`, else info. */
  level?: LogLevel;
  /** Where AIRLOCK_LOG_LEVEL is read when `level` is not given; process.env by default. */
  env?: NodeJS.ProcessEnv;
  secrets?: Iterable<string>;
  /** Where finished lines go (with their newline); stderr by default. */
  write?: (line: string) => void;
  now?: () => Date;
}

interface Shared {
  service: string | undefined;
  minRank: number;
  secrets: Set<string>;
  write: (line: string) => void;
  /** The `time` field of a record made now. */
  time: () => string;
}

/** AIRLOCK_LOG_LEVEL's level, or info (a start refuses a value that names none: runService, runCommand). */
function levelOf(env: NodeJS.ProcessEnv): LogLevel {
  const read = logLevelFromEnv(env);
  return 'level' in read && read.level !== undefined ? read.level : 'info';
}

/** The fields every record begins with (`service` when set); a caller's field of the same name is left out. */
const HEADER_FIELDS: ReadonlySet<string> = new Set(['time', 'level', 'logger', 'msg']);
const HEADER_FIELDS_WITH_SERVICE: ReadonlySet<string> = new Set([...HEADER_FIELDS, 'service']);

/**
 * Creates a JSON-lines logger.
 *
 * @example
 * const log = createLogger({ name: 'semantic', secrets: [token] });
 * log.warn('listening on a non-loopback address', { host });
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const shared: Shared = {
    service: options.service,
    minRank: LEVEL_RANK[options.level ?? levelOf(options.env ?? process.env)],
    secrets: new Set(),
    write: options.write ?? writeToStderr,
    time: options.now === undefined ? wallClockTime : timeFrom(options.now),
  };
  addTo(shared.secrets, options.secrets ?? []);
  return makeLogger(options.name ?? 'airlock', shared);
}

function makeLogger(name: string, shared: Shared): Logger {
  // What follows `time` up to `msg` never changes for this logger: serialized once. A busy
  // service logs a line per request, so the line is built from parts, not from a record object.
  const reserved = shared.service === undefined ? HEADER_FIELDS : HEADER_FIELDS_WITH_SERVICE;
  const header = `"logger":${JSON.stringify(name)}${shared.service === undefined ? '' : `,"service":${JSON.stringify(shared.service)}`},"msg":`;
  const emit = (level: LogLevel, msg: string, fields?: LogFields) => {
    if (LEVEL_RANK[level] < shared.minRank) return;
    let line = `{"time":"${shared.time()}","level":"${level}",${header}${JSON.stringify(msg)}`;
    const rest = fields === undefined ? '{}' : safeStringify(loggableFields(fields, reserved));
    line += rest === '{}' ? '}' : `,${rest.slice(1)}`;
    shared.write(`${redact(line, shared.secrets)}\n`);
  };
  return {
    name,
    debug: (msg, fields) => emit('debug', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
    child: (childName) => makeLogger(childName, shared),
    addSecrets: (values) => addTo(shared.secrets, values),
  };
}

let pendingLines: string[] = [];
let pendingChars = 0;
let flushScheduled = false;

/** Queued characters that are written at once: a loop that logs without yielding holds no more. */
const MAX_PENDING_CHARS = 64 * 1024;

/**
 * Queues a finished line for stderr. The lines of one event-loop turn go out in one write at its
 * end (a busy service logs a line per request: one system call each cost more than the line), and
 * whatever is queued is written before the process exits, by process.exit() or a crash alike.
 */
function writeToStderr(line: string): void {
  pendingLines.push(line);
  pendingChars += line.length;
  if (pendingChars >= MAX_PENDING_CHARS) return flushLogLines(); // the scheduled flush, if any, stays
  if (flushScheduled) return;
  flushScheduled = true;
  setImmediate(flushStderr);
}

/**
 * Writes the log lines still queued for stderr now. Call it before writing to stderr directly
 * (a "Cannot start" line, a command's error), so that the lines logged before it come first.
 */
export function flushLogLines(): void {
  if (pendingLines.length === 0) return;
  const text = pendingLines.join('');
  pendingLines = [];
  pendingChars = 0;
  process.stderr.write(text);
}

function flushStderr(): void {
  flushScheduled = false;
  flushLogLines();
}

process.on('exit', flushLogLines);

function addTo(set: Set<string>, values: Iterable<string>): void {
  for (const value of values) {
    if (value.length < MIN_REDACTED_LENGTH) continue;
    set.add(value);
    // The line is JSON, so a secret with quotes or backslashes appears escaped there.
    const escaped = JSON.stringify(value).slice(1, -1);
    if (escaped !== value) set.add(escaped);
  }
}

function redact(line: string, secrets: ReadonlySet<string>): string {
  let out = line;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}

/** JSON.stringify that never throws: bigints become strings, cycles become "[cycle]". */
function safeStringify(record: LogFields): string {
  // Plain records (nearly all, an access-log line among them) take JSON.stringify's fast path,
  // which a replacer function turns off; only a bigint or a cycle makes it throw.
  try {
    return JSON.stringify(record);
  } catch {
    return stringifyReplacing(record);
  }
}

function stringifyReplacing(record: LogFields): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(record, (_key, value: unknown) => {
    if (typeof value === 'bigint') return value.toString();
    if (typeof value === 'object' && value !== null) {
      if (seen.has(value)) return '[cycle]';
      seen.add(value);
    }
    return value;
  });
}

function toLoggable(value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}

/** `fields` as they are written: no header field, errors as name, message and stack. */
function loggableFields(fields: LogFields, reserved: ReadonlySet<string>): LogFields {
  let plain = true;
  for (const key in fields) {
    if (reserved.has(key) || fields[key] instanceof Error) {
      plain = false;
      break;
    }
  }
  if (plain) return fields;
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) if (!reserved.has(key)) out[key] = toLoggable(value);
  return out;
}

function wallClockTime(): string {
  return isoTimeOfMs(Date.now());
}

function timeFrom(now: () => Date): () => string {
  return () => isoTime(now());
}
