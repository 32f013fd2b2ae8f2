import zlib from 'node:zlib';

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
  let bytes = raw;
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  const inflater = inflaterFor(encoding);
  if (inflater !== undefined) {
    try {
      bytes = await inflateUpTo(raw, inflater, limit);
    } catch {
      return '';
    }
  }
  const charset = /charset="?([\w-]+)"?/i.exec(contentType ?? '')?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

function inflaterFor(encoding: string): (() => zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress) | undefined {
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
async function inflateUpTo(raw: Buffer, create: () => NodeJS.ReadWriteStream, limit: number): Promise<Buffer> {
  const inflater = create();
  inflater.end(raw);
  return readCapped(inflater as AsyncIterable<Buffer>, limit);
}
