// A reader that stops early (`cmd | head`) closes the pipe; the next write fails with EPIPE,
// which Node raises as an unhandled 'error' event with a stack. Nobody is left to read: exit
// quietly with the exit code set so far (0 when none), as Unix tools do.

const installed = new WeakSet<object>();

type Stream = NodeJS.WritableStream & { on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown };

/** Makes an EPIPE on `stream` end the process quietly (commands); other errors are left as they are. */
export function exitQuietlyOnBrokenPipe(stream: Stream): void {
  onBrokenPipe(stream, () => process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0));
}

/**
 * Makes an EPIPE on `stream` drop the output instead (services: `semantic-api | head -1` reads
 * the listening line, and the service keeps serving).
 */
export function ignoreBrokenPipe(stream: Stream): void {
  onBrokenPipe(stream, () => {});
}

function onBrokenPipe(stream: Stream, then: () => void): void {
  if (installed.has(stream)) return;
  installed.add(stream);
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    then();
  });
}
