// The bare node:http baseline for uploads: stream the request body to a new file on disk (no
// parsing, no hashing, no database) and answer 201 when the file is closed. With
// BENCH_UPLOAD_BASELINE_DURABLE=1 (opt-in, not the scenario's comparison) it also makes each file
// durable before answering, as an upload that promises durability must: an fsync of the file at
// close and an fsync of its directory (docs/performance.md, "Content upload").
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fsyncDirectory } from '../../src/content/directory-sync.ts';

const durable = process.env['BENCH_UPLOAD_BASELINE_DURABLE'] === '1';
const dir = mkdtempSync(join(tmpdir(), 'airlock-bench-upload-baseline-'));
let n = 0;

const server = createServer((request, response) => {
  pipeline(request, createWriteStream(join(dir, String(n++)), { flush: durable }))
    .then(() => (durable ? fsyncDirectory(dir) : undefined))
    .then(
      () => {
        response.writeHead(201, { 'content-type': 'application/json', 'content-length': 2 });
        response.end('{}');
      },
      () => response.destroy(),
    );
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ msg: 'listening', service: 'upload-baseline', listener: 'main', url: `http://127.0.0.1:${address.port}` })}\n`);
});
process.once('SIGTERM', () => server.close(() => {
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}));
