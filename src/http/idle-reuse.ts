// A keep-alive connection the server closes just as a request goes out on it: nginx with
// `keepalive_timeout 1s` closes an idle connection after a second, and a request written in
// the same instant meets the close (a FIN, then a reset, or EPIPE) with no byte of an answer.
// The server closed the connection before reading it; curl and browsers send such a request
// once more on a new connection, whatever their retry settings. undici does not: it checks an
// idle connection before reusing it (a FIN that already arrived puts the request on another),
// but a close that crosses the request on the wire fails it. This marks those failures, so
// the transport can send the request once more (transport.ts), and no other.

import type { Socket } from 'node:net';

/** The errors a connection ended with that crossed a request on a reused connection, before any byte of its answer. */
const CROSSED = new WeakSet<object>();

/**
 * Watches a connection the pool opened: which of its requests began on it after an earlier one
 * (a write once bytes had been read since the last write: an answer came between), and whether
 * any byte arrived after the latest was written. Counts bytes, never reads them.
 */
export function watchReuse(socket: Socket): void {
  let requests = 0;
  let writes = 0;
  let readAtLastWrite = 0;
  const write = socket.write;
  socket.write = function (this: Socket, ...args: Parameters<Socket['write']>) {
    // Only the first write of a request comes after its predecessor's answer: a body's writes follow its head at once.
    if (writes === 0 || socket.bytesRead !== readAtLastWrite) requests += 1;
    writes += 1;
    readAtLastWrite = socket.bytesRead;
    return write.apply(this, args);
  } as Socket['write'];
  // Before undici's own listener (it is added once the connector hands the socket over), so the mark is there when the request fails.
  socket.on('error', (error: unknown) => {
    if (requests >= 2 && socket.bytesRead === readAtLastWrite && typeof error === 'object' && error !== null) CROSSED.add(error);
  });
}

/** Whether `error` ended a reused keep-alive connection after a request was written on it and before any byte of its answer. */
export function crossedIdleClose(error: unknown): boolean {
  return typeof error === 'object' && error !== null && CROSSED.has(error);
}
