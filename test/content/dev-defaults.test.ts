// npm start's wiring for the content repository: generated secrets kept across runs (0600, other
// services' entries preserved), the repository pointed at the development provider, nothing
// secret in the printed lines; and the provider refusing anything but loopback.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contentDevDefaults } from '../../src/content/dev-defaults.ts';
import { startDevProvider } from '../../src/content/dev-oidc/provider.ts';
import { loadContentConfig } from '../../src/content/config.ts';

test('contentDevDefaults() generates the client secret and dev password once and wires the repository to the dev provider', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-content-dev-'));
  try {
    writeFileSync(join(dir, 'dev-secrets.json'), JSON.stringify({ semantic: { operator_token: 'keep-me' } }));
    const first = contentDevDefaults(dir, {});
    const second = contentDevDefaults(dir, {});
    assert.deepEqual(first.env, second.env);
    const secrets = JSON.parse(readFileSync(join(dir, 'dev-secrets.json'), 'utf8'));
    assert.equal(secrets.semantic.operator_token, 'keep-me');
    assert.equal(secrets.content.client_secret, first.env['CONTENT_OIDC_CLIENT_SECRET']);
    assert.equal(statSync(join(dir, 'dev-secrets.json')).mode & 0o777, 0o600);
    assert.equal(first.env['CONTENT_OIDC_ISSUER'], `http://${first.env['CONTENT_DEV_OIDC_LISTEN']}`);
    const config = loadContentConfig(first.env);
    assert.equal(config.publicUrl, 'http://127.0.0.1:18060');
    for (const line of first.curl) {
      assert.ok(!line.includes(secrets.content.client_secret) && !line.includes(secrets.content.dev_password), 'no secret printed');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('contentDevDefaults() follows the addresses the environment moves: the public URL (so the redirect URI) with CONTENT_LISTEN, the issuer with CONTENT_DEV_OIDC_LISTEN', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-content-dev-'));
  try {
    const moved = contentDevDefaults(dir, { CONTENT_LISTEN: '127.0.0.1:19060' });
    assert.equal(moved.env['CONTENT_PUBLIC_URL'], 'http://127.0.0.1:19060');
    assert.equal(loadContentConfig(moved.env).publicUrl, 'http://127.0.0.1:19060');
    assert.match(moved.curl[0]!, /open http:\/\/127\.0\.0\.1:19060\/share\//, 'the browser line follows too');
    const provider = contentDevDefaults(dir, { CONTENT_DEV_OIDC_LISTEN: '127.0.0.1:19069' });
    assert.equal(provider.env['CONTENT_OIDC_ISSUER'], 'http://127.0.0.1:19069');
    assert.equal(provider.env['CONTENT_PUBLIC_URL'], 'http://127.0.0.1:18060');
    const explicit = contentDevDefaults(dir, { CONTENT_LISTEN: '127.0.0.1:19060', CONTENT_PUBLIC_URL: 'https://content.example' });
    assert.equal(explicit.env['CONTENT_PUBLIC_URL'], 'https://content.example', 'an explicit public URL wins (a proxy in front)');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('startDevProvider() refuses a non-loopback address or redirect URI', async () => {
  const base = { port: 0, clientId: 'c', clientSecret: 's', password: 'p', audience: 'c', postLogoutRedirectUri: 'http://127.0.0.1:1/auth/oidc/logged-out' };
  await assert.rejects(startDevProvider({ ...base, host: '0.0.0.0', redirectUri: 'http://127.0.0.1:1/auth/oidc/callback' }), /loopback only/);
  await assert.rejects(startDevProvider({ ...base, host: '127.0.0.1', redirectUri: 'http://example.com/auth/oidc/callback' }), /loopback redirect URIs only/);
});
