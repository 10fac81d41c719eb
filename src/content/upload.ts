// POST .../nodes/{parentId}/children: a multipart upload (field `filedata`, with name,
// relativePath, autoRename, overwrite, majorVersion, comment and cm:* properties as fields)
// streamed to the blob store, or a JSON body that creates a folder. The share UI's upload uses
// the same path with its CSRF field, which must come before the file.

import type { Readable } from 'node:stream';
import { timingSafeEqual } from 'node:crypto';
import { AirlockError } from '../kernel/index.ts';
import type { Store } from '../kernel/index.ts';
import type { BlobStore, BlobWriter } from './blob-store.ts';
import { BlobTooLargeError } from './blob-store.ts';
import { mediaTypeFor } from './mime-types.ts';
import { MultipartError, multipartBoundary, parseMultipart } from './multipart.ts';
import { RENDITION_IDS, indexedText, isRenditionId } from './renditions.ts';
import type { RenditionId } from './renditions.ts';
import { RepositoryError, createFile, nameProblem } from './repository.ts';
import type { Actor } from './repository.ts';

export interface UploadDeps {
  store: Store;
  blobs: BlobStore;
  maxUploadBytes: number;
  indexTextBytes: number;
}

const FLAGS = ['autoRename', 'overwrite', 'majorVersion'] as const;
const KNOWN_FIELDS = new Set(['name', 'relativePath', 'comment', 'nodeType', 'renditions', 'versioningEnabled', '_csrf', ...FLAGS]);
const PROPERTY = /^[a-z][a-zA-Z0-9]*:[A-Za-z][A-Za-z0-9_]*$/;

/** Parses a "true"/"false" form field; a RepositoryError otherwise. */
export function readFlag(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new RepositoryError(400, `Invalid ${name} "${value}": use true or false`);
}

/** Streams a multipart upload into a new file node (or a new version with overwrite); the node id. */
export async function uploadFile(
  deps: UploadDeps,
  request: { stream: Readable; contentType: string | undefined; contentLength: string | undefined; parentId: string; user: Actor; csrf?: string; newVersionOf?: string },
): Promise<{ id: string; created: boolean; renditions: RenditionId[] }> {
  const boundary = multipartBoundary(request.contentType);
  if (boundary === undefined) throw new RepositoryError(415, 'Upload must be multipart/form-data with a boundary, the file in field "filedata"');
  if (request.contentLength !== undefined && Number(request.contentLength) > deps.maxUploadBytes + 64 * 1024) {
    throw new RepositoryError(413, `Upload of ${request.contentLength} bytes exceeds the limit of ${deps.maxUploadBytes} bytes`);
  }
  const fields = new Map<string, string>();
  let writer: BlobWriter | undefined;
  let fileName: string | undefined;
  let declaredType: string | undefined;
  try {
    await parseMultipart(request.stream, boundary, {
      field(name, value) {
        if (fields.has(name)) throw new RepositoryError(400, `Field "${name}" is repeated`);
        if (!KNOWN_FIELDS.has(name) && !PROPERTY.test(name)) throw new RepositoryError(400, `Unknown field "${name}": use name, relativePath, autoRename, overwrite, majorVersion, comment, renditions, versioningEnabled or a property such as cm:title`);
        fields.set(name, value);
      },
      file(part) {
        if (part.name !== 'filedata') throw new RepositoryError(400, `Unexpected file field "${part.name}": the file goes in "filedata"`);
        if (writer) throw new RepositoryError(400, 'Field "filedata" is repeated');
        if (request.csrf !== undefined) checkCsrf(request.csrf, fields.get('_csrf'));
        fileName = part.filename;
        declaredType = part.contentType;
        writer = deps.blobs.create(deps.maxUploadBytes);
        const sink = writer;
        return { write: (chunk) => sink.write(chunk), end: async () => undefined };
      },
    });
    if (!writer) throw new RepositoryError(400, 'No file: send the content in multipart field "filedata"');
    // A new version from the share UI keeps the node's name whatever the browser called the file.
    const name = request.newVersionOf ?? fields.get('name') ?? fileName ?? '';
    const problem = nameProblem(name);
    if (problem) throw new RepositoryError(400, problem);
    const nodeType = fields.get('nodeType');
    if (nodeType !== undefined && nodeType !== 'cm:content') throw new RepositoryError(400, `Invalid nodeType "${nodeType}": an upload creates cm:content`);
    const flags = {
      autoRename: readFlag('autoRename', fields.get('autoRename'), false),
      overwrite: request.newVersionOf !== undefined || readFlag('overwrite', fields.get('overwrite'), false),
      majorVersion: readFlag('majorVersion', fields.get('majorVersion'), request.newVersionOf === undefined),
    };
    if (flags.autoRename && flags.overwrite) throw new RepositoryError(400, 'autoRename and overwrite cannot both be true');
    // Every file here is versioned: an unversioned node is a request we cannot honour.
    if (!readFlag('versioningEnabled', fields.get('versioningEnabled'), true)) throw new RepositoryError(400, 'versioningEnabled=false is not supported: every file is versioned');
    const renditions = readRenditionList(fields.get('renditions'));
    const blob = await writer.finish();
    const mimeType = mediaTypeFor(name, declaredType);
    const text = await indexedText(deps.blobs, blob.sha256, mimeType, deps.indexTextBytes);
    const properties = Object.fromEntries([...fields].filter(([key]) => PROPERTY.test(key)));
    const created = await deps.store.write((sqlite, tx) =>
      createFile(sqlite, tx, {
        parentId: request.parentId,
        name,
        relativePath: fields.get('relativePath'),
        autoRename: flags.autoRename,
        overwrite: flags.overwrite,
        properties,
        content: { ...blob, mimeType, text, blobPath: deps.blobs.path(blob.sha256) },
        version: { majorVersion: flags.majorVersion, comment: fields.get('comment') },
        user: request.user,
      }),
    );
    await deps.blobs.settle(blob);
    return { ...created, renditions };
  } catch (error) {
    await writer?.abort();
    throw translateUploadError(error);
  }
}

