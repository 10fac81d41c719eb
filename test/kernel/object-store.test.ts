// The kernel's JetStream Object Store against a real nats-server: chunks of 128 KiB, meta on the
// padded base64url subject with a rollup (one meta per name), the digest as every client writes
// it, the bytes back through a checked temporary file, a delete as the clients delete; an unknown object, a corrupt one and an
// invalid bucket each fail with the reason. (Interoperability with nats.js 2.29.3 was checked
// both ways by hand: each reads what the other writes.)

import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { connectNats, createObjectStore, createStreamApi, OBJECT_CHUNK_BYTES, parseNatsUrls } from '../../src/kernel/index.ts';
import type { NatsClient } from '../../src/kernel/index.ts';
import { encodeObjectName } from '../../src/kernel/nats/object-store.ts';
import { startNatsServer } from '../helpers/nats-server.ts';
import type { RunningNatsServer } from '../helpers/nats-server.ts';

let server: RunningNatsServer;
let client: NatsClient;
let dir: string;

before(async () => {
  server = await startNatsServer({ jetstream: true });
  client = await connectNats({ servers: parseNatsUrls(server.url) });
  dir = mkdtempSync(join(tmpdir(), 'airlock-object-store-'));
});
after(async () => {
  await client.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('createObjectStore() stores a file in 128 KiB chunks with its meta, and gives the same bytes back', async () => {
  const store = createObjectStore(client, { bucket: 'BLOBS' });
  await store.ensure({ replicas: 1 });
  await store.ensure({ replicas: 1 });
  const bytes = randomBytes(2 * OBJECT_CHUNK_BYTES + 1000);
  const sha256 = createHash('sha256').update(bytes).digest();
  writeFileSync(join(dir, 'in'), bytes);
  const info = await store.putFile('report/ü.bin', join(dir, 'in'));
  assert.deepEqual([info.size, info.chunks, info.bucket], [bytes.length, 3, 'BLOBS']);
  assert.equal(info.digest, `SHA-256=${sha256.toString('base64').replaceAll('+', '-').replaceAll('/', '_')}`);
  assert.match(info.digest, /=$/, 'padded, as Go writes it');
  const api = createStreamApi(client);
  const meta = await api.lastBySubject('OBJ_BLOBS', `$O.BLOBS.M.${encodeObjectName('report/ü.bin')}`);
  assert.equal(meta?.headers['Nats-Rollup'], 'sub');
  assert.deepEqual(JSON.parse(meta!.data.toString()), info);
  assert.equal(await api.subjectCount('OBJ_BLOBS', `$O.BLOBS.C.${info.nuid}`), 3);

  // Stored again: the rollup keeps one meta for the name.
  const again = await store.putFile('report/ü.bin', join(dir, 'in'));
  assert.equal(await api.subjectCount('OBJ_BLOBS', `$O.BLOBS.M.${encodeObjectName('report/ü.bin')}`), 1);
  assert.deepEqual(await store.info('report/ü.bin'), again);

  await store.getToFile('report/ü.bin', join(dir, 'out'));
  assert.ok(readFileSync(join(dir, 'out')).equals(bytes));
  // Deleted as the clients delete: a meta marked deleted, the chunks purged.
  assert.equal(await store.delete('report/ü.bin'), true);
  assert.equal(await store.info('report/ü.bin'), undefined);
  assert.equal(JSON.parse((await api.lastBySubject('OBJ_BLOBS', `$O.BLOBS.M.${encodeObjectName('report/ü.bin')}`))!.data.toString()).deleted, true);
  assert.equal(await api.subjectCount('OBJ_BLOBS', `$O.BLOBS.C.${again.nuid}`), 0);
  assert.equal(await store.delete('report/ü.bin'), false);
  await assert.rejects(store.getToFile('report/ü.bin', join(dir, 'gone')), /holds no object/);
  writeFileSync(join(dir, 'empty'), '');
  await store.putFile('empty', join(dir, 'empty'));
  await store.getToFile('empty', join(dir, 'empty-out'));
  assert.equal(readFileSync(join(dir, 'empty-out')).length, 0);
});

test('createObjectStore() refuses an unknown object, a corrupt one (nothing left behind) and a bad bucket name', async () => {
  const store = createObjectStore(client, { bucket: 'BLOBS2' });
  await store.ensure({ replicas: 1 });
  assert.equal(await store.info('nothing'), undefined);
  await assert.rejects(store.getToFile('nothing', join(dir, 'x')), /Object store "BLOBS2" holds no object "nothing"/);
  writeFileSync(join(dir, 'small'), 'hello');
  const info = await store.putFile('small', join(dir, 'small'));
  // A foreign chunk on the object's subject: the bytes no longer match the meta.
  await createStreamApi(client).publish(`$O.BLOBS2.C.${info.nuid}`, Buffer.from('tampered'), { headers: {}, timeoutMs: 2000 });
  const target = join(dir, 'corrupt-out');
  await assert.rejects(store.getToFile('small', target), /Object "small" in "BLOBS2" is corrupt: 13 bytes/);
  assert.equal(existsSync(target), false);
  assert.deepEqual(readdirSync(dir).filter((name) => name.endsWith('.part')), []);
  assert.throws(() => createObjectStore(client, { bucket: 'a.b' }), /Invalid object store bucket "a\.b"/);
});
