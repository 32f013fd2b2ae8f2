// A keep-alive connection the server closes just as a request goes out on it (nginx with
// `keepalive_timeout 1s`): the request is sent once more, on another connection, whatever
// --retries says, as curl and browsers do; and only then: a new connection, or an answer
// begun, or a second such close, is a failure as before. A loopback server on raw sockets
// closes a connection exactly when its request arrives, so the race is made, not waited for.
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import net, { type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import type { Dispatcher } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { watchReuse } from '../../src/http/idle-reuse.js';
import type { Outcome } from '../../src/http/outcome.js';
import { createTransport } from '../../src/http/transport.js';
import { createCa, issue, OPENSSL } from '../helpers/certificates.js';
import { DELETE } from '../helpers/requests.js';

interface Arrival {
  connection: number;
  /** 1-based: the how-manyth request on its connection. */
  onConnection: number;
  path: string;
}

type Reply = (socket: Socket, arrival: Arrival) => void;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const NO_CONTENT = 'HTTP/1.1 204 No Content\r\n\r\n';

/**
 * A server that calls `reply` for each request head, knowing which connection it came on and how
 * many came before it there; over TLS (HTTP/1.1 only) when given a certificate.
 */
async function server(reply: Reply, tlsOptions?: tls.TlsOptions): Promise<{ base: string; arrivals: Arrival[] }> {
  const arrivals: Arrival[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const accept = (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    const connection = ++connections;
    let onConnection = 0;
    let buffered = '';
    socket.on('data', (data) => {
      buffered += data.toString('latin1');
      for (let end = buffered.indexOf('\r\n\r\n'); end !== -1; end = buffered.indexOf('\r\n\r\n')) {
        const head = buffered.slice(0, end);
        buffered = buffered.slice(end + 4);
        const arrival = { connection, onConnection: ++onConnection, path: head.split(' ')[1] ?? '' };
        arrivals.push(arrival);
        reply(socket, arrival);
      }
    });
  };
  const listener = tlsOptions === undefined ? net.createServer(accept) : tls.createServer(tlsOptions, accept);
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        listener.close(() => resolve());
      }),
  );
  const scheme = tlsOptions === undefined ? 'http' : 'https';
  return { base: `${scheme}://127.0.0.1:${(listener.address() as AddressInfo).port}`, arrivals };
}

function transport(base: string, connections = 1, caPem?: string) {
  const made = createTransport({
    ...(caPem === undefined ? {} : { caPem }),
    endpoint: { baseUrl: base, token: 'idle-close-token-0123456789' },
    userAgent: 'test',
    timeoutMs: 5000,
    retries: 0,
    maxRetryWaitMs: 0,
    env: {},
    connections,
  });
  cleanups.push(() => made.close());
  return (id: string): Promise<Outcome> => made.send({ ...DELETE, path: `/plants/${id}`, label: id }, new AbortController().signal);
}

describe('a request that meets the close of a reused idle connection, under --retries 0', () => {
  it.each<[string, (socket: Socket) => void]>([
    ['closed (FIN)', (socket) => socket.destroy()],
    ['reset (RST)', (socket) => socket.resetAndDestroy()],
  ])('%s as the second request arrives: sent once more on a new connection, and deleted', async (_name, close) => {
    const { base, arrivals } = await server((socket, { onConnection }) => {
      if (onConnection === 1) socket.write(NO_CONTENT);
      else close(socket);
    });
    const send = transport(base);
    expect(await send('1')).toEqual({ kind: 'ok', status: 204, body: '' });
    expect(await send('2')).toEqual({ kind: 'ok', status: 204, body: '' });
    expect(arrivals).toEqual([
      { connection: 1, onConnection: 1, path: '/plants/1' },
      { connection: 1, onConnection: 2, path: '/plants/2' },
      { connection: 2, onConnection: 1, path: '/plants/2' },
    ]);
  });

  it.skipIf(!OPENSSL)('over TLS, where the server sends close_notify before it closes: sent once more too', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'plantstore-idle-close-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const ca = createCa(dir);
    const issued = issue(ca, dir, 'server', ['IP:127.0.0.1']);
    const { base, arrivals } = await server(
      (socket, { onConnection }) => {
        if (onConnection === 1) socket.write(NO_CONTENT);
        else socket.end(); // close_notify, then FIN, as nginx's idle timer does
      },
      { cert: issued.cert, key: issued.key, ALPNProtocols: ['http/1.1'] },
    );
    const send = transport(base, 1, ca.cert);
    expect(await send('1')).toEqual({ kind: 'ok', status: 204, body: '' });
    expect(await send('2')).toEqual({ kind: 'ok', status: 204, body: '' });
    expect(arrivals.map((arrival) => arrival.connection)).toEqual([1, 1, 2]);
  });

  it('a new connection closed before any answer is not sent again: it carried no earlier request', async () => {
    const { base, arrivals } = await server((socket) => socket.destroy());
    const outcome = await transport(base)('1');
    expect(outcome).toMatchObject({ kind: 'failed', attempts: 1, last: { kind: 'network', what: 'closed' } });
    expect(outcome.kind === 'failed' && 'idleClose' in outcome.last).toBe(false);
    expect(arrivals).toHaveLength(1);
  });

  it('a reused connection closed after a byte of the answer is not sent again: the server had read it', async () => {
    const { base, arrivals } = await server((socket, { onConnection }) => {
      if (onConnection === 1) socket.write(NO_CONTENT);
      else socket.end('HTTP/1.1 2');
    });
    const send = transport(base);
    await send('1');
    expect(await send('2')).toMatchObject({ kind: 'failed', attempts: 1 });
    expect(arrivals).toHaveLength(2);
  });
});

