// The dispatcher over HTTP/2 when the server retires a connection (GOAWAY, as nginx
// does after keepalive_requests, or on a reload) while one of its answers is still
// outstanding: requests sent after that must go out on a new connection at once,
// not wait behind the outstanding answer (found by h2-stress.ts; see dispatcher.ts).
// Loopback only: a TLS server offering h2 and http/1.1, as the bench's TLS row does.
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDispatcher } from '../../src/http/dispatcher.js';
import { Exchange } from '../../src/http/exchange.js';
import { createCa, issue, OPENSSL } from '../helpers/certificates.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Seen {
  path: string;
  httpVersion: string;
  connection: number;
}

describe.skipIf(!OPENSSL)('HTTP/2 after a GOAWAY', () => {
  it('sends a new request on a new connection while an answer on the retired one is still outstanding', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'plantstore-h2-goaway-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const ca = createCa(dir);
    const issued = issue(ca, dir, 'server', ['IP:127.0.0.1']);

    const seen: Seen[] = [];
    const connections = new WeakMap<http2.Http2Session, number>();
    let held: http2.Http2ServerResponse | undefined;
    const server = http2.createSecureServer({ cert: issued.cert, key: issued.key, allowHTTP1: true }, (req, res) => {
      const session = req.stream.session;
      seen.push({ path: req.url, httpVersion: req.httpVersion, connection: (session && connections.get(session)) ?? 0 });
      req.resume();
      if (req.url === '/plants/1') {
        held = res; // answered once /plants/3 has arrived
        return;
      }
      res.writeHead(204).end();
      // The server retires this connection: no new streams, those in flight (/plants/1) still answered.
      if (req.url === '/plants/2') session?.close();
      if (req.url === '/plants/3') held?.writeHead(204).end();
    });
    const open = new Set<http2.Http2Session>();
    server.on('session', (session) => {
      connections.set(session, open.size + 1);
      open.add(session);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise((resolve) => {
          // Also when the test failed with /plants/1 still held.
          for (const session of open) session.destroy();
          server.close(resolve);
        }),
    );
    const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const dispatcher = createDispatcher({ origin, proxy: undefined, timeoutMs: 30_000, caPem: ca.cert, connections: 8 });
    cleanups.push(() => dispatcher.destroy());
    const sent: Promise<number>[] = [];
    const del = (id: number): Promise<number> => {
      // As plantstore's attempts do (attempt.ts): dispatch with an Exchange; the dispatcher has no request().
      const exchange = new Exchange(1024);
      dispatcher.dispatch({ origin, path: `/plants/${id}`, method: 'DELETE' }, exchange);
      const answered = exchange.ended.then(({ head, error }) => {
        if (error !== undefined || head === undefined) throw error ?? new Error('no answer');
        return head.status;
      });
      sent.push(answered);
      return answered;
    };
    // Should the test fail, /plants/1 is answered here so that every request ends before the dispatcher is closed.
    cleanups.push(async () => {
      if (held && !held.writableEnded) held.writeHead(204).end();
      await Promise.allSettled(sent);
    });

    const retired = once(dispatcher, 'disconnect');
    const first = del(1);
    expect(await del(2)).toBe(204);
    await retired; // the GOAWAY has been read
    // Before the fix this request waited for /plants/1's answer, which the server gives only once it
    // arrives: it never did, and the test timed out.
    expect(await del(3)).toBe(204);
    expect(await first).toBe(204);

    expect(seen).toEqual([
      { path: '/plants/1', httpVersion: '2.0', connection: 1 },
      { path: '/plants/2', httpVersion: '2.0', connection: 1 },
      { path: '/plants/3', httpVersion: '2.0', connection: 2 },
    ]);
  });
});
