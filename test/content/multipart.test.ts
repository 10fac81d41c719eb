// The streaming multipart parser: the same answer however the socket splits the bytes, files
// handed over in pieces (never whole), and malformed bodies refused with a MultipartError.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { MAX_FIELD_BYTES, MultipartError, multipartBoundary, parseMultipart } from '../../src/content/multipart.ts';

const B = 'XyZ-boundary';
const BODY = Buffer.from(
  `preamble to ignore\r\n--${B}\r\nContent-Disposition: form-data; name="name"\r\n\r\nnotes.txt\r\n` +
    `--${B}\r\nContent-Disposition: form-data; name="filedata"; filename="a \\"quoted\\" name.txt"\r\nContent-Type: text/plain\r\n\r\n` +
    `line one\r\n-${B} is not a delimiter --${B}\r\nline three\r\n--${B}--\r\nepilogue`,
);

async function parse(chunks: Buffer[], boundary = B) {
  const fields: Record<string, string> = {};
  const files: { name: string; filename: string | undefined; type: string | undefined; pieces: Buffer[] }[] = [];
  await parseMultipart(Readable.from(chunks), boundary, {
    field: (name, value) => void (fields[name] = value),
    file: (part) => {
      const entry = { name: part.name, filename: part.filename, type: part.contentType, pieces: [] as Buffer[] };
      files.push(entry);
      return { write: async (c) => void entry.pieces.push(Buffer.from(c)), end: async () => undefined };
    },
  });
  return { fields, files };
}

test('parseMultipart() gives the same fields and file bytes for every split of the body into two chunks', async () => {
  for (let at = 0; at <= BODY.length; at++) {
    const { fields, files } = await parse([BODY.subarray(0, at), BODY.subarray(at)]);
    assert.deepEqual(fields, { name: 'notes.txt' }, `split at ${at}`);
    assert.equal(files.length, 1);
    assert.equal(files[0]!.filename, 'a "quoted" name.txt');
    assert.equal(Buffer.concat(files[0]!.pieces).toString(), `line one\r\n-${B} is not a delimiter --${B}\r\nline three`, `split at ${at}`);
  }
});

test('parseMultipart() hands a large file over in pieces as they arrive', async () => {
  const big = Buffer.alloc(1024 * 1024, 'z');
  const body = Buffer.concat([Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="filedata"; filename="big"\r\n\r\n`), big, Buffer.from(`\r\n--${B}--\r\n`)]);
  const chunks = Array.from({ length: Math.ceil(body.length / 65536) }, (_, i) => body.subarray(i * 65536, (i + 1) * 65536));
  const { files } = await parse(chunks);
  assert.ok(files[0]!.pieces.length >= 16);
  assert.ok(Buffer.concat(files[0]!.pieces).equals(big));
});

test('parseMultipart() refuses malformed bodies', async () => {
  const cases: [string, string][] = [
    ['no closing boundary', `--${B}\r\nContent-Disposition: form-data; name="a"\r\n\r\nvalue`],
    ['no disposition', `--${B}\r\nContent-Type: text/plain\r\n\r\nx\r\n--${B}--`],
    ['no field name', `--${B}\r\nContent-Disposition: form-data\r\n\r\nx\r\n--${B}--`],
    ['junk after boundary', `--${B}junk\r\nContent-Disposition: form-data; name="a"\r\n\r\nx\r\n--${B}--`],
    ['header line without colon', `--${B}\r\nnonsense\r\n\r\nx\r\n--${B}--`],
    ['empty body', ''],
  ];
  for (const [name, body] of cases) await assert.rejects(parse([Buffer.from(body)]), MultipartError, name);
  const oversized = `--${B}\r\nContent-Disposition: form-data; name="a"\r\n\r\n${'x'.repeat(MAX_FIELD_BYTES + 1)}\r\n--${B}--`;
  await assert.rejects(parse([Buffer.from(oversized)]), /over 65536 bytes/);
});

test('multipartBoundary() reads quoted and bare boundaries and refuses other types', () => {
  assert.equal(multipartBoundary('multipart/form-data; boundary=abc'), 'abc');
  assert.equal(multipartBoundary('Multipart/Form-Data; charset=utf-8; boundary="a b:c"'), 'a b:c');
  assert.equal(multipartBoundary('multipart/mixed; boundary=abc'), undefined);
  assert.equal(multipartBoundary('multipart/form-data'), undefined);
  assert.equal(multipartBoundary(undefined), undefined);
});

test('parseMultipart() reads the epilogue to the end of the stream instead of destroying it (a destroyed request stream cost an AbortError per upload)', async () => {
  for (const tail of [[], [Buffer.from('\r\n')], [Buffer.from('\r\nan epilogue'), Buffer.from(' in two chunks')]]) {
    const stream = Readable.from([BODY.subarray(0, BODY.indexOf(`--${B}--`) + B.length + 4), ...tail]);
    let error: unknown;
    stream.on('error', (e) => (error = e));
    await parseMultipart(stream, B, { field: () => undefined, file: () => ({ write: async () => undefined, end: async () => undefined }) });
    assert.equal(stream.readableEnded, true, `read to its end (tail of ${tail.length} chunks)`);
    assert.equal(error, undefined);
  }
});

test('parseMultipart() leaves a stream that goes on past the closing boundary (more epilogue than a part header may hold)', async () => {
  const endless = Readable.from((function* () {
    yield BODY;
    for (;;) yield Buffer.alloc(4096, 'x');
  })());
  await parseMultipart(endless, B, { field: () => undefined, file: () => ({ write: async () => undefined, end: async () => undefined }) });
  assert.equal(endless.destroyed, true);
});
