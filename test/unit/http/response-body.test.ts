// Error bodies in encodings announced by a byte-order mark rather than a charset.
import { describe, expect, it } from 'vitest';
import { decodeBody } from '../../../src/http/response-body.js';

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
