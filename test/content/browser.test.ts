// The share UI in a real browser: Debian's chromium, headless, driven over the DevTools
// protocol, against content-api and the development OpenID provider that npm start uses.
// Login, upload, a new version, search, delete, restore, a permission change, logout, and the API's 401 afterwards; a screenshot of
// each page goes to test-output/content-browser/ (not committed).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Server } from 'node:http';
import { createLogger } from '../../src/kernel/index.ts';
import type { Service } from '../../src/kernel/index.ts';
import { loadContentConfig } from '../../src/content/config.ts';
import { DEV_GROUP, startDevProvider } from '../../src/content/dev-oidc/provider.ts';
import { createContentService } from '../../src/content/service.ts';
import { launchChromium } from './_cdp.ts';
import type { Browser } from './_cdp.ts';
import { send } from '../helpers/http.ts';
import { freePort } from './_service.ts';

const SHOTS = resolve(import.meta.dirname, '..', '..', 'test-output', 'content-browser');
const PASSWORD = 'browser-test-password';
let dataDir: string;
let op: Server;
let service: Service;
let base: string;
let chromium: Browser;

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  dataDir = mkdtempSync(join(tmpdir(), 'airlock-content-browser-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const started = await startDevProvider({ host: '127.0.0.1', port: 0, clientId: 'browser-test', clientSecret: 'browser secret', redirectUri: `${base}/auth/oidc/callback`, postLogoutRedirectUri: `${base}/auth/oidc/logged-out`, password: PASSWORD, audience: 'browser-test' });
  op = started.server;
  const config = loadContentConfig({ AIRLOCK_DATA_DIR: dataDir, CONTENT_LISTEN: `127.0.0.1:${port}`, CONTENT_PUBLIC_URL: base, CONTENT_OIDC_ISSUER: started.issuer, CONTENT_OIDC_CLIENT_ID: 'browser-test', CONTENT_OIDC_CLIENT_SECRET: 'browser secret', CONTENT_COMPANY_HOME_WRITERS: DEV_GROUP });
  service = await createContentService(config, { log: createLogger({ write: () => undefined }) });
  await service.listen();
  chromium = await launchChromium();
});

after(async () => {
  await chromium?.close();
  await service?.close();
  await new Promise((r) => (op ? op.close(r) : r(undefined)));
  rmSync(dataDir, { recursive: true, force: true });
});

