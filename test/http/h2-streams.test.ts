// How many HTTP/2 connections the dispatcher opens for the requests a run has in flight.
// Over h2 one connection per origin carries them all (RFC 9113 section 9.1): the dispatcher
// asks undici for as many streams as the run's `connections`, not undici's default of 100,
// which made a run of 256 in flight open three TLS connections one after another (see
// dispatcher.ts). The server's own SETTINGS_MAX_CONCURRENT_STREAMS, when lower, still wins:
// then a connection carries that many and the rest go on another.
// Loopback only: a TLS server offering h2 and http/1.1, as the bench's TLS row does.
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

interface HoldingServer {
  origin: string;
  caPem: string;
  /** Every session the server accepted: one per connection. */
  sessions: http2.Http2Session[];
  /** The most streams each session ever had open at once, in the order the sessions came. */
  peaks: Map<http2.Http2Session, number>;
  /** The HTTP version of each request that arrived. */
  versions: string[];
}

/** A server that answers nothing until `hold` requests are open at once, then answers them all 204. */
async function holdingServer(hold: number, settings?: http2.Settings): Promise<HoldingServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'plantstore-h2-streams-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const ca = createCa(dir);
  const issued = issue(ca, dir, 'server', ['IP:127.0.0.1']);

  const sessions: http2.Http2Session[] = [];
  const open = new Map<http2.Http2Session, number>();
  const peaks = new Map<http2.Http2Session, number>();
  const versions: string[] = [];
  const held: http2.Http2ServerResponse[] = [];
  const answerAll = () => {
    for (const res of held.splice(0)) if (!res.writableEnded) res.writeHead(204).end();
  };
  const server = http2.createSecureServer({ cert: issued.cert, key: issued.key, allowHTTP1: true, settings }, (req, res) => {
    versions.push(req.httpVersion);
    req.resume();
    const session = req.stream?.session;
    if (session) {
      open.set(session, (open.get(session) ?? 0) + 1);
      peaks.set(session, Math.max(peaks.get(session) ?? 0, open.get(session) ?? 0));
      req.stream.once('close', () => open.set(session, (open.get(session) ?? 1) - 1));
    }
    held.push(res);
    // The last of them has arrived, none answered yet: all are open at the server at once.
    if (versions.length === hold) answerAll();
  });
  server.on('session', (session) => sessions.push(session));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise((resolve) => {
        // Also when the test failed with requests still held.
        answerAll();
        for (const session of sessions) session.destroy();
        server.close(resolve);
      }),
  );
  const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, caPem: ca.cert, sessions, peaks, versions };
}

/** Sends `count` DELETEs at once through a dispatcher made as a run makes it; resolves to their statuses. */
function sendAll(server: HoldingServer, count: number, connections: number | undefined): Promise<number[]> {
  const options = { origin: server.origin, proxy: undefined, timeoutMs: 30_000, caPem: server.caPem };
  // Left out rather than undefined, as a single `plantstore delete <id>` leaves it.
  const dispatcher = createDispatcher(connections === undefined ? options : { ...options, connections });
  const sent = Array.from({ length: count }, (_, i) => {
    // As plantstore's attempts do (attempt.ts): dispatch with an Exchange; the dispatcher has no request().
    const exchange = new Exchange(1024);
    dispatcher.dispatch({ origin: server.origin, path: `/plants/${i + 1}`, method: 'DELETE' }, exchange);
    return exchange.ended.then(({ head, error }) => {
      if (error !== undefined || head === undefined) throw error ?? new Error('no answer');
      return head.status;
    });
  });
  // Every request ends (the server's cleanup answers any still held) before the dispatcher goes.
  cleanups.push(async () => {
    await Promise.allSettled(sent);
    await dispatcher.destroy();
  });
  return Promise.all(sent);
}

describe.skipIf(!OPENSSL)('HTTP/2 streams per connection', () => {
  it('carries 256 requests in flight at once on one connection', async () => {
    const server = await holdingServer(256);
    // Before the change undici held each connection to 100 streams: the server saw three sessions.
    expect(await sendAll(server, 256, 256)).toEqual(Array(256).fill(204));
    expect(server.versions).toEqual(Array(256).fill('2.0'));
    expect(server.sessions).toHaveLength(1);
    expect([...server.peaks.values()]).toEqual([256]);
  });

  it("opens a second connection only past the server's own SETTINGS_MAX_CONCURRENT_STREAMS", async () => {
    const server = await holdingServer(256, { maxConcurrentStreams: 128 });
    expect(await sendAll(server, 256, 256)).toEqual(Array(256).fill(204));
    expect(server.versions).toEqual(Array(256).fill('2.0'));
    // 128 each: never more on one connection than the server allows, and no third connection.
    expect(server.sessions).toHaveLength(2);
    expect([...server.peaks.values()]).toEqual([128, 128]);
  });

  it('sends a single request over h2 when the run sets no connections (plantstore delete <id>)', async () => {
    const server = await holdingServer(1);
    expect(await sendAll(server, 1, undefined)).toEqual([204]);
    expect(server.versions).toEqual(['2.0']);
    expect(server.sessions).toHaveLength(1);
  });
});
