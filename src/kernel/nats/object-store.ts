// JetStream Object Store, the protocol the NATS clients share (nats.go object.go, nats.js obj):
// a bucket is the stream OBJ_<bucket> over `$O.<bucket>.C.>` (chunks) and `$O.<bucket>.M.>`
// (meta). An object's bytes go in chunks of at most 128 KiB on `$O.<bucket>.C.<nuid>`, each
// acknowledged by the stream; then its meta (JSON: name, bucket, nuid, size, chunks, digest
// "SHA-256=<base64url>", mtime, options.max_chunk_size) on `$O.<bucket>.M.<base64url name>` with
// `Nats-Rollup: sub`, so the subject keeps only the newest meta. Any NATS client (the nats CLI,
// nats.go, nats.js) reads what this writes, and the other way round.

import { createHash, randomBytes } from 'node:crypto';
import { closeSync, createReadStream, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { AirlockError } from '../errors.ts';
import type { NatsClient } from './client.ts';
import { createRequester } from './request.ts';
import { createStreamApi } from './stream-api.ts';

export const OBJECT_CHUNK_BYTES = 128 * 1024;
const BUCKET = /^[a-zA-Z0-9_-]+$/;
const NUID_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** An object's meta, as every client writes and reads it. */
export interface ObjectInfo {
  name: string;
  bucket: string;
  nuid: string;
  size: number;
  chunks: number;
  /** "SHA-256=" and the base64url (padded) SHA-256 of the bytes. */
  digest: string;
  mtime: string;
  deleted?: boolean;
  options?: { max_chunk_size?: number };
}

export interface ObjectStore {
  readonly bucket: string;
  /** Creates the bucket's stream if missing (file storage, kept forever, rollup allowed). */
  ensure(options: { replicas: number }): Promise<void>;
  /** The object's meta, or undefined when there is none (or it was deleted). */
  info(name: string): Promise<ObjectInfo | undefined>;
  /** Stores the file's bytes under `name`; resolves once the stream acknowledged every chunk and the meta. */
  putFile(name: string, path: string): Promise<ObjectInfo>;
  /** Writes the object's bytes to `path` (through a temporary file beside it), checking size and digest. Throws `environment` when there is no such object. */
  getToFile(name: string, path: string): Promise<ObjectInfo>;
  /** Deletes the object as the clients do: a meta marked deleted (size 0, no digest), then its chunks purged. False when there was none. */
  delete(name: string): Promise<boolean>;
}

/** Base64url with its "=" padding, as Go's base64.URLEncoding writes it (Node's "base64url" drops the padding). */
function base64UrlPadded(bytes: Buffer): string {
  return bytes.toString('base64').replaceAll('+', '-').replaceAll('/', '_');
}

/** The digest an object whose SHA-256 is `sha256` carries. */
export function objectDigest(sha256: Buffer): string {
  return `SHA-256=${base64UrlPadded(sha256)}`;
}

/** The meta subject's last token: the name in padded base64url, as nats.go encodes it. */
export function encodeObjectName(name: string): string {
  return base64UrlPadded(Buffer.from(name, 'utf8'));
}

export function createObjectStore(client: NatsClient, options: { bucket: string; timeoutMs?: number }): ObjectStore {
  const { bucket } = options;
  if (!BUCKET.test(bucket)) throw new TypeError(`Invalid object store bucket "${bucket}": use letters, digits, "_" and "-"`);
  const stream = `OBJ_${bucket}`;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const api = createStreamApi(client, { timeoutMs });
  const requester = createRequester(client);
  const metaSubject = (name: string) => `$O.${bucket}.M.${encodeObjectName(name)}`;

  async function request(subject: string, body: unknown): Promise<Record<string, unknown> & { error?: { description?: string; err_code?: number } }> {
    const reply = await requester.request(subject, Buffer.from(JSON.stringify(body)), { timeoutMs });
    return JSON.parse(reply.payload.toString('utf8')) as Record<string, unknown> & { error?: { description?: string; err_code?: number } };
  }

  async function publish(subject: string, data: Uint8Array, headers: Record<string, string> = {}): Promise<void> {
    const outcome = await api.publish(subject, data, { headers, timeoutMs });
    if (!outcome.ok) throw new AirlockError('bus_unavailable', `Object store "${bucket}" refused a message on "${subject}": ${outcome.error.description ?? 'error'} (err_code ${outcome.error.err_code ?? '-'})`);
  }

  return {
    bucket,
    async ensure({ replicas }) {
      if ((await api.info(stream)) !== undefined) return;
      const created = await request(`$JS.API.STREAM.CREATE.${stream}`, {
        name: stream,
        subjects: [`$O.${bucket}.C.>`, `$O.${bucket}.M.>`],
        storage: 'file',
        num_replicas: replicas,
        discard: 'new',
        max_age: 0,
        max_bytes: -1,
        allow_rollup_hdrs: true,
        allow_direct: true,
      });
      // 10058: another process created it in between.
      if (created.error && created.error.err_code !== 10058) {
        throw new AirlockError('bus_unavailable', `JetStream refused to create object store "${bucket}" with ${replicas} replicas: ${created.error.description ?? 'error'}`);
      }
    },
    async info(name) {
      const message = await api.lastBySubject(stream, metaSubject(name));
      if (message === undefined) return undefined;
      const info = JSON.parse(message.data.toString('utf8')) as ObjectInfo;
      return info.deleted === true ? undefined : info;
    },
    async putFile(name, path) {
      const nuid = Array.from(randomBytes(22), (byte) => NUID_ALPHABET[byte % NUID_ALPHABET.length]).join('');
      const chunkSubject = `$O.${bucket}.C.${nuid}`;
      const hash = createHash('sha256');
      let size = 0;
      let chunks = 0;
      try {
        for await (const chunk of createReadStream(path, { highWaterMark: OBJECT_CHUNK_BYTES }) as AsyncIterable<Buffer>) {
          hash.update(chunk);
          await publish(chunkSubject, chunk);
          size += chunk.length;
          chunks++;
        }
      } catch (error) {
        // Chunks of an object whose meta never came are garbage: remove them (best effort, the error is the news).
        await request(`$JS.API.STREAM.PURGE.${stream}`, { filter: chunkSubject }).catch(() => undefined);
        throw error;
      }
      const info: ObjectInfo = { name, bucket, nuid, size, chunks, digest: objectDigest(hash.digest()), mtime: new Date().toISOString(), options: { max_chunk_size: OBJECT_CHUNK_BYTES } };
      await publish(metaSubject(name), Buffer.from(JSON.stringify(info)), { 'Nats-Rollup': 'sub' });
      return info;
    },
    async delete(name) {
      const info = await this.info(name);
      if (info === undefined) return false;
      await publish(metaSubject(name), Buffer.from(JSON.stringify({ ...info, deleted: true, size: 0, chunks: 0, digest: '', mtime: new Date().toISOString() })), { 'Nats-Rollup': 'sub' });
      const purged = await request(`$JS.API.STREAM.PURGE.${stream}`, { filter: `$O.${bucket}.C.${info.nuid}` });
      if (purged.error) throw new AirlockError('bus_unavailable', `Object store "${bucket}" refused to purge the chunks of "${name}": ${purged.error.description ?? 'error'}`);
      return true;
    },
    async getToFile(name, path) {
      const info = await this.info(name);
      if (info === undefined) throw new AirlockError('environment', `Object store "${bucket}" holds no object "${name}": it was never replicated there`);
      const temporary = `${path}.${randomBytes(6).toString('hex')}.part`;
      const fd = openSync(temporary, 'w', 0o600);
      let open = true;
      const hash = createHash('sha256');
      let size = 0;
      try {
        if (info.size > 0) {
          await api.replay(stream, `$O.${bucket}.C.${info.nuid}`, (message) => {
            hash.update(message.data);
            writeSync(fd, message.data);
            size += message.data.length;
          });
        }
        fsyncSync(fd);
        closeSync(fd);
        open = false;
        const digest = objectDigest(hash.digest());
        if (size !== info.size || digest !== info.digest) {
          throw new AirlockError('evidence_replication', `Object "${name}" in "${bucket}" is corrupt: ${size} bytes with digest ${digest}, its meta says ${info.size} bytes with ${info.digest}`);
        }
        renameSync(temporary, path);
        return info;
      } catch (error) {
        if (open) closeSync(fd);
        rmSync(temporary, { force: true });
        throw error;
      }
    },
  };
}