test('chromium: login, upload, new version, search, delete and restore, a permission change, logout, then 401 and a redirect again', { timeout: 60_000 }, async () => {
  const page = chromium.page;
  const shot = (name: string) => page.screenshot(join(SHOTS, `${name}.png`));
  const files = mkdtempSync(join(tmpdir(), 'airlock-upload-'));
  const v1 = join(files, 'field-notes.txt');
  const v2 = join(files, 'field-notes-v2.txt');
  writeFileSync(v1, 'Field notes: the quokka census starts Monday.\n');
  writeFileSync(v2, 'Field notes, revised: the quokka census starts Tuesday.\n');
  try {
    await page.goto(`${base}/share/`);
    await page.waitFor(`document.querySelector('#password')`, 'the development sign-in page');
    await shot('01-sign-in');
    await page.evaluate(`document.querySelector('#password').value = ${JSON.stringify(PASSWORD)}; document.querySelector('#sign-in').click(); true`);
    await page.waitFor(`location.pathname === '/share/' && document.querySelector('#upload-form')`, 'the share UI after login');
    assert.match(await page.evaluate<string>('document.body.innerText'), /Signed in as Dev User/);
    await shot('02-share-root');

    await page.setFiles('#upload-file', [v1]);
    await page.evaluate(`document.querySelector('#upload-go').click(); true`);
    await page.waitFor(`location.pathname.startsWith('/share/file/')`, 'the file page after upload');
    assert.equal(await page.evaluate<string>(`document.querySelector('#current-version').textContent`), '1.0');
    await shot('03-uploaded');

    await page.setFiles('#version-file', [v2]);
    await page.evaluate(`document.querySelector('#version-comment').value = 'Tuesday, not Monday'; document.querySelector('#version-go').click(); true`);
    await page.waitFor(`document.querySelector('#current-version')?.textContent === '1.1'`, 'version 1.1');
    assert.equal(await page.evaluate<number>(`document.querySelectorAll('#versions tr.version').length`), 2);
    const downloads = await page.evaluate<string[]>(`[...document.querySelectorAll('a.download')].map(a => a.href)`);
    // The page's CSP forbids fetch() (connect-src falls back to 'none'), so download with the browser's own session cookie.
    const { cookies } = await page.send('Network.getAllCookies');
    const session = (cookies as { name: string; value: string }[]).find((c) => c.name === 'content_session')!;
    assert.ok(session, 'the browser holds the session cookie');
    const bodies = await Promise.all(downloads.map(async (u) => (await send(u, { headers: { cookie: `content_session=${session.value}` } })).text));
    assert.deepEqual(bodies.map((b) => b.includes('Tuesday')), [true, false]);
    await shot('04-new-version');

    await page.evaluate(`document.querySelector('#search-q').value = 'quokka'; document.querySelector('#search-go').click(); true`);
    await page.waitFor(`location.pathname === '/share/search' && document.querySelector('#search-count')`, 'search results');
    assert.match(await page.evaluate<string>(`document.querySelector('#search-count').textContent`), /^1 result/);
    await shot('05-search');

    // Delete the file (with its confirmation), find it in the trashcan, restore it.
    await page.evaluate(`document.querySelector('#results a.node-link').click(); true`);
    await page.waitFor(`location.pathname.startsWith('/share/file/') && document.querySelector('#delete-link')`, 'the file page with its delete link');
    const fileUrl = await page.evaluate<string>('location.pathname');
    await page.evaluate(`document.querySelector('#delete-link').click(); true`);
    await page.waitFor(`document.querySelector('#confirm-message')`, 'the delete confirmation');
    assert.match(await page.evaluate<string>(`document.querySelector('#confirm-message').textContent`), /moves the file field-notes\.txt with all its versions to your trashcan/);
    await shot('06-confirm-delete');
    await page.evaluate(`document.querySelector('#confirm-go').click(); true`);
    await page.waitFor(`location.pathname === '/share/folder/company-home'`, 'Company Home after the delete');
    assert.equal(await page.evaluate<number>(`[...document.querySelectorAll('#children a.node-link')].filter(a => a.textContent === 'field-notes.txt').length`), 0);
    await page.evaluate(`document.querySelector('#trashcan-link').click(); true`);
    await page.waitFor(`location.pathname === '/share/trashcan' && document.querySelector('#trashcan')`, 'the trashcan');
    assert.match(await page.evaluate<string>(`document.querySelector('#trashcan').textContent`), /field-notes\.txt/);
    await shot('07-trashcan');
    await page.evaluate(`document.querySelector('#trashcan button.restore').click(); true`);
    await page.waitFor(`location.pathname === ${JSON.stringify(fileUrl)} && document.querySelector('#current-version')`, 'the restored file');
    assert.equal(await page.evaluate<string>(`document.querySelector('#current-version').textContent`), '1.1');

    // A folder of one's own: grant a colleague Consumer, then stop inheriting.
    await page.goto(`${base}/share/`);
    await page.waitFor(`document.querySelector('form[action$="/folder"] input[name=name]')`, 'the new-folder form');
    await page.evaluate(`document.querySelector('form[action$="/folder"] input[name=name]').value = 'Team notes'; document.querySelector('form[action$="/folder"]').submit(); true`);
    await page.waitFor(`document.querySelector('#grant-form')`, 'the permissions panel of the new folder');
    await page.evaluate(`document.querySelector('#grant-authority').value = 'colleague'; document.querySelector('#grant-role').value = 'Consumer'; document.querySelector('#grant-go').click(); true`);
    await page.waitFor(`document.querySelector('#local-permissions')?.textContent.includes('colleague')`, 'the new grant');
    await page.evaluate(`document.querySelector('#inherit-toggle').click(); true`);
    await page.waitFor(`document.querySelector('#permissions')?.textContent.includes('Inherited: off')`, 'inheritance off');
    await shot('08-permissions');

    await page.evaluate(`document.querySelector('#logout').click(); true`);
    await page.waitFor(`location.pathname === '/auth/oidc/logged-out'`, 'the logged-out page after the provider\'s logout');
    await shot('09-logged-out');

    await page.goto(`${base}/repository/api/-default-/public/repository/versions/1/nodes/-root-`);
    await page.waitFor(`document.body.innerText.includes('statusCode')`, 'the API answer after logout');
    assert.match(await page.evaluate<string>('document.body.innerText'), /"statusCode":401/);
    await page.goto(`${base}/share/`);
    await page.waitFor(`document.querySelector('#password')`, 'the sign-in page again');
  } finally {
    rmSync(files, { recursive: true, force: true });
  }
});
