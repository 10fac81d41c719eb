// The content repository outlives its host (docs/replication.md): the service in sync replication
// mode on a real nats-server with JetStream takes uploads (a text file in two versions, a binary
// of several object-store chunks), a folder with its own permissions, metadata, a rendition, the
// user's home, a deleted node and a purged one. The service stops and its data directory is
// deleted; evidence_restore rebuilds the database from the stream and fetches every blob a version
// names from the object store; the service started there answers every read as before (nodes,
// listings, versions and their bytes, permissions, renditions, search, trashcan), a retried
// create is refused as before with no second effect, and work carries on. In async mode the
// shipper sends each blob after the acknowledgement; a restore without a bucket names the missing.

import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { connectNats, createObjectStore, createRequester, parseNatsUrls } from '../../src/kernel/index.ts';
import { send } from '../helpers/http.ts';
import { startNatsServer } from '../helpers/nats-server.ts';
import type { RunningNatsServer } from '../helpers/nats-server.ts';
import { runEntry, syncReplicationEnv } from '../helpers/service-process.ts';
import { API, SEARCH, multipart, startContent } from './_service.ts';
import type { Harness } from './_service.ts';
import { users } from './_users.ts';

let server: RunningNatsServer;
let dir: string;
let harness: Harness | undefined;
const { call, upload, token } = users(() => harness!);

