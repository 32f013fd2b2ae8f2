import type zlib from 'node:zlib';

/**
 * Reads at most `limit` bytes, then drops the rest: a 1 GB error page must not fill
 * memory. A body that fails before its end (reset, closed, timed out) rejects: half
 * an answer is not the server's answer, and the caller reports the failure instead.
 */
export async function readCapped(body: AsyncIterable<Buffer>, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const room = limit - size;
    chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
    size += Math.min(chunk.length, room);
    if (size >= limit) break; // leaving the loop destroys the stream and its connection
  }
  return Buffer.concat(chunks);
}

/**
 * undici's request() hands bodies over as sent. An error body may be compressed
 * (a proxy or framework chose to) and in any charset: undo both, never growing
 * past `limit`, and never throwing — a body we cannot read is simply not used.
 */
export async function decodeBody(
  raw: Buffer,
  contentEncoding: string | undefined,
  contentType: string | undefined,
  limit: number,
): Promise<string> {
  const decoded = await undoCodings(raw, contentEncoding, limit);
  // A coding we do not know: read as sent, as an error body is worth its words either way.
  if (decoded === 'unknown') return textOf(raw, contentType);
  // Bytes that do not inflate: nothing to read.
  if (decoded === 'broken') return '';
  return textOf(decoded.bytes, contentType);
}

/**
 * The bytes a body stands for, every content coding undone (RFC 9110 §8.4: listed in the order
 * they were applied, so undone from the last), never growing past `limit`. 'unknown' when a
 * coding is not one we can undo, 'broken' when the bytes do not inflate. `gzip, gzip` is
 * inflated twice and `identity` skipped: the body is judged as the server meant it, whole.
 */
export async function undoCodings(
  raw: Buffer,
  contentEncoding: string | undefined,
  limit: number,
): Promise<{ bytes: Buffer; overLimit: boolean } | 'unknown' | 'broken'> {
  // The common case, and every answer of a run that goes well: no coding at all.
  if (contentEncoding === undefined || contentEncoding.trim() === '') return { bytes: raw, overLimit: false };
  const codings = contentEncoding
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  const inflaters = codings.map(inflaterFor);
  if (inflaters.some((inflater) => inflater === undefined)) return 'unknown';
  let bytes = raw;
  let overLimit = false;
  try {
    for (const inflater of inflaters.reverse()) {
      const inflated = await inflateUpTo(bytes, inflater as NonNullable<(typeof inflaters)[number]>, limit);
      bytes = inflated.bytes;
      overLimit ||= inflated.overLimit;
    }
  } catch {
    return 'broken';
  }
  return { bytes, overLimit };
}

export function textOf(bytes: Buffer, contentType: string | undefined): string {
  const bom = byteOrderMark(bytes);
  if (bom !== undefined) return bom.decode(bytes.subarray(bom.length));
  const charset = /charset="?([\w-]+)"?/i.exec(contentType ?? '')?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

interface Bom {
  length: number;
  decode(bytes: Buffer): string;
}

/**
 * A byte-order mark says the encoding better than any header (as browsers read it): a UTF-16
 * body with no charset, read as UTF-8, comes out as letters between NULs, which cleaning then
 * joins back together, past the token mask. UTF-32 first: its little-endian mark begins like UTF-16's.
 */
function byteOrderMark(bytes: Buffer): Bom | undefined {
  const [a, b, c, d] = bytes;
  if (a === 0xff && b === 0xfe && c === 0 && d === 0) return { length: 4, decode: (rest) => utf32(rest, 'le') };
  if (a === 0 && b === 0 && c === 0xfe && d === 0xff) return { length: 4, decode: (rest) => utf32(rest, 'be') };
  if (a === 0xef && b === 0xbb && c === 0xbf) return { length: 3, decode: (rest) => new TextDecoder('utf-8').decode(rest) };
  if (a === 0xff && b === 0xfe) return { length: 2, decode: (rest) => new TextDecoder('utf-16le').decode(rest) };
  if (a === 0xfe && b === 0xff) return { length: 2, decode: (rest) => new TextDecoder('utf-16be').decode(rest) };
  return undefined;
}

/** TextDecoder has no UTF-32. A unit that is not a code point becomes U+FFFD, as decoders do. */
function utf32(bytes: Buffer, order: 'le' | 'be'): string {
  let text = '';
  for (let at = 0; at + 4 <= bytes.length; at += 4) {
    const unit = order === 'le' ? bytes.readUInt32LE(at) : bytes.readUInt32BE(at);
    text += unit <= 0x10ffff && (unit < 0xd800 || unit > 0xdfff) ? String.fromCodePoint(unit) : '\ufffd';
  }
  return text;
}

function inflaterFor(encoding: string): (() => zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress) | undefined {
  if (encoding !== 'gzip' && encoding !== 'x-gzip' && encoding !== 'deflate' && encoding !== 'br') return undefined;
  // Loaded for a compressed body only: the answers of a run that goes well (204) have none.
  const zlib = process.getBuiltinModule('node:zlib');
  // Flushed as far as the input goes: a body cut at the read limit still yields its beginning.
  const options = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
  if (encoding === 'gzip' || encoding === 'x-gzip') return () => zlib.createGunzip(options);
  if (encoding === 'deflate') return () => zlib.createInflate(options);
  if (encoding === 'br') return () => zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
  return undefined;
}

/**
 * The first `limit` bytes of what `raw` inflates to. A page that inflates past the
 * limit (a 1 MB HTML error page compresses to a few KiB) keeps its beginning, where
 * its <title> or the Error object's code is, instead of failing as a whole.
 */
async function inflateUpTo(
  raw: Buffer,
  create: () => NodeJS.ReadWriteStream,
  limit: number,
): Promise<{ bytes: Buffer; overLimit: boolean }> {
  const inflater = create();
  inflater.end(raw);
  // One byte past the limit says whether there was more.
  const bytes = await readCapped(inflater as AsyncIterable<Buffer>, limit + 1);
  return bytes.length > limit ? { bytes: bytes.subarray(0, limit), overLimit: true } : { bytes, overLimit: false };
}
