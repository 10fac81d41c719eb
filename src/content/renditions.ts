// Renditions: "text" is the content itself for text types (UTF-8, up to the index limit) and a
// labelled placeholder for everything else; "doclib" is a thumbnail-free SVG placeholder that
// names the file and its type. Airlock converts nothing else (no office or image renderer on
// an air-gapped host); docs/content.md says so.

import { createReadStream } from 'node:fs';
import type { BlobStore } from './blob-store.ts';
import { isTextType } from './mime-types.ts';
import type { NodeRow, VersionRow } from './node-entry.ts';

export const RENDITION_IDS = ['text', 'doclib'] as const;
export type RenditionId = (typeof RENDITION_IDS)[number];

export const RENDITION_TYPES: Record<RenditionId, string> = { text: 'text/plain', doclib: 'image/svg+xml' };

export function isRenditionId(id: string): id is RenditionId {
  return (RENDITION_IDS as readonly string[]).includes(id);
}

/** Reads at most `limit` bytes of a file as UTF-8 text (the index and the text rendition). */
async function readTextPrefix(path: string, limit: number): Promise<string> {
  if (limit === 0) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of createReadStream(path, { end: limit - 1 }) as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
  }
  return new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks, size)).replace(/\uFFFD$/, '');
}

/** The text a version is indexed by: its first `limit` bytes for text types, '' for any other type. */
export async function indexedText(blobs: BlobStore, sha256: string, mimeType: string, limit: number): Promise<string> {
  return isTextType(mimeType) ? readTextPrefix(blobs.path(sha256), limit) : '';
}

/** The bytes of a rendition of `version`. */
export async function renderRendition(id: RenditionId, node: NodeRow, version: VersionRow, options: { blobPath: string; textLimit: number }): Promise<Buffer> {
  if (id === 'text') {
    if (isTextType(version.mime_type)) return Buffer.from(await readTextPrefix(options.blobPath, options.textLimit), 'utf8');
    return Buffer.from(`[placeholder] No text rendition: "${node.name}" is ${version.mime_type}, and Airlock renders only text content as text.\n`, 'utf8');
  }
  const label = escapeXml(node.name.length > 40 ? `${node.name.slice(0, 39)}…` : node.name);
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" viewBox="0 0 100 100"><title>placeholder: no thumbnail</title>` +
      `<rect width="100" height="100" fill="#eef"/><text x="50" y="45" font-size="9" text-anchor="middle">${label}</text>` +
      `<text x="50" y="60" font-size="7" text-anchor="middle">${escapeXml(version.mime_type)}</text><text x="50" y="75" font-size="7" text-anchor="middle">placeholder</text></svg>`,
    'utf8',
  );
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
