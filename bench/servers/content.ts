// The content repository as shipped (createContentService) behind the development OpenID
// provider, in a temporary data directory: it logs in through the real code flow, writes the
// session cookie to BENCH_CONTENT_SESSION_FILE, seeds BENCH_CONTENT_SEED_DOCS text documents
// for search, and only then prints its listening line. BENCH_CONTENT_DATA_DIR names a data
// directory to use and keep (test/content/upload-crash.test.ts kills this server and starts it
// again there).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, writeFileAtomic } from '../../src/kernel/index.ts';
import { loadContentConfig } from '../../src/content/config.ts';
import { DEV_GROUP, startDevProvider } from '../../src/content/dev-oidc/provider.ts';
import { createContentService } from '../../src/content/service.ts';

const API = '/repository/api/-default-/public/repository/versions/1';
const kept = process.env['BENCH_CONTENT_DATA_DIR'];
const dir = kept ?? mkdtempSync(join(tmpdir(), 'airlock-bench-content-'));
const probe = createNetServer();
await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
const port = (probe.address() as { port: number }).port;
await new Promise((r) => probe.close(r));
const base = `http://127.0.0.1:${port}`;
const op = await startDevProvider({ host: '127.0.0.1', port: 0, clientId: 'bench', clientSecret: 'bench-secret', redirectUri: `${base}/auth/oidc/callback`, postLogoutRedirectUri: `${base}/auth/oidc/logged-out`, password: 'bench', audience: 'bench' });
const config = loadContentConfig({ AIRLOCK_DATA_DIR: dir, CONTENT_LISTEN: `127.0.0.1:${port}`, CONTENT_PUBLIC_URL: base, CONTENT_OIDC_ISSUER: op.issuer, CONTENT_OIDC_CLIENT_ID: 'bench', CONTENT_OIDC_CLIENT_SECRET: 'bench-secret', CONTENT_MAX_UPLOAD_BYTES: String(8 * 1024 * 1024), CONTENT_COMPANY_HOME_WRITERS: DEV_GROUP });
const service = await createContentService(config, { log: createLogger({ level: 'error' }) });
await service.listen();

// The code flow, as a browser walks it.
const start = await fetch(`${base}/auth/oidc/login`, { redirect: 'manual' });
const stateCookie = String(start.headers.get('set-cookie')).split(';')[0]!;
const authorize = new URL(String(start.headers.get('location')));
const form = new URLSearchParams([...authorize.searchParams, ['username', 'dev'], ['password', 'bench']]);
const approved = await fetch(`${op.issuer}/authorize`, { method: 'POST', body: form, redirect: 'manual' });
const callback = await fetch(String(approved.headers.get('location')), { headers: { cookie: stateCookie }, redirect: 'manual' });
const session = callback.headers.getSetCookie().find((c) => c.startsWith('content_session='))!.split(';')[0]!;
writeFileAtomic(process.env['BENCH_CONTENT_SESSION_FILE'] ?? join(dir, 'session'), session, { mode: 0o600 });

const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima'];
for (let i = 0; i < Number(process.env['BENCH_CONTENT_SEED_DOCS'] ?? '0'); i++) {
  const text = Array.from({ length: 200 }, (_, j) => words[(i * 7 + j * 3) % words.length]).join(' ');
  const body = new FormData();
  body.set('filedata', new Blob([`document ${i}: ${text}`], { type: 'text/plain' }), `doc-${i}.txt`);
  await fetch(`${base}${API}/nodes/-root-/children`, { method: 'POST', body, headers: { cookie: session } });
}
process.stdout.write(`${JSON.stringify({ msg: 'listening', service: 'content', listener: 'main', url: base })}\n`);
process.once('SIGTERM', async () => {
  await service.close();
  op.server.close();
  if (kept === undefined) rmSync(dir, { recursive: true, force: true });
  process.exit(0);
});
