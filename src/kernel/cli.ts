// Command-line verbs for Airlock's verifiers and operator commands: parseArgs from node:util,
// a generated --help, a standard --json flag, the exit codes of DESIGN.md, and a progress line
// that appears only on a terminal.

import { parseArgs } from 'node:util';
import type { ParseArgsOptionsConfig } from 'node:util';
import { exitQuietlyOnBrokenPipe } from './_broken-pipe.ts';
import { AirlockError, isAirlockError } from './errors.ts';
import { flushLogLines } from './log.ts';

/** 0: every check passed. */
export const EXIT_OK = 0;
/** 1: a check ran and failed. */
export const EXIT_FAILED = 1;
/** 2: wrong usage, or the environment did not allow the check to run (missing file, unreachable target). */
export const EXIT_USAGE = 2;

export type ExitCode = typeof EXIT_OK | typeof EXIT_FAILED | typeof EXIT_USAGE;

export interface OptionSpec {
  type: 'string' | 'boolean';
  description: string;
  short?: string;
  multiple?: boolean;
  default?: string | boolean | string[];
  /** Shown after the flag in --help, e.g. FILE. */
  valueName?: string;
}

export type OptionSpecs = Record<string, OptionSpec>;

type ValueOf<S extends OptionSpec> = S['type'] extends 'boolean'
  ? S['multiple'] extends true ? boolean[] : boolean
  : S['multiple'] extends true ? string[] : string;

/** Parsed option values: options with a default are always present. */
export type OptionValues<O extends OptionSpecs> = {
  [K in keyof O]: O[K]['default'] extends string | boolean | string[] ? ValueOf<O[K]> : ValueOf<O[K]> | undefined;
};

/** Where a command writes; tests pass their own. */
export interface CommandIO {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

export interface CommandContext<O extends OptionSpecs> {
  values: OptionValues<O>;
  positionals: string[];
  /** True when --json was given: print one JSON document on stdout and nothing else there. */
  json: boolean;
  io: CommandIO;
  /** Writes text plus a newline on stdout. */
  print(text: string): void;
  /** Writes `value` as JSON plus a newline on stdout. */
  printJson(value: unknown): void;
  /** A progress reporter on stderr, silent unless stderr is a terminal. */
  progress(total: number, label?: string): Progress;
}

export interface CommandSpec<O extends OptionSpecs> {
  name: string;
  summary: string;
  /** Text after the options in the usage line, e.g. "[FILE...]". Positionals are refused without it. */
  positionals?: string;
  /** Paragraphs printed after the summary in --help. */
  description?: string;
  options: O;
  /** Returns EXIT_OK, EXIT_FAILED or EXIT_USAGE. */
  run(context: CommandContext<O>): Promise<number> | number;
}

/** Declares a command; an identity function that keeps the option types. */
export function defineCommand<O extends OptionSpecs>(spec: CommandSpec<O>): CommandSpec<O> {
  return spec;
}

const STANDARD_OPTIONS = {
  json: { type: 'boolean', description: 'Print the result as one JSON document on stdout' },
  help: { type: 'boolean', short: 'h', description: 'Show this help and exit' },
} as const satisfies OptionSpecs;

/**
 * Parses argv, handles --help, runs the command and maps errors to exit codes.
 * Returns the exit code instead of exiting, so tests can call it.
 *
 * @example
 * process.exitCode = await runCommand(command, process.argv.slice(2));
 */
export async function runCommand<O extends OptionSpecs>(
  spec: CommandSpec<O>,
  argv: readonly string[],
  io: CommandIO = { stdout: process.stdout, stderr: process.stderr, env: process.env },
): Promise<ExitCode> {
  const all: OptionSpecs = { ...spec.options, ...STANDARD_OPTIONS };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: negativeValuesJoined(argv, all),
      options: toParseArgsOptions(all),
      allowPositionals: spec.positionals !== undefined,
      strict: true,
    });
  } catch (error) {
    const message = (error as Error).message;
    flushLogLines(); // what was logged before the error line comes before it
    if (argv.includes('--json')) io.stdout.write(`${JSON.stringify({ ok: false, error: { code: 'usage', message, details: [] } }, null, 2)}\n`);
    io.stderr.write(`${spec.name}: ${parseArgsSummary(message)}: run "${spec.name} --help" for usage\n`);
    return EXIT_USAGE;
  }
  if (parsed.values['help'] === true) {
    io.stdout.write(formatHelp(spec));
    return EXIT_OK;
  }
  const json = parsed.values['json'] === true;
  const context: CommandContext<O> = {
    values: parsed.values as OptionValues<O>,
    positionals: parsed.positionals,
    json,
    io,
    print: (text) => void io.stdout.write(`${text}\n`),
    printJson: (value) => void io.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
    progress: (total, label) => createProgress(io.stderr, total, label),
  };
  try {
    const code = await spec.run(context);
    if (code !== EXIT_OK && code !== EXIT_FAILED && code !== EXIT_USAGE) throw new RangeError(`Command returned exit code ${code}: use 0, 1 or 2`);
    return code;
  } catch (error) {
    return reportFailure(spec.name, error, context);
  }
}

