// An acknowledged upload survives SIGKILL at any instant (docs/content.md, Storage): the content
// repository runs as its own process (bench/servers/content.ts: the service as shipped, behind the
// development provider), 16 clients upload distinct files, and the process is killed while they
// do, three times. Each time it starts again on the same data, it answers every upload it
// acknowledged with its bytes; in the end its start has judged what the journal named (no tmp/
// entry left), and no blob is on disk that no version names.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { send } from '../helpers/http.ts';
import { startServiceProcess } from '../helpers/service-process.ts';
import type { ServiceProcess } from '../helpers/service-process.ts';
import { API, multipart } from './_service.ts';

const CLIENTS = 16;
const KILLS = 3;

async function start(dataDir: string, sessionFile: string): Promise<{ server: ServiceProcess; base: string; cookie: string }> {
  const server = await startServiceProcess('bench/servers/content.ts', {
    env: { BENCH_CONTENT_DATA_DIR: dataDir, BENCH_CONTENT_SESSION_FILE: sessionFile, BENCH_CONTENT_SEED_DOCS: '0' },
    args: [],
  });
  return { server, base: server.urls['main']!, cookie: readFileSync(sessionFile, 'utf8') };
}

/** Every blob file under content-blobs/<aa>/<bb>/. */
function blobsOnDisk(root: string): string[] {
  return readdirSync(root).filter((a) => /^[0-9a-f]{2}$/.test(a)).flatMap((a) => readdirSync(join(root, a)).flatMap((b) => readdirSync(join(root, a, b))));
}

test('uploads killed by SIGKILL: every acknowledged upload is readable after the restart, tmp/ is judged empty, no blob is left that no version names', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-upload-crash-'));
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir);
  const sessionFile = join(dir, 'session');
  let running: ServiceProcess | undefined;
  try {
    const acknowledged: { id: string; sha256: string }[] = [];
    let sent = 0;
    for (let round = 0; round <= KILLS; round++) {
      const { server, base, cookie } = await start(dataDir, sessionFile);
      running = server;
      // What the start before found: every upload acknowledged so far, with its bytes.
      for (const upload of acknowledged) {
        const r = await fetch(`${base}${API}/nodes/${upload.id}/content`, { headers: { cookie } });
        const bytes = Buffer.from(await r.arrayBuffer());
        assert.equal(r.status, 200, `${upload.id}: ${bytes.toString()}`);
        assert.equal(createHash('sha256').update(bytes).digest('hex'), upload.sha256, upload.id);
      }
      if (round === KILLS) break;
      let killed = false;
      const client = async () => {
        while (!killed) {
          // Sizes from a byte to 300 KiB: several socket chunks, several writes of the blob.
          const content = randomBytes(1 + Math.floor(Math.random() * 300 * 1024));
          const name = `crash-${sent++}.bin`;
          const m = multipart([['name', name]], { name, type: 'application/octet-stream', content });
          try {
            const r = await send(`${base}${API}/nodes/-root-/children`, { method: 'POST', headers: { cookie, 'content-type': m.contentType }, body: m.body });
            assert.equal(r.status, 201, r.text);
            acknowledged.push({ id: (r.json() as { entry: { id: string } }).entry.id, sha256: createHash('sha256').update(content).digest('hex') });
          } catch (error) {
            // The kill cut this upload: the client never learned its outcome.
            if (!killed) throw error;
          }
        }
      };
      const clients = Array.from({ length: CLIENTS }, client);
      // Killed while uploads are in every stage: some acknowledged, the rest in flight.
      const target = acknowledged.length + 30;
      while (acknowledged.length < target) await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 10));
      killed = true;
      await server.stop('SIGKILL');
      await Promise.all(clients);
    }
    const blobRoot = join(dataDir, 'content-blobs');
    assert.deepEqual(readdirSync(join(blobRoot, 'tmp')), [], 'the start judged every journal entry and removed every partial file');
    const sqlite = new DatabaseSync(join(dataDir, 'content.sqlite'), { readOnly: true });
    try {
      const named = new Set(sqlite.prepare('SELECT DISTINCT sha256 FROM versions').all().map((row) => String(row['sha256'])));
      assert.deepEqual(blobsOnDisk(blobRoot).filter((sha) => !named.has(sha)), [], 'no blob that no version names');
      for (const upload of acknowledged) assert.ok(named.has(upload.sha256));
    } finally {
      sqlite.close();
    }
  } finally {
    await running?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