/** An error as a reused connection ends with when the server closed it as a request went out (what idle-reuse.ts marks). */
function crossedClose(): Error {
  const socket = Object.assign(new EventEmitter(), { bytesRead: 0, write: () => true }) as unknown as Socket & { bytesRead: number };
  watchReuse(socket);
  socket.write('DELETE /plants/1 HTTP/1.1\r\n\r\n');
  socket.bytesRead = 25; // its answer
  socket.write('DELETE /plants/2 HTTP/1.1\r\n\r\n');
  const error = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
  socket.emit('error', error);
  return error;
}

/** A dispatcher whose first `closes` requests fail as crossedClose does, and the rest are answered 204. */
function closingDispatcher(closes: number): { dispatcher: Dispatcher; sent: number } {
  const state = { sent: 0, dispatcher: undefined as unknown as Dispatcher };
  state.dispatcher = {
    dispatch(_options: unknown, handler: Dispatcher.DispatchHandler) {
      const controller = { aborted: false, paused: false, reason: null, abort() {}, pause() {}, resume() {} };
      handler.onRequestStart?.(controller as unknown as Dispatcher.DispatchController, {});
      const number = ++state.sent;
      queueMicrotask(() => {
        if (number <= closes) handler.onResponseError?.(controller as unknown as Dispatcher.DispatchController, crossedClose());
        else {
          handler.onResponseStart?.(controller as unknown as Dispatcher.DispatchController, 204, {}, 'No Content');
          handler.onResponseEnd?.(controller as unknown as Dispatcher.DispatchController, {});
        }
      });
      return true;
    },
    close: async () => {},
    destroy: async () => {},
  } as unknown as Dispatcher;
  return state;
}

describe('sent once more: only once, only when sending twice does no harm, and never from the retry budget', () => {
  const send = (closes: number, method: string, retries: number) => {
    const script = closingDispatcher(closes);
    const made = createTransport({
      endpoint: { baseUrl: 'https://api.example.com', token: 'idle-close-token-0123456789' },
      userAgent: 'test',
      timeoutMs: 5000,
      retries,
      maxRetryWaitMs: 0,
      env: {},
      dispatcher: script.dispatcher,
      random: () => 0,
    });
    cleanups.push(() => made.close());
    return made
      .send({ ...DELETE, method, path: '/plants/1', label: '1' }, new AbortController().signal)
      .then((outcome) => ({ outcome, sent: script.sent }));
  };

  it.each<[string, number, string, number, string, number]>([
    ['once, under --retries 0', 1, 'DELETE', 0, 'ok', 2],
    ['not twice: the second such close fails, after 2 attempts', 2, 'DELETE', 0, 'failed', 2],
    ['not a POST: it could be done twice', 1, 'POST', 0, 'failed', 1],
    ['not from --retries: with --retries 1, two such closes and then the answer', 2, 'DELETE', 1, 'ok', 3],
  ])('%s', async (_name, closes, method, retries, kind, sent) => {
    const result = await send(closes, method, retries);
    expect(result.outcome.kind).toBe(kind);
    expect(result.sent).toBe(sent);
  });
});
