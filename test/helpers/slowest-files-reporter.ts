// A node:test reporter that names the slowest test files at the end of a run, so the CI rule "npm
// test under 10 minutes" shows where the time goes before it is broken. With the environment
// variable TEST_DURATIONS_FILE set, it also writes every file's duration there as JSON.
// A file's duration runs from the moment the runner starts its process (the first dequeue event of
// the file) to its summary, so it counts the process start and the module loading too. Files run
// concurrently, so the durations add up to more than the run took.

import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';

interface Summary { file?: string; counts: { tests: number } }
interface Dequeue { file?: string }

const SHOWN = 15;

export default async function* slowestFiles(source: AsyncIterable<{ type: string; data: unknown }>): AsyncGenerator<string> {
  const started = Date.now();
  const files: { file: string; seconds: number; tests: number }[] = [];
  const begun = new Map<string, number>();
  let reported = false;
  for await (const event of source) {
    if (event.type === 'test:dequeue') {
      const { file } = event.data as Dequeue;
      // The first dequeue of a file is the runner starting its process; its tests' come after.
      if (file !== undefined && !begun.has(file)) begun.set(file, Date.now());
    } else if (event.type === 'test:summary') {
      const { file, counts } = event.data as Summary;
      if (file !== undefined) files.push({ file: relative(process.cwd(), file), seconds: (Date.now() - (begun.get(file) ?? started)) / 1000, tests: counts.tests });
      else if (!reported) yield* table(files, (Date.now() - started) / 1000);
      reported ||= file === undefined;
    } else if (event.type === 'test:plan' && (event.data as Dequeue).file === undefined && !reported) {
      // The run's own plan comes after every file and before the run's summary, which a second
      // reporter may never see: --test-force-exit ends the process once the first has it.
      reported = true;
      yield* table(files, (Date.now() - started) / 1000);
    }
  }
}

function* table(files: { file: string; seconds: number; tests: number }[], wallSeconds: number): Generator<string> {
  files.sort((a, b) => b.seconds - a.seconds);
  const path = process.env['TEST_DURATIONS_FILE'];
  if (path) writeFileSync(path, `${JSON.stringify({ wallSeconds, files }, null, 1)}\n`);
  yield `\nslowest ${Math.min(SHOWN, files.length)} of ${files.length} test files (each file's own wall time; the run took ${wallSeconds.toFixed(1)} s):\n`;
  for (const { file, seconds, tests } of files.slice(0, SHOWN)) {
    yield `${seconds.toFixed(1).padStart(7)} s  ${String(tests).padStart(4)} tests  ${file}\n`;
  }
}
