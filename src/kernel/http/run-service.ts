// The entry point of a service executable: build it (configuration errors exit 2, all listed),
// listen (a refused address exits 2), print the "listening" lines on stdout, and drain on
// SIGTERM/SIGINT before exiting 0.

import { parseArgs } from 'node:util';
import { ignoreBrokenPipe } from '../_broken-pipe.ts';
import { parseArgsSummary } from '../cli.ts';
import { AirlockError, isAirlockError } from '../errors.ts';
import { flushLogLines, LOG_LEVEL_HELP, logLevelFromEnv } from '../log.ts';
import type { Service } from './service.ts';

export interface RunServiceOptions {
  stdout?: { write(text: string): unknown };
  stderr?: { write(text: string): unknown };
  /** Install SIGTERM/SIGINT handlers (true for executables). */
  signals?: boolean;
  exit?: (code: number) => void;
  /** The --help text: usage, options, environment variables. */
  help?: string;
  /** Arguments to look at for --help; process.argv.slice(2) by default. */
  argv?: readonly string[];
  /**
   * The flags the executable takes besides --help. When given, argv is parsed strictly before
   * build() (which receives the values): an unknown flag or a stray argument exits 2 with one line.
   */
  flags?: Record<string, { type: 'string' | 'boolean' }>;
}

/** What every service's --help ends with: the flags and the variable the kernel handles for it. */
export const SERVICE_HELP_FOOTER = [
  'Every service also takes:',
  '  --json   --help, and a failed start, as one JSON document on stdout (the listening lines are JSON already)',
  `  ${LOG_LEVEL_HELP}`,
].join('\n');

/** Read by the kernel store of every service's database (not by content-dev-oidc, which keeps none). */
export const EVIDENCE_REPLICATION_HELP = [
  '  AIRLOCK_EVIDENCE_REPLICATION: off, async or sync, evidence replication to NATS JetStream (default: off); with',
  '  AIRLOCK_EVIDENCE_NATS_URL (the cluster\'s URLs, comma-separated), AIRLOCK_EVIDENCE_STREAM, AIRLOCK_EVIDENCE_REPLICAS,',
  '  AIRLOCK_EVIDENCE_LAG_WARN_SECONDS, AIRLOCK_EVIDENCE_SYNC_TIMEOUT_SECONDS: docs/replication.md',
].join('\n');

/** Flag values parsed from argv when RunServiceOptions.flags is given. */
export type ServiceFlags = Record<string, string | boolean | undefined>;

/**
 * Builds and runs a service until a signal arrives. Resolves with the running service, or
 * with undefined after reporting why it could not start (exit code 2 already requested).
 *
 * @example
 * await runService(() => createSemanticService(readConfig(SPEC)));
 */
export async function runService(build: (flags: ServiceFlags) => Service | Promise<Service>, options: RunServiceOptions = {}): Promise<Service | undefined> {
  if (options.stdout === undefined) ignoreBrokenPipe(process.stdout);
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  // --json is the kernel's, as it is every command's: a service's stdout is JSON lines anyway (one
  // "listening" line per listener), and --json makes --help and a failed start one JSON document
  // there too. It is taken out before the service's own parser reads the arguments.
  const given = options.argv ?? process.argv.slice(2);
  const json = given.includes('--json');
  const argv = given.filter((arg) => arg !== '--json');
  if (json && options.argv === undefined) process.argv = [...process.argv.slice(0, 2), ...argv];
  if (argv.includes('--help') || argv.includes('-h')) {
    const help = `${(options.help ?? 'Starts the service; configuration comes from environment variables (see README).\n').trimEnd()}\n\n${SERVICE_HELP_FOOTER}\n${EVIDENCE_REPLICATION_HELP}\n`;
    stdout.write(json ? `${JSON.stringify({ help }, null, 2)}\n` : help);
    exit(0);
    return undefined;
  }
  /** The one stderr line of a failed start, after what was logged before the failure; with --json also one document on stdout. */
  const reportStartFailure = (error: unknown) => {
    flushLogLines();
    const text = startFailure(error);
    if (json) stdout.write(`${JSON.stringify({ ok: false, error: { code: isAirlockError(error) ? error.code : 'start_failed', message: text.replace(/^Cannot start: /, '').split('\n')[0], details: isAirlockError(error) ? error.details : [] } }, null, 2)}\n`);
    stderr.write(`${text}\n`);
  };
  const level = logLevelFromEnv(process.env);
  if ('error' in level) {
    reportStartFailure(new AirlockError('config_invalid', level.error));
    exit(2);
    return undefined;
  }
  let service: Service;
  try {
    const flags = options.flags === undefined
      ? {}
      : (parseArgs({ args: [...argv], options: { ...options.flags, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false }).values as ServiceFlags);
    service = await build(flags);
  } catch (error) {
    reportStartFailure(error);
    exit(2);
    return undefined;
  }
  // Handlers go in before the listening lines: whoever reads a line may signal at once.
  if (options.signals ?? true) {
    const stop = (signal: NodeJS.Signals) => {
      service.log.info('stopping', { signal });
      service.close().then(
        () => exit(0),
        (error: unknown) => {
          service.log.error('stop failed', { error });
          exit(1);
        },
      );
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  }
  try {
    const lines = await service.listen();
    flushLogLines(); // a warning about the address comes before the line that announces it
    for (const line of lines) stdout.write(`${JSON.stringify(line)}\n`);
  } catch (error) {
    reportStartFailure(error);
    await service.close();
    exit(2);
    return undefined;
  }
  return service;
}

function startFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) {
    // A usage mistake, not a crash: one line, no stack.
    return `Cannot start: ${parseArgsSummary((error as Error).message)}: run with --help for usage`;
  }
  if (isAirlockError(error)) {
    return [`Cannot start: ${error.message}`, ...error.details.map((d) => `  ${d}`)].join('\n');
  }
  if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
    return `Cannot start: ${(error as Error).message}: choose another address or port`;
  }
  return `Cannot start: ${(error as Error)?.stack ?? String(error)}`;
}

