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
  for await (const event of source) {
    if (event.type === 'test:dequeue') {
      const { file } = event.data as Dequeue;
      // The first dequeue of a file is the runner starting its process; its tests' come after.
      if (file !== undefined && !begun.has(file)) begun.set(file, Date.now());
    } else if (event.type === 'test:summary') {
      const { file, counts } = event.data as Summary;
      if (file === undefined) continue;
      files.push({ file: relative(process.cwd(), file), seconds: (Date.now() - (begun.get(file) ?? started)) / 1000, tests: counts.tests });
    }
  }
  files.sort((a, b) => b.seconds - a.seconds);
  const path = process.env['TEST_DURATIONS_FILE'];
  if (path) writeFileSync(path, `${JSON.stringify({ wallSeconds: (Date.now() - started) / 1000, files }, null, 1)}\n`);
  yield `\nslowest ${Math.min(SHOWN, files.length)} of ${files.length} test files (each file's own wall time; the run took ${((Date.now() - started) / 1000).toFixed(1)} s):\n`;
  for (const { file, seconds, tests } of files.slice(0, SHOWN)) {
    yield `${seconds.toFixed(1).padStart(7)} s  ${String(tests).padStart(4)} tests  ${file}\n`;
  }
}
