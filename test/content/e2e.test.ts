// The bundles end to end: content-dev-oidc and content-api as separate processes, a login
// through the real code flow (as a browser walks it), an upload, search, the probe, logout and
// the 401 after it, the dev provider refusing a non-loopback address, and a clean SIGTERM.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { sharedBuild } from '../helpers/shared-build.ts';
import { API, SEARCH, freePort } from './_service.ts';

async function start(bundle: string, env: Record<string, string>): Promise<{ child: ChildProcess; url: string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [bundle], { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  for await (const line of createInterface({ input: child.stdout! })) {
    const parsed = JSON.parse(line) as { msg: string; url: string };
    if (parsed.msg === 'listening') return { child, url: parsed.url, exited };
  }
  throw new Error(`${bundle} did not listen: ${stderr}`);
}

test('bundles: content-dev-oidc and content-api log in, upload, search, probe, log out, then 401', { timeout: 120_000 }, async () => {
  const outdir = await sharedBuild();
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-content-e2e-'));
  const children: ChildProcess[] = [];
  try {
    const api = join(outdir, 'bin', 'content-api.mjs');
    const dev = join(outdir, 'bin', 'content-dev-oidc.mjs');
    for (const bundle of [api, dev]) assert.equal(spawnSync(process.execPath, [bundle, '--help']).status, 0);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const shared = { CONTENT_OIDC_CLIENT_ID: 'e2e', CONTENT_OIDC_CLIENT_SECRET: 'e2e secret', CONTENT_PUBLIC_URL: base };
    const refused = spawnSync(process.execPath, [dev], { env: { ...shared, PATH: process.env['PATH'] ?? '', CONTENT_DEV_OIDC_PASSWORD: 'pw', CONTENT_DEV_OIDC_LISTEN: '0.0.0.0:0', AIRLOCK_ALLOW_NON_LOOPBACK: '1' }, encoding: 'utf8' });
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /loopback only/);
    const op = await start(dev, { ...shared, CONTENT_DEV_OIDC_PASSWORD: 'e2e-password', CONTENT_DEV_OIDC_LISTEN: '127.0.0.1:0' });
    children.push(op.child);
    const content = await start(api, { ...shared, AIRLOCK_DATA_DIR: dataDir, CONTENT_LISTEN: `127.0.0.1:${port}`, CONTENT_OIDC_ISSUER: op.url, CONTENT_COMPANY_HOME_WRITERS: 'content-writers' });
    children.push(content.child);
    assert.equal(content.url, base);

    const startLogin = await fetch(`${base}/`, { redirect: 'manual' });
    assert.equal(startLogin.headers.get('location'), '/auth/oidc/login?return_to=%2Fshare%2F');
    const begin = await fetch(`${base}/auth/oidc/login?return_to=%2Fshare%2F`, { redirect: 'manual' });
    const stateCookie = begin.headers.get('set-cookie')!.split(';')[0]!;
    const authorize = new URL(begin.headers.get('location')!);
    assert.equal((await fetch(authorize)).status, 200, 'the sign-in page');
    const wrong = await fetch(`${op.url}/authorize`, { method: 'POST', body: new URLSearchParams([...authorize.searchParams, ['username', 'dev'], ['password', 'nope']]), redirect: 'manual' });
    assert.equal(wrong.status, 401);
    const approved = await fetch(`${op.url}/authorize`, { method: 'POST', body: new URLSearchParams([...authorize.searchParams, ['username', 'dev'], ['password', 'e2e-password']]), redirect: 'manual' });
    const callback = await fetch(approved.headers.get('location')!, { headers: { cookie: stateCookie }, redirect: 'manual' });
    assert.equal(callback.status, 302);
    assert.equal(callback.headers.get('location'), '/share/');
    const cookie = callback.headers.getSetCookie().find((c) => c.startsWith('content_session='))!.split(';')[0]!;

    const form = new FormData();
    form.set('filedata', new Blob(['bundled narwhal text'], { type: 'text/plain' }), 'e2e.txt');
    const uploaded = await fetch(`${base}${API}/nodes/-root-/children`, { method: 'POST', body: form, headers: { cookie } });
    assert.equal(uploaded.status, 201);
    const found = (await (await fetch(`${base}${SEARCH}`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ query: { query: 'narwhal' } }) })).json()) as { list: { pagination: { totalItems: number } } };
    assert.equal(found.list.pagination.totalItems, 1);
    assert.equal((await fetch(`${base}${API}/probes/-ready-`)).status, 200);

    const page = await (await fetch(`${base}/share/`, { headers: { cookie } })).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
    const out = await fetch(`${base}/auth/oidc/logout`, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: `_csrf=${encodeURIComponent(csrf)}`, redirect: 'manual' });
    assert.equal(out.status, 200);
    assert.match(await out.text(), new RegExp(`${op.url}/logout\\?id_token_hint=`));
    assert.equal((await fetch(`${base}${API}/nodes/-root-`, { headers: { cookie } })).status, 401);

    content.child.kill('SIGTERM');
    assert.equal(await content.exited, 0);
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
