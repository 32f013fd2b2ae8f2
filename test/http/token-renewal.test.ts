// The transport with a token that renews (config/token-lease.ts commandTokens) against a
// loopback server whose tokens wear out: many requests refused at once cause one renewal,
// requests wait for it rather than go out with the refused token, a 401 with a fresh token is
// final, and a renewal that fails leaves the request unsent. Outcomes are checked as data.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { commandTokens } from '../../src/config/token-lease.js';
import { AuthError } from '../../src/errors.js';
import { createTransport, type Transport } from '../../src/http/transport.js';
import { DELETE } from '../helpers/requests.js';

const token = (n: number) => `renewed-token-${n}-abcdef`;

interface Server {
  url: string;
  /** The tokens each request carried, by their generation, in arrival order. */
  seen: number[];
  close(): Promise<void>;
}

/** Accepts only the newest token it has been told of; `accept(n)` moves it on. */
async function server(accepted: () => number): Promise<Server> {
  const seen: number[] = [];
  const instance = http.createServer((req, res) => {
    const n = Number(/renewed-token-(\d+)-/.exec(req.headers.authorization ?? '')?.[1] ?? 0);
    seen.push(n);
    if (n === accepted()) res.writeHead(204).end();
    else res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":401,"message":"token expired"}');
  });
  await new Promise<void>((resolve) => instance.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(instance.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((resolve) => instance.close(() => resolve())),
  };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function transportFor(url: string, tokens: ReturnType<typeof commandTokens>, retries = 0): Transport {
  const transport = createTransport({
    endpoint: { baseUrl: url, token: tokens },
    userAgent: 'test',
    env: {},
    timeoutMs: 5000,
    retries,
    maxRetryWaitMs: 0,
    connections: 64,
  });
  cleanups.push(() => transport.close());
  return transport;
}

const live = () => new AbortController().signal;
const send = (transport: Transport, id: number) => transport.send({ ...DELETE, path: `/plants/${id}`, label: String(id) }, live());

describe('a token that renews', () => {
  it('64 requests refused at once renew it once, and each is sent again with the new token, without using --retries', async () => {
    let accepted = 1;
    const api = await server(() => accepted);
    cleanups.push(api.close);
    let runs = 0;
    const tokens = commandTokens(async () => ({ token: token(++runs) }), { now: Date.now });
    await tokens.current();
    // The server retires token 1 before any request arrives: all 64 meet a 401 with it.
    accepted = 2;
    const transport = transportFor(api.url, tokens);
    const outcomes = await Promise.all(Array.from({ length: 64 }, (_, i) => send(transport, i + 1)));
    expect(outcomes.every((outcome) => outcome.kind === 'ok')).toBe(true);
    expect(runs).toBe(2);
    // Each request went out at most once with the refused token, then with the new one.
    expect(api.seen.filter((n) => n === 1).length).toBeLessThanOrEqual(64);
    expect(api.seen.filter((n) => n === 2)).toHaveLength(64);
  });

  it('holds new requests while the renewal is under way, then sends them with the new token', async () => {
    const accepted = 2;
    const api = await server(() => accepted);
    cleanups.push(api.close);
    let runs = 0;
    let release: () => void = () => {};
    const tokens = commandTokens(
      async () => {
        runs++;
        if (runs === 2) await new Promise<void>((resolve) => (release = resolve));
        return { token: token(runs) };
      },
      { now: Date.now },
    );
    await tokens.current();
    const transport = transportFor(api.url, tokens);
    const refusedFirst = send(transport, 1);
    // Wait until the renewal has started (the 401 for token 1 arrived and the command runs).
    while (runs < 2) await new Promise((resolve) => setImmediate(resolve));
    const waiting = [send(transport, 2), send(transport, 3)];
    await new Promise((resolve) => setImmediate(resolve));
    expect(api.seen).toEqual([1]);
    release();
    const outcomes = await Promise.all([refusedFirst, ...waiting]);
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['ok', 'ok', 'ok']);
    expect(api.seen.slice(1)).toEqual([2, 2, 2]);
    expect(accepted).toBe(2);
  });

  it('a 401 with a token obtained after the request started is final: exit 4, one renewal', async () => {
    const api = await server(() => 0);
    cleanups.push(api.close);
    let runs = 0;
    const tokens = commandTokens(async () => ({ token: token(++runs) }), { now: Date.now });
    await tokens.current();
    const outcome = await send(transportFor(api.url, tokens, 2), 1);
    expect(outcome).toMatchObject({ kind: 'failed', last: { kind: 'api-error', status: 401 } });
    expect(runs).toBe(2);
    expect(api.seen).toEqual([1, 2]);
  });

  it('a renewal that fails leaves the refused request failed with the reason, and later requests not sent', async () => {
    const api = await server(() => 99);
    cleanups.push(api.close);
    let runs = 0;
    const tokens = commandTokens(
      async () => {
        if (++runs > 1) throw new AuthError("token command 'vault read' failed with exit status 2");
        return { token: token(runs) };
      },
      { now: Date.now },
    );
    await tokens.current();
    const transport = transportFor(api.url, tokens);
    expect(await send(transport, 1)).toMatchObject({
      kind: 'failed',
      last: { kind: 'api-error', status: 401 },
      stopped: { kind: 'gave-up', reason: expect.stringMatching(/failed with exit status 2/) },
    });
    expect(await send(transport, 2)).toEqual({
      kind: 'not-sent',
      reason: { kind: 'no-token', message: expect.stringMatching(/failed with exit status 2/) },
    });
    expect(api.seen).toEqual([1]);
    expect(runs).toBe(2);
  });

  it('an answer still on its way when the token is renewed is masked for the token it was sent with', async () => {
    let holdFirst: () => void = () => {};
    const echo = http.createServer((req, res) => {
      const auth = req.headers.authorization ?? '';
      const answer = () =>
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 7, message: `refused ${auth}` }));
      if (req.url === '/plants/1') holdFirst = answer;
      else if (auth === `Bearer ${token(1)}`)
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":401,"message":"expired"}');
      else answer();
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => echo.close(() => resolve())));
    let runs = 0;
    const tokens = commandTokens(async () => ({ token: token(++runs) }), { now: Date.now });
    await tokens.current();
    const transport = transportFor(`http://127.0.0.1:${(echo.address() as AddressInfo).port}`, tokens);
    const first = send(transport, 1);
    // Plant 2 meets a 401 with token 1: token 2 is obtained while plant 1's answer is held.
    const second = await send(transport, 2);
    expect(runs).toBe(2);
    holdFirst();
    const outcomes = [await first, second];
    expect(outcomes.map((outcome) => (outcome.kind === 'failed' ? outcome.last.status : outcome.kind))).toEqual([400, 400]);
    for (const outcome of outcomes) {
      const text = JSON.stringify(outcome);
      expect(text).toContain('refused Bearer ***');
      expect(text).not.toContain(token(1));
      expect(text).not.toContain(token(2));
    }
  });
});
