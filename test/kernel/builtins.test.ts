// Where the kernel now asks a Node built-in instead of its own hand-written code: each test names
// what the built-in changes (or, where it changes nothing a client sees, pins what we keep).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLoopbackHost, checkListenHost, mediaTypeOf, strongEtag } from '../../src/kernel/index.ts';
import { acceptsJsonAndEventStream } from '../../src/kernel/mcp/request-headers.ts';
import { isAirlockError } from '../../src/kernel/errors.ts';
import { checkContentType } from '../../src/kernel/http/body.ts';
import { sha256 } from '../../src/kernel/auth/_hmac.ts';
import { isIpv4, isIpv6 } from '../../src/kernel/schema/_format-ip.ts';
import { filesUnder, writeChecksum } from '../../delivery/release.ts';
import { loadManifests } from '../../scripts/_generated-contracts.ts';

test('isLoopbackHost() (net.BlockList) admits every spelling of loopback, mapped and unmapped', () => {
  // The hand-written guard refused 0::1, ::ffff:7f00:1 and 0:0:0:0:0:ffff:127.0.0.1.
  const loopback = ['127.0.0.1', '127.255.0.9', '::1', '[::1]', '0::1', '0:0:0:0:0:0:0:1', '::0:1', '::ffff:127.0.0.1', '[::ffff:127.0.0.1]', '::ffff:7f00:1', '0:0:0:0:0:ffff:127.0.0.1', 'LOCALHOST'];
  for (const host of loopback) assert.equal(isLoopbackHost(host), true, host);
  const remote = ['0.0.0.0', '::', '::2', '::127.0.0.1', '::ffff:10.0.0.1', '::ffff:a00:1', '128.0.0.1', '1.127.0.0', 'fe80::1', '127.0.0.1.example.org', 'localhost.example.org', ''];
  for (const host of remote) assert.equal(isLoopbackHost(host), false, host);
  assert.equal(checkListenHost('0::1', {}), undefined);
});

test('checkContentType() (util.MIMEType) refuses what is no media type and JSON in another charset', () => {
  const refused = (header: string | undefined, accepted = ['application/json']) => {
    try {
      checkContentType(header, accepted);
      return undefined;
    } catch (error) {
      assert.ok(isAirlockError(error) && error.code === 'unsupported_media_type');
      return error.message;
    }
  };
  assert.equal(refused('application/json'), undefined);
  assert.equal(refused('Application/JSON; Charset="UTF-8"'), undefined);
  assert.equal(refused('application/json;charset=utf-8;foo=bar'), undefined);
  assert.equal(refused('application/problem+json; charset=utf-8', ['application/problem+json']), undefined);
  assert.equal(refused('multipart/form-data; boundary=----x', ['multipart/form-data']), undefined);
  // The hand-written split(';') read only the media type: a Latin-1 body was decoded as UTF-8.
  assert.match(refused('application/json; charset=iso-8859-1') ?? '', /Cannot read a JSON body in charset "iso-8859-1": send it as UTF-8/);
  assert.equal(refused('text/plain; charset=iso-8859-1', ['text/plain']), undefined, 'the charset rule is JSON\'s (RFC 8259 8.1) only');
  assert.match(refused('application/json, text/plain') ?? '', /Content-Type "application\/json, text\/plain", which is no media type,/);
  assert.match(refused('json') ?? '', /which is no media type/);
  assert.match(refused(undefined) ?? '', /Cannot read a body with no Content-Type: send application\/json/);
  assert.match(refused('  ') ?? '', /no Content-Type/);
  assert.match(refused('text/plain') ?? '', /Content-Type "text\/plain"/);
});

