// Error bodies in encodings announced by a byte-order mark rather than a charset.
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeBody, undoCodings } from '../../../src/http/response-body.js';

const TEXT = '{"error":7,"message":"plant 7 is protected ✓ 🌱"}';

function utf32(text: string, order: 'le' | 'be'): Buffer {
  return Buffer.concat(
    Array.from(text, (c) => {
      const unit = Buffer.alloc(4);
      if (order === 'le') unit.writeUInt32LE(c.codePointAt(0) as number);
      else unit.writeUInt32BE(c.codePointAt(0) as number);
      return unit;
    }),
  );
}

describe('decodeBody and byte-order marks', () => {
  it.each([
    ['UTF-8', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(TEXT, 'utf8')])],
    ['UTF-16LE', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(TEXT, 'utf16le')])],
    ['UTF-16BE', Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(TEXT, 'utf16le').swap16()])],
    ['UTF-32LE', Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, 0x00]), utf32(TEXT, 'le')])],
    ['UTF-32BE', Buffer.concat([Buffer.from([0x00, 0x00, 0xfe, 0xff]), utf32(TEXT, 'be')])],
  ])('%s with its mark and no charset is decoded as such', async (_name, bytes) => {
    expect(await decodeBody(bytes, undefined, 'application/json', 64 * 1024)).toBe(TEXT);
  });

  it('the mark wins over a charset that says otherwise', async () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(TEXT, 'utf16le')]);
    expect(await decodeBody(bytes, undefined, 'application/json; charset=utf-8', 64 * 1024)).toBe(TEXT);
  });

  it('a UTF-32 unit that is no code point becomes U+FFFD', async () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, 0x00]), utf32('a', 'le'), Buffer.from([0, 0xd8, 0, 0]), utf32('b', 'le')]);
    expect(await decodeBody(bytes, undefined, undefined, 1024)).toBe('a\ufffdb');
  });
});

// RFC 9110 §8.4: codings are listed in the order applied. Each is undone, from the last; one that
// cannot be is said, never read as if the bytes were the body (2.0 took `gzip, gzip` for text).
describe('undoCodings: every content coding undone, or said why not', () => {
  const text = (result: Awaited<ReturnType<typeof undoCodings>>) => (typeof result === 'string' ? result : result.bytes.toString());
  it.each<[string, string | undefined, Buffer, string]>([
    ['none', undefined, Buffer.from('OK'), 'OK'],
    ['gzip', 'gzip', gzipSync('OK'), 'OK'],
    ['gzip, gzip: inflated twice', 'gzip, gzip', gzipSync(gzipSync('OK')), 'OK'],
    ['identity, gzip: identity skipped', 'identity, gzip', gzipSync('OK'), 'OK'],
    ['GZIP , br in capitals and spaces, undone from the last', 'GZIP , br', brotliCompressSync(gzipSync('OK')), 'OK'],
    ['an unknown coding', 'zstd', Buffer.from('OK'), 'unknown'],
    ['a known and an unknown one', 'gzip, compress', gzipSync('OK'), 'unknown'],
    ['bytes that do not inflate', 'gzip', Buffer.from('OK'), 'broken'],
    ['once gzip, when it says twice', 'gzip, gzip', gzipSync('OK'), 'broken'],
  ])('%s', async (_name, encoding, raw, expected) => {
    expect(text(await undoCodings(raw, encoding, 1024))).toBe(expected);
  });

  it('past the limit at any layer: the first `limit` bytes, said to be over', async () => {
    const result = await undoCodings(gzipSync(gzipSync('x'.repeat(5000))), 'gzip, gzip', 100);
    expect(result).toMatchObject({ overLimit: true });
    expect(typeof result !== 'string' && result.bytes.length).toBe(100);
  });

  it('an error body in gzip, gzip is read for its words', async () => {
    const body = gzipSync(gzipSync('{"error":7,"message":"protected"}'));
    expect(await decodeBody(body, 'gzip, gzip', 'application/json', 1024)).toBe('{"error":7,"message":"protected"}');
  });
});
