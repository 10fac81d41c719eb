import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { messagingDevDefaults } from '../../src/messaging/dev-defaults.ts';

test('messagingDevDefaults() generates an owner-readback token once, keeps other services\' secrets, and sets no NATS_URL', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-msg-dev-'));
  writeFileSync(join(dir, 'dev-secrets.json'), JSON.stringify({ semantic: { operator_token: 'keep-me' } }));
  const first = messagingDevDefaults(dir);
  const second = messagingDevDefaults(dir);
  assert.equal(first.env['OWNER_READBACK_API_TOKEN'], second.env['OWNER_READBACK_API_TOKEN']);
  assert.ok(first.env['OWNER_READBACK_API_TOKEN']!.length >= 32);
  assert.equal('NATS_URL' in first.env, false);
  const stored = JSON.parse(readFileSync(join(dir, 'dev-secrets.json'), 'utf8'));
  assert.equal(stored.semantic.operator_token, 'keep-me');
  assert.equal(statSync(join(dir, 'dev-secrets.json')).mode & 0o777, 0o600);
  for (const line of first.curl) assert.ok(!line.includes(first.env['OWNER_READBACK_API_TOKEN']!));
});
