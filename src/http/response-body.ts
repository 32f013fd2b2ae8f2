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
export function decodeBody(raw: Buffer, contentEncoding: string | undefined, contentType: string | undefined, limit: number): string {
  let bytes = raw;
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  try {
    // SYNC_FLUSH: a body cut at the read limit still yields its beginning.
    const options = { maxOutputLength: limit, finishFlush: zlib.constants.Z_SYNC_FLUSH };
    if (encoding === 'gzip' || encoding === 'x-gzip') bytes = zlib.gunzipSync(raw, options);
    else if (encoding === 'deflate') bytes = zlib.inflateSync(raw, options);
    else if (encoding === 'br') bytes = zlib.brotliDecompressSync(raw, { maxOutputLength: limit });
  } catch {
    return '';
  }
  const charset = /charset="?([\w-]+)"?/i.exec(contentType ?? '')?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}