before(async () => {
  server = await startNatsServer({ jetstream: true });
  dir = mkdtempSync(join(tmpdir(), 'airlock-content-restore-'));
});
after(async () => {
  await harness?.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the in-process service with replication on (the store and the blob replication read the environment). */
async function startReplicated(dataDir: string, mode: 'sync' | 'async', nats: RunningNatsServer): Promise<Harness> {
  Object.assign(process.env, syncReplicationEnv(nats.url), { AIRLOCK_EVIDENCE_REPLICATION: mode });
  mkdirSync(dataDir, { recursive: true });
  return startContent({ AIRLOCK_DATA_DIR: dataDir });
}

/** Waits (10 s at most) until the bucket no longer holds `sha256`. */
async function untilGone(nats: RunningNatsServer, sha256: string): Promise<void> {
  const client = await connectNats({ servers: parseNatsUrls(nats.url) });
  try {
    const objects = createObjectStore(client, { bucket: 'AIRLOCK_EVIDENCE_BLOBS' });
    const deadline = Date.now() + 10_000;
    while ((await objects.info(sha256)) !== undefined) {
      assert.ok(Date.now() < deadline, `the purged blob ${sha256} left the bucket within 10 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await client.close();
  }
}

async function uploadBytes(parent: string, name: string, content: Buffer): Promise<Record<string, any>> {
  const m = multipart([['name', name]], { name, type: 'application/octet-stream', content });
  const r = await send(`${harness!.base}${API}/nodes/${parent}/children`, { method: 'POST', headers: { authorization: `Bearer ${token('ada')}`, 'content-type': m.contentType }, body: m.body });
  assert.equal(r.status, 201, r.text);
  return (r.json() as Record<string, any>)['entry'];
}

async function bytes(path: string): Promise<Buffer> {
  const r = await send(`${harness!.base}${API}${path}`, { headers: { authorization: `Bearer ${token('ada')}` } });
  assert.equal(r.status, 200, `${path}: ${r.text}`);
  return Buffer.from(r.text, 'latin1');
}

/** Every read the test compares, as ada sees it. */
async function reads(ids: { text: string; binary: string; folder: string; deleted: string }): Promise<Record<string, unknown>> {
  const json = async (path: string) => {
    const r = await call('ada', 'GET', path);
    assert.equal(r.status, 200, `${path}: ${r.text}`);
    return r.body;
  };
  const search = await send(`${harness!.base}${SEARCH}`, { method: 'POST', headers: { authorization: `Bearer ${token('ada')}`, 'content-type': 'application/json' }, body: JSON.stringify({ query: { query: 'quarterly', language: 'afts' } }) });
  return {
    root: await json(`${API}/nodes/-root-/children?include=permissions,properties`),
    folder: await json(`${API}/nodes/${ids.folder}?include=permissions,properties,path`),
    home: await json(`${API}/nodes/-my-?include=permissions`),
    text: await json(`${API}/nodes/${ids.text}?include=properties,permissions`),
    versions: await json(`${API}/nodes/${ids.text}/versions`),
    textBytes: (await bytes(`/nodes/${ids.text}/content`)).toString('latin1'),
    firstVersionBytes: (await bytes(`/nodes/${ids.text}/versions/1.0/content`)).toString('latin1'),
    binarySha256: createHash('sha256').update(await bytes(`/nodes/${ids.binary}/content`)).digest('hex'),
    renditions: await json(`${API}/nodes/${ids.text}/renditions`),
    doclib: (await bytes(`/nodes/${ids.text}/renditions/doclib/content`)).toString('latin1'),
    // The hits in their order (BM25 scores depend on the index's insert history, which a rebuild does not repeat).
    search: (search.json() as { list: { entries: { entry: { id: string; name: string } }[] } }).list.entries.map((e) => [e.entry.id, e.entry.name]),
    trashcan: await json(`${API}/deleted-nodes`),
  };
}

test('content: a lost host is restored from the stream and the object store; every read answers the same, a retried create takes no second effect, work carries on', { timeout: 180_000 }, async () => {
  const lost = join(dir, 'lost');
  harness = await startReplicated(lost, 'sync', server);
  const folder = (await call('ada', 'POST', `${API}/nodes/-root-/children`, { name: 'Reports', nodeType: 'cm:folder', properties: { 'cm:title': 'Quarterly reports' } })).body!['entry'];
  assert.equal((await call('ada', 'PUT', `${API}/nodes/${folder.id}`, { permissions: { isInheritanceEnabled: false, locallySet: [{ authorityId: 'bob', name: 'Contributor' }] } })).status, 200);
  const text = (await upload('ada', folder.id, 'q1.txt', 'quarterly figures, first draft')).body!['entry'];
  const second = multipart([['majorVersion', 'false'], ['overwrite', 'true'], ['name', 'q1.txt']], { name: 'q1.txt', content: 'quarterly figures, final' });
  assert.equal((await send(`${harness!.base}${API}/nodes/${folder.id}/children`, { method: 'POST', headers: { authorization: `Bearer ${token('ada')}`, 'content-type': second.contentType }, body: second.body })).status, 201);
  assert.equal((await call('ada', 'PUT', `${API}/nodes/${text.id}`, { properties: { 'cm:title': 'Q1' } })).status, 200);
  assert.equal((await call('ada', 'POST', `${API}/nodes/${text.id}/renditions`, { id: 'doclib' })).status, 202);
  const binary = await uploadBytes(folder.id, 'scan.bin', randomBytes(300_000));
  const deleted = (await upload('ada', folder.id, 'old.txt', 'to the trashcan')).body!['entry'];
  assert.equal((await call('ada', 'DELETE', `${API}/nodes/${deleted.id}`)).status, 204);
  const purged = (await upload('ada', folder.id, 'gone.txt', 'purged for good')).body!['entry'];
  assert.equal((await call('ada', 'DELETE', `${API}/nodes/${purged.id}`)).status, 204);
  assert.equal((await call('ada', 'DELETE', `${API}/deleted-nodes/${purged.id}`)).status, 204);
  // Purged for good: the shipper deletes its blob from the bucket too.
  await untilGone(server, createHash('sha256').update('purged for good').digest('hex'));
  const ids = { text: text.id, binary: binary.id, folder: folder.id, deleted: deleted.id };
  const before = await reads(ids);
  const retry = await upload('ada', folder.id, 'q1.txt', 'quarterly figures, first draft');
  assert.equal(retry.status, 409);
  await harness!.close();
  harness = undefined;
  assert.equal(existsSync(lost), true);
  rmSync(lost, { recursive: true, force: true });

  const restoredDir = join(dir, 'restored');
  const restored = await runEntry('scripts/evidence_restore.ts', ['--service', 'content', '--nats', server.url, '--data-dir', restoredDir, '--json']);
  assert.equal(restored.status, 0, restored.stdout + restored.stderr);
  // Four blobs: two versions of q1.txt, scan.bin and old.txt (in the trashcan, still named); not the purged file's.
  assert.deepEqual(JSON.parse(restored.stdout).blobs, { bucket: 'AIRLOCK_EVIDENCE_BLOBS', fetched: 4, missing: [] });

  harness = await startReplicated(restoredDir, 'sync', server);
  assert.deepEqual(await reads(ids), before);
  // The retried create answers as before, and nothing was added.
  assert.deepEqual(await upload('ada', folder.id, 'q1.txt', 'quarterly figures, first draft').then((r) => [r.status, r.body!['error']['briefSummary']]), [409, retry.body!['error']['briefSummary']]);
  assert.deepEqual((await call('ada', 'GET', `${API}/nodes/${text.id}/versions`)).body, before['versions']);
  // Work carries on: a new version continues the labels; a deleted node restores from the trashcan.
  const third = multipart([['majorVersion', 'false'], ['overwrite', 'true'], ['name', 'q1.txt']], { name: 'q1.txt', content: 'quarterly figures, amended' });
  const amended = await send(`${harness!.base}${API}/nodes/${folder.id}/children`, { method: 'POST', headers: { authorization: `Bearer ${token('ada')}`, 'content-type': third.contentType }, body: third.body });
  assert.equal((amended.json() as Record<string, any>)['entry']['properties']['cm:versionLabel'], '1.2');
  assert.equal((await call('ada', 'POST', `${API}/deleted-nodes/${deleted.id}/restore`)).status, 200);
  assert.equal((await bytes(`/nodes/${deleted.id}/content`)).toString(), 'to the trashcan');
  await harness!.close();
  harness = undefined;

  const verified = await runEntry('scripts/verify_evidence_chain.ts', ['--nats', server.url, '--service', 'content', '--db', join(restoredDir, 'content.sqlite'), '--json']);
  assert.equal(verified.status, 0, verified.stdout + verified.stderr);
  assert.ok((JSON.parse(verified.stdout) as { heads: { agree: boolean }[] }).heads.every((h) => h.agree));
});

test('content in async mode: the upload is acknowledged first and the shipper sends its blob; a restore without the bucket names the blobs it lacks', { timeout: 120_000 }, async () => {
  // A server of its own: one evidence stream per cluster holds airlock.evidence.>.
  const own = await startNatsServer({ jetstream: true });
  const data = join(dir, 'async');
  harness = await startReplicated(data, 'async', own);
  assert.equal((await upload('ada', '-root-', 'later.txt', 'sent after the answer')).status, 201);
  const client = await connectNats({ servers: parseNatsUrls(own.url) });
  try {
    const objects = createObjectStore(client, { bucket: 'AIRLOCK_EVIDENCE_BLOBS' });
    const sha256 = createHash('sha256').update('sent after the answer').digest('hex');
    const deadline = Date.now() + 10_000;
    while ((await objects.info(sha256).catch(() => undefined)) === undefined) {
      assert.ok(Date.now() < deadline, 'the shipper sent the blob within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await harness!.close();
    harness = undefined;
    // The bucket lost (never replicated, or deleted): the restore writes what it can and names what is missing.
    await createRequester(client).request('$JS.API.STREAM.DELETE.OBJ_AIRLOCK_EVIDENCE_BLOBS', Buffer.alloc(0), { timeoutMs: 5000 });
    const restored = await runEntry('scripts/evidence_restore.ts', ['--service', 'content', '--nats', own.url, '--data-dir', join(dir, 'async-restored'), '--json']);
    assert.equal(restored.status, 1, restored.stderr);
    assert.deepEqual(JSON.parse(restored.stdout).blobs, { bucket: 'AIRLOCK_EVIDENCE_BLOBS', fetched: 0, missing: [sha256] });
  } finally {
    await client.close();
    await own.stop();
  }
});

test('content in sync mode: an upload the object store cannot take answers 503 and stores nothing', { timeout: 120_000 }, async () => {
  const own = await startNatsServer({ jetstream: true });
  try {
    process.env['AIRLOCK_EVIDENCE_SYNC_TIMEOUT_SECONDS'] = '1';
    harness = await startReplicated(join(dir, 'refused'), 'sync', own);
    assert.equal((await upload('ada', '-root-', 'kept.txt', 'replicated')).status, 201);
    await own.stop();
    const refused = await upload('ada', '-root-', 'lost.txt', 'never acknowledged');
    assert.equal(refused.status, 503, refused.text);
    assert.match(refused.body!['error']['briefSummary'], /could not be replicated to the object store "AIRLOCK_EVIDENCE_BLOBS".*nothing was stored, retry/);
    const names = (await call('ada', 'GET', `${API}/nodes/-root-/children`)).body!['list']['entries'].map((e: { entry: { name: string } }) => e.entry.name);
    assert.ok(names.includes('kept.txt') && !names.includes('lost.txt'), names.join(', '));
  } finally {
    delete process.env['AIRLOCK_EVIDENCE_SYNC_TIMEOUT_SECONDS'];
    await harness?.close();
    harness = undefined;
    await own.stop();
  }
});
