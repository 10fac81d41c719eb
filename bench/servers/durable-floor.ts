// The least a server can do to acknowledge a POST durably on node:sqlite: read the body, insert it
// as one row through a group commit (one BEGIN IMMEDIATE ... COMMIT per event-loop turn, WAL,
// synchronous=FULL, as DESIGN.md fixes), answer 202 after COMMIT. No parsing, hashing, chain,
// authentication or log: the floor under every durable-write scenario (docs/performance.md).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

const dataDir = mkdtempSync(join(tmpdir(), 'airlock-bench-durable-floor-'));
process.once('exit', () => rmSync(dataDir, { recursive: true, force: true }));
const sqlite = new DatabaseSync(join(dataDir, 'floor.sqlite'));
sqlite.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;
  CREATE TABLE rows (seq INTEGER PRIMARY KEY, body BLOB NOT NULL)`);
const begin = sqlite.prepare('BEGIN IMMEDIATE');
const insert = sqlite.prepare('INSERT INTO rows (body) VALUES (?)');
const commit = sqlite.prepare('COMMIT');
const ANSWER = JSON.stringify({ status: 'accepted' });

let queue: { body: Buffer; response: ServerResponse }[] = [];
let scheduled = false;

function flush(): void {
  scheduled = false;
  const batch = queue;
  queue = [];
  begin.run();
  for (const { body } of batch) insert.run(body);
  commit.run();
  for (const { response } of batch) {
    response.writeHead(202, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(ANSWER) });
    response.end(ANSWER);
  }
}

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    queue.push({ body: Buffer.concat(chunks), response });
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ msg: 'listening', service: 'durable-floor', listener: 'main', url: `http://127.0.0.1:${address.port}` })}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