test('strongEtag() and sha256() (crypto.hash) give the digests createHash gave', () => {
  for (const payload of ['', 'ä€😀', Buffer.from([0, 255, 1])]) {
    assert.equal(strongEtag(payload), `"${createHash('sha256').update(payload).digest('base64url')}"`);
  }
  assert.equal(sha256('abc').toString('hex'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.ok(Buffer.isBuffer(sha256('abc')));
});

test('ipv4 and ipv6 formats (net.isIPv4/isIPv6) keep refusing zones, leading zeros and stray text', () => {
  const v4: [string, boolean][] = [['1.2.3.4', true], ['255.255.255.255', true], ['01.2.3.4', false], ['256.1.1.1', false], ['1.2.3', false], ['1.2.3.4 ', false], ['১.2.3.4', false]];
  for (const [text, expected] of v4) assert.equal(isIpv4(text), expected, text);
  const v6: [string, boolean][] = [
    ['::1', true], ['::', true], ['1:2:3:4:5:6:7:8', true], ['::ffff:1.2.3.4', true], ['1:2:3:4:5:6:1.2.3.4', true],
    ['1:2:3:4:5:6:7:8:9', false], ['1::2::3', false], ['::1.2.3.04', false], ['12345::', false], [' ::1', false],
    // net.isIPv6 admits a scoped address; the JSON Schema format (RFC 4291 text) does not.
    ['fe80::1%eth0', false], ['fe80::1%25eth0', false],
  ];
  for (const [text, expected] of v6) assert.equal(isIpv6(text), expected, text);
});

test('filesUnder() (fs.globSync) lists files recursively and leaves dot-files out of a release', (t) => {
  const root = mkdtempSync(join(tmpdir(), 'airlock-glob-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'docs', 'sub'), { recursive: true });
  mkdirSync(join(root, 'docs', '.cache'), { recursive: true });
  for (const file of ['docs/b.md', 'docs/a.md', 'docs/sub/c.md', 'docs/.a.md.swp', 'docs/.cache/x.md']) writeFileSync(join(root, file), 'x');
  // The recursive readdir shipped docs/.a.md.swp and docs/.cache/x.md.
  assert.deepEqual(filesUnder(root, 'docs'), ['docs/a.md', 'docs/b.md', 'docs/sub/c.md']);
  assert.deepEqual(filesUnder(root, 'missing'), []);
});

test('writeChecksum() writes the archive\'s SHA-256 beside it in sha256sum format', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-sum-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const archive = join(dir, 'airlock-1.0.0-linux-x64.tar.gz');
  writeFileSync(archive, 'abc');
  const digest = writeChecksum(archive);
  assert.equal(digest, 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.equal(readFileSync(`${archive}.sha256`, 'utf8'), `${digest}  airlock-1.0.0-linux-x64.tar.gz\n`);
});

test('loadManifests() (fs.globSync) finds every service manifest and not the kernel\'s', async () => {
  const services = (await loadManifests()).map((m) => m.service);
  assert.deepEqual(services, ['agent-context', 'content', 'erp', 'governance', 'messaging', 'semantic']);
});

test('mediaTypeOf() (util.MIMEType) reads the essence, and nothing from what is no media type', () => {
  const table: [string | undefined, string | undefined][] = [
    ['Application/JSON; charset=utf-8', 'application/json'], ['application/x-www-form-urlencoded;charset=UTF-8', 'application/x-www-form-urlencoded'],
    ['text/plain ; format=flowed', 'text/plain'], [undefined, undefined], ['', undefined], ['json', undefined], ['application/json, text/plain', undefined],
  ];
  for (const [header, expected] of table) assert.equal(mediaTypeOf(header), expected, String(header));
});

test('acceptsJsonAndEventStream() (util.MIMEType per range) honours ranges, q=0 and case', () => {
  const table: [string | undefined, boolean][] = [
    ['application/json, text/event-stream', true], ['Application/JSON;q=1, TEXT/EVENT-STREAM', true], ['*/*', true], ['application/*, text/*', true],
    ['application/json, text/event-stream;q=0', false], ['application/json;q=0.000, text/event-stream', false], ['application/json', false],
    ['application/json, garbage, text/event-stream', true], [undefined, false],
  ];
  for (const [accept, expected] of table) assert.equal(acceptsJsonAndEventStream(accept), expected, String(accept));
});