/**
 * `--max-issues -1`: parseArgs takes "-1" for an option and refuses the line as ambiguous, so the
 * command never gets to say what is wrong with the number. A negative number after a string
 * option is that option's value: joined as `--max-issues=-1`, the command's own check answers.
 */
function negativeValuesJoined(argv: readonly string[], options: OptionSpecs): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const next = argv[i + 1];
    if (arg === '--') return [...out, ...argv.slice(i)];
    if (arg.startsWith('--') && options[arg.slice(2)]?.type === 'string' && next !== undefined && /^-\d+(\.\d+)?$/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/**
 * One line from a parseArgs error: its first sentence (the rest explains how to pass a value that
 * starts with "-", which is noise for a mistyped flag).
 */
export function parseArgsSummary(message: string): string {
  const first = message.split('\n')[0]!;
  const end = first.indexOf('. ');
  return end === -1 ? first.replace(/\.$/, '') : first.slice(0, end);
}

/**
 * Runs a command as the process's entry point: a reader that leaves early (`| head`) ends it
 * quietly, and it sets process.exitCode. `argv` is the command's own arguments (a subcommand's,
 * after its verb); the process's by default.
 */
export async function main<O extends OptionSpecs>(spec: CommandSpec<O>, argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  exitQuietlyOnBrokenPipe(process.stdout);
  exitQuietlyOnBrokenPipe(process.stderr);
  process.exitCode = await runCommand(spec, [...argv]);
}

/** Throws a usage error (exit 2) with a message for the operator. */
export function usageError(message: string): never {
  throw new AirlockError('usage', message);
}

/**
 * The value of a whole-number option (`--count 5`): digits only, at least `least` (1 unless
 * given), a safe integer; anything else is a usage error naming the option and what it got.
 */
export function wholeNumberOption(flag: string, text: string, least = 1): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < least) {
    usageError(`Invalid ${flag} "${text}": use a whole number of at least ${least}`);
  }
  return value;
}

function reportFailure(name: string, error: unknown, context: CommandContext<OptionSpecs>): ExitCode {
  const known = isAirlockError(error);
  const message = known ? error.message : `Internal error: ${(error as Error)?.stack ?? String(error)}`;
  if (context.json) {
    context.printJson({ ok: false, error: { code: known ? error.code : 'internal', message, details: known ? error.details : [] } });
  }
  const details = known && error.details.length > 0 ? `\n  ${error.details.join('\n  ')}` : '';
  flushLogLines();
  context.io.stderr.write(`${name}: ${message}${details}\n`);
  return EXIT_USAGE;
}

function toParseArgsOptions(specs: OptionSpecs): ParseArgsOptionsConfig {
  const out: ParseArgsOptionsConfig = {};
  for (const [name, { type, short, multiple, default: fallback }] of Object.entries(specs)) {
    out[name] = { type, ...(short && { short }), ...(multiple && { multiple }), ...(fallback !== undefined && { default: fallback }) };
  }
  return out;
}

/** The --help text: usage line, summary, description, options, exit codes. */
export function formatHelp(spec: CommandSpec<OptionSpecs>): string {
  const all: OptionSpecs = { ...spec.options, ...STANDARD_OPTIONS };
  const rows = Object.entries(all).map(([name, option]) => {
    const flag = `${option.short ? `-${option.short}, ` : '    '}--${name}${option.type === 'string' ? ` ${option.valueName ?? 'VALUE'}` : ''}`;
    const extra = option.default !== undefined && option.type === 'string' ? ` (default: ${String(option.default)})` : '';
    const repeat = option.multiple ? ' (repeatable)' : '';
    return [flag, `${option.description}${extra}${repeat}`] as const;
  });
  const width = Math.max(...rows.map(([flag]) => flag.length)) + 2;
  const lines = [
    `Usage: ${spec.name} [options]${spec.positionals ? ` ${spec.positionals}` : ''}`,
    '',
    spec.summary,
    ...(spec.description ? ['', spec.description] : []),
    '',
    'Options:',
    ...rows.map(([flag, text]) => `  ${flag.padEnd(width)}${text}`),
    '',
    'Exit codes: 0 every check passed, 1 a check failed, 2 usage or environment error',
    '',
  ];
  return lines.join('\n');
}

export interface Progress {
  tick(done?: number): void;
  done(): void;
}

/** A one-line progress display (done/total, rate, eta) on a terminal; does nothing elsewhere. */
export function createProgress(
  stream: { write(text: string): unknown; isTTY?: boolean },
  total: number,
  label = 'progress',
): Progress {
  if (stream.isTTY !== true) return { tick() {}, done() {} };
  const started = Date.now();
  let count = 0;
  let lastDraw = 0;
  const draw = () => {
    const seconds = Math.max((Date.now() - started) / 1000, 0.001);
    const rate = count / seconds;
    const eta = rate > 0 ? Math.ceil((total - count) / rate) : 0;
    stream.write(`\r\x1b[K${label} ${count}/${total} ${rate.toFixed(1)}/s eta ${eta}s`);
  };
  return {
    tick(done) {
      count = done ?? count + 1;
      const now = Date.now();
      if (now - lastDraw >= 100 || count >= total) {
        lastDraw = now;
        draw();
      }
    },
    done() {
      draw();
      stream.write('\n');
    },
  };
}
