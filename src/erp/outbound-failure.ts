// What an outbound call's failure was, in words an operator can act on (no URL credentials, no
// token): a timeout, or the transport error's code (ECONNREFUSED, ENOTFOUND, ...).

export function describeFetchFailure(error: unknown, timeoutMs: number): string {
  const name = (error as Error).name;
  if (name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  const cause = ((error as Error).cause as NodeJS.ErrnoException | undefined)?.code;
  return `unreachable (${cause ?? name})`;
}
