// Preloaded into every test process by npm test (--import). Each test file runs in a child
// process that reports its results to the runner through a pipe, and --test-force-exit ends that
// process with process.exit() as soon as its tests are done: writes to a pipe are asynchronous in
// Node, so whatever was still buffered was lost, and the runner counted only the results it got.
// On Node 26 that silently dropped tests (a file of 420 reported 363 to 420 of them) and could
// drop a failure with them. Synchronous writes leave nothing buffered at the exit.

for (const stream of [process.stdout, process.stderr]) {
  (stream as unknown as { _handle?: { setBlocking?: (blocking: boolean) => void } })._handle?.setBlocking?.(true);
}
