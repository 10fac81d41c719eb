// Polls a condition that another process or the event loop makes true, up to a time limit: for
// tests that wait on a peer (a subscriber, a reconnect) rather than on a promise of their own.

/** Resolves once `check()` is true; rejects after `ms` milliseconds. Polls every 10 ms. */
export async function until(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not reached within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