/** The `renditions` field ("doclib" or "doclib,text"): known ids only. */
function readRenditionList(value: string | undefined): RenditionId[] {
  if (value === undefined) return [];
  const ids = value.split(',').map((part) => part.trim());
  const unknown = ids.filter((id) => !isRenditionId(id));
  if (unknown.length > 0) throw new RepositoryError(400, `Invalid renditions "${value}": the renditions are ${RENDITION_IDS.join(' and ')}`);
  return [...new Set(ids as RenditionId[])];
}

/** Streams a raw body (PUT .../content) into the blob store. */
export async function storeBody(deps: UploadDeps, stream: Readable, contentLength: string | undefined): Promise<{ sha256: string; size: number }> {
  if (contentLength !== undefined && Number(contentLength) > deps.maxUploadBytes) {
    throw new RepositoryError(413, `Content of ${contentLength} bytes exceeds the limit of ${deps.maxUploadBytes} bytes`);
  }
  const writer = deps.blobs.create(deps.maxUploadBytes);
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) await writer.write(chunk);
    return await writer.finish();
  } catch (error) {
    await writer.abort();
    throw translateUploadError(error);
  }
}

/** A body read's failure as the client's mistake it is: 413, 400 for malformed multipart, client_aborted for a dropped connection. */
export function translateUploadError(error: unknown): unknown {
  if (error instanceof BlobTooLargeError) return new RepositoryError(413, error.message);
  if (error instanceof MultipartError) return new RepositoryError(400, `Malformed multipart body: ${error.message}`);
  // The client went away mid-body: nobody to answer, and no server error (the kernel hangs up; handlers log it).
  if ((error as NodeJS.ErrnoException)?.code === 'ECONNRESET' || (error as NodeJS.ErrnoException)?.code === 'ERR_STREAM_PREMATURE_CLOSE' || (error as Error)?.message === 'aborted') {
    return new AirlockError('client_aborted', 'The client closed the connection before the upload was complete', { cause: error });
  }
  return error;
}

/** The share UI's CSRF check: the form's token against the session's, in constant time. */
export function checkCsrf(expected: string, given: string | undefined): void {
  const a = Buffer.from(expected);
  const b = Buffer.from(given ?? '');
  if (a.length !== b.length || !timingSafeEqual(a, b)) throw new RepositoryError(403, 'The form\'s CSRF token is missing or wrong: reload the page and try again');
}
