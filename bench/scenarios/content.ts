// content: 1 MiB multipart uploads through the content repository (session auth, streaming
// multipart parse, SHA-256, content-addressed file, node and version rows, evidence, group
// commit) beside bare node:http streaming the same bytes to disk; and full-text search queries
// beside the bare JSON baseline. Both at concurrency 16. Targets (issue 19): uploads >= 0.5 of
// the baseline; search p95 reported.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareHttp } from '../lib/compare-http.ts';
import type { Scenario } from '../lib/scenario.ts';

const API = '/repository/api/-default-/public/repository/versions/1';
const SEARCH = '/repository/api/-default-/public/search/versions/1/search';
const MIB = Buffer.alloc(1024 * 1024, 'airlock content bench payload\n');
const BOUNDARY = 'airlockbenchboundary7f3a';
const TAIL = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
const sessionFile = join(mkdtempSync(join(tmpdir(), 'airlock-bench-session-')), 'session');
let counter = 0;

/** The subject server's session cookie; the baselines run before it exists and need none. */
function session(): string {
  return existsSync(sessionFile) ? readFileSync(sessionFile, 'utf8') : '';
}

function uploadBody() {
  const n = counter++;
  const head = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="filedata"; filename="upload-${process.pid}-${n}.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  // Distinct bytes in every upload, as users send: each is its own blob (its own file, directory
  // entry and fsyncs), not the same blob stored again.
  const unique = Buffer.from(`upload ${process.pid} ${n}\n`);
  return { body: Buffer.concat([head, unique, MIB.subarray(unique.length), TAIL]), headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, cookie: session() } };
}

const QUERIES = ['alpha', 'bravo charlie', 'delta*', 'name:doc', 'echo foxtrot golf', '"hotel india"'];
function searchBody() {
  const query = QUERIES[counter++ % QUERIES.length]!;
  return { body: JSON.stringify({ query: { query }, paging: { maxItems: 25 } }), headers: { 'content-type': 'application/json', cookie: session() } };
}

export const scenario: Scenario = {
  name: 'content',
  description: '1 MiB uploads and search queries through content-api at concurrency 16, vs bare node:http (streaming to disk; bare JSON)',
  async run(options) {
    const at16 = { ...options, concurrency: 16 };
    const server = fileURLToPath(new URL('../servers/content.ts', import.meta.url));
    const upload = await compareHttp({
      scenario: 'content-upload-1mib',
      server,
      env: { BENCH_CONTENT_SESSION_FILE: sessionFile, BENCH_CONTENT_SEED_DOCS: '0' },
      request: { path: `${API}/nodes/-root-/children`, method: 'POST', body: uploadBody },
      baselineServer: fileURLToPath(new URL('../servers/upload-baseline.ts', import.meta.url)),
      baselineRequest: { path: '/', method: 'POST', body: uploadBody },
      expectStatus: 201,
    }, at16);
    const search = await compareHttp({
      scenario: 'content-search',
      server,
      env: { BENCH_CONTENT_SESSION_FILE: sessionFile, BENCH_CONTENT_SEED_DOCS: '500' },
      request: { path: SEARCH, method: 'POST', body: searchBody },
      baselineRequest: { path: '/', method: 'POST', body: searchBody },
      expectStatus: 200,
    }, at16);
    return [{ ...upload, target_ratio: 0.5 }, { ...search, note: 'search p95 reported; no ratio target' }];
  },
};
