// Media types by file extension, for uploads whose part says application/octet-stream or
// nothing, and which of them count as text (indexed for search, rendered as text).

import { mediaTypeOf } from '../kernel/index.ts';

const BY_EXTENSION: Record<string, string> = {
  txt: 'text/plain', text: 'text/plain', md: 'text/markdown', csv: 'text/csv', html: 'text/html', htm: 'text/html',
  xml: 'application/xml', json: 'application/json', pdf: 'application/pdf', png: 'image/png', jpg: 'image/jpeg',
  jpeg: 'image/jpeg', gif: 'image/gif', svg: 'image/svg+xml', doc: 'application/msword', zip: 'application/zip',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', vtt: 'text/vtt', srt: 'application/x-subrip',
};

const TOKEN = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/;

/** The media type to store: the declared one when specific, else one from the name's extension. */
export function mediaTypeFor(name: string, declared: string | undefined): string {
  const bare = mediaTypeOf(declared);
  if (bare && bare !== 'application/octet-stream' && TOKEN.test(bare)) return bare;
  const extension = /\.([A-Za-z0-9]{1,8})$/.exec(name)?.[1]?.toLowerCase();
  return (extension && BY_EXTENSION[extension]) ?? 'application/octet-stream';
}

/** True for media types whose bytes are text we index and render. */
export function isTextType(mimeType: string): boolean {
  return mimeType.startsWith('text/') || ['application/json', 'application/xml', 'application/x-subrip'].includes(mimeType) || mimeType.endsWith('+json') || mimeType.endsWith('+xml');
}
