// A scripted stand-in for a real Plant Store deployment, for the network
// benchmarks (network.ts): unlike server.ts, which answers at once, it can
//   - take a fixed time per answer, and a much longer time for every n-th
//     request (a deterministic tail, so that runs compare), plus a replayable jitter;
//   - rate-limit with a token bucket: 429, Retry-After: 1 and an Error body;
//   - limit the requests being served at once: 503, Retry-After: 1, at once;
//   - have a capacity: serve at most `slots` requests at once and queue the rest in
//     arrival order, so that latency grows with load as a real service's does, and
//     optionally shed with 503 past a queue length (capacity.ts uses this);
//   - speak HTTP/2 over TLS (with HTTP/1.1 allowed too), and there retire each
//     connection with GOAWAY after so many requests, or allow few streams at once
//     (h2-stress.ts uses these; the bench rows do not).
// It records every request (arrival time, status sent, whether the token was
// right) so that a run can be judged by what the server saw, not by what the
// client says it did. configure() sets the behaviour and starts a new record.
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface Behaviour {
  /** How long an admitted request takes to answer, in ms (0: at once). */
  latencyMs: number;
  /** Every `tailEvery`-th admitted request (counted from configure()) takes `tailMs` instead. */
  tailEvery?: number;
  tailMs?: number;
  /** The first `hangFirst` admitted requests (counted from configure()) take `hangMs` instead: a first wave that hangs. */
  hangFirst?: number;
  hangMs?: number;
  /** Adds 0 to `jitterMs` ms more to each admitted answer (a fixed pseudo-random sequence from configure()). */
  jitterMs?: number;
  /** Token bucket: refilled at this many tokens a second; a request without a token gets 429. */
  ratePerSecond?: number;
  /** The bucket's capacity (and its fill at configure()); default 20. */
  burst?: number;
  /** More than this many admitted requests being answered at once: 503 at once. */
  maxInFlight?: number;
  /**
   * The server's capacity: at most this many admitted requests are served at once, each for
   * its latency; the rest wait in arrival order, so an answer takes its latency plus its wait.
   */
  slots?: number;
  /** With `slots`: a request that finds this many already waiting gets 503 + Retry-After: 1 at once. */
  shedPastQueue?: number;
  /** HTTP/2: close each connection gracefully (GOAWAY, in-flight streams finish) once it has carried this many requests, as nginx does. */
  goAwayAfter?: number;
  /** HTTP/2: SETTINGS_MAX_CONCURRENT_STREAMS sent to each new connection (after the server's default, as a server that lowers it does). */
  maxConcurrentStreams?: number;
}

export interface NetStats {
  /** Every request received since configure(). */
  total: number;
  /** Requests whose Authorization header was `Bearer <token>`. */
  authorized: number;
  /** Count of each status sent, e.g. { "204": 1500, "429": 30 }. */
  byStatus: Record<string, number>;
  /** Distinct ids answered 204 (a repeat is answered 204 again, and counted once here). */
  distinctDeleted: number;
  /** Arrival of each request, ms since configure(), in arrival order. */
  arrivals: number[];
  /** The most admitted requests being answered at once (served or waiting for a slot). */
  peakInFlight: number;
  /** The same, counted only from 1 s after configure(): the opening burst aside. */
  peakInFlightAfterFirstSecond: number;
  /**
   * The most admitted requests in flight in each 100 ms since configure() (IN_FLIGHT_STEP_MS):
   * how a client's concurrency moved over the run, seen from the server, at no cost to the client.
   */
  inFlightByStep: number[];
  /** With `slots`: the mean time admitted requests waited for a slot, in ms (0 without). */
  meanQueueingMs: number;
  /** When the last answer to an admitted request other than the `hangFirst` ones was sent, ms since configure(); 0 before any. */
  othersDoneMs: number;
  /** Requests by HTTP version, e.g. { "1.1": 1200 } or { "2.0": 1200 }. */
  byHttpVersion: Record<string, number>;
  /** Connections accepted (TCP, before any TLS). */
  connections: number;
  /** HTTP/2 connections closed by the server (goAwayAfter). */
  goAways: number;
}

export interface NetServer {
  /** Base URL, e.g. http://127.0.0.1:41234 (https:// with TLS). */
  url: string;
  configure(behaviour: Behaviour): void;
  stats(): NetStats;
  close(): Promise<void>;
}

export interface Tls {
  cert: string;
  key: string;
}

const DEFAULT_BURST = 20;
export const IN_FLIGHT_STEP_MS = 100;
const RATE_LIMITED = JSON.stringify({ error: 429, message: 'rate limited' });
const OVERLOADED = JSON.stringify({ error: 503, message: 'too many requests in flight' });
const UNAUTHORIZED = JSON.stringify({ error: 401, message: 'missing or wrong bearer token' });
const PLANT_PATH = /^\/plants\/([^/?#]+)$/;

/** A token bucket refilled continuously; take() is true when a token was there. */
export class TokenBucket {
  private tokens: number;
  private last: number;
  constructor(
    private readonly perSecond: number,
    private readonly capacity: number,
    now: number,
  ) {
    this.tokens = capacity;
    this.last = now;
  }
  take(now: number): boolean {
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) * this.perSecond) / 1000);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** Starts the server on 127.0.0.1 (HTTP/1.1, or HTTP/2 + HTTP/1.1 over TLS when `tls` is given). */
export async function startNetServer(token: string, tls?: Tls): Promise<NetServer> {
  let behaviour: Behaviour = { latencyMs: 0 };
  let epoch = performance.now();
  let bucket: TokenBucket | undefined;
  let admitted = 0;
  let inFlight = 0;
  // A small LCG, reseeded by configure(), so that a jittered run can be replayed.
  let seed = 1;
  const nextRandom = (): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  let record = newRecord();
  const timers = new Set<NodeJS.Timeout>();
  const perSession = new WeakMap<http2.Http2Session, number>();

  // The capacity model: requests being served, and those waiting for a slot, first come first served.
  let serving = 0;
  /** configure() starts a new generation: answers still due from an earlier one leave the new count alone. */
  let generation = 0;
  const waiting: { arrivedAt: number; serve: () => void }[] = [];

  function newRecord(): NetStats & { deleted: Set<string>; queueingMsTotal: number } {
    return {
      total: 0,
      authorized: 0,
      byStatus: {},
      distinctDeleted: 0,
      arrivals: [],
      peakInFlight: 0,
      peakInFlightAfterFirstSecond: 0,
      inFlightByStep: [],
      meanQueueingMs: 0,
      queueingMsTotal: 0,
      othersDoneMs: 0,
      byHttpVersion: {},
      connections: 0,
      goAways: 0,
      deleted: new Set<string>(),
    };
  }

  type Req = http.IncomingMessage | http2.Http2ServerRequest;
  /** What both servers' responses have in common (their writeHead overloads do not unify). */
  interface Res {
    writeHead(status: number, headers: Record<string, string>): unknown;
    end(): unknown;
    end(body: string): unknown;
  }
  type Answer = { status: number; headers?: Record<string, string>; body?: string };

  const send = (res: Res, { status, headers = {}, body }: Answer): void => {
    record.byStatus[status] = (record.byStatus[status] ?? 0) + 1;
    if (body === undefined) {
      res.writeHead(status, headers);
      res.end();
    } else {
      res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
      res.end(body);
    }
  };

  /** The answer refused at once, or undefined when the request is admitted. */
  const refusal = (req: Req, id: string | undefined, authorized: boolean, now: number): Answer | undefined => {
    if (req.method !== 'DELETE' || id === undefined) return { status: 405, headers: { allow: 'DELETE' } };
    // As a gateway would: the rate limit first, then the capacity of the service behind it.
    if (bucket && !bucket.take(now)) return { status: 429, headers: { 'retry-after': '1' }, body: RATE_LIMITED };
    if (behaviour.maxInFlight !== undefined && inFlight >= behaviour.maxInFlight)
      return { status: 503, headers: { 'retry-after': '1' }, body: OVERLOADED };
    if (
      behaviour.slots !== undefined &&
      behaviour.shedPastQueue !== undefined &&
      serving >= behaviour.slots &&
      waiting.length >= behaviour.shedPastQueue
    )
      return { status: 503, headers: { 'retry-after': '1' }, body: OVERLOADED };
    if (!authorized) return { status: 401, body: UNAUTHORIZED };
    return undefined;
  };

  const handle = (req: Req, res: Res): void => {
    const now = performance.now();
    record.total++;
    record.arrivals.push(now - epoch);
    record.byHttpVersion[req.httpVersion] = (record.byHttpVersion[req.httpVersion] ?? 0) + 1;
    const authorized = req.headers.authorization === `Bearer ${token}`;
    if (authorized) record.authorized++;
    req.resume();
    if (behaviour.goAwayAfter !== undefined && 'stream' in req) {
      const session = req.stream.session;
      if (session) {
        const carried = (perSession.get(session) ?? 0) + 1;
        perSession.set(session, carried);
        if (carried === behaviour.goAwayAfter) {
          record.goAways++;
          session.close();
        }
      }
    }
    const id = PLANT_PATH.exec(req.url ?? '')?.[1];
    const refused = refusal(req, id, authorized, now);
    if (refused || id === undefined) {
      send(res, refused ?? { status: 405 });
      return;
    }
    admitted++;
    inFlight++;
    record.peakInFlight = Math.max(record.peakInFlight, inFlight);
    if (now - epoch >= 1000) record.peakInFlightAfterFirstSecond = Math.max(record.peakInFlightAfterFirstSecond, inFlight);
    const step = Math.floor((now - epoch) / IN_FLIGHT_STEP_MS);
    for (let i = record.inFlightByStep.length; i <= step; i++) record.inFlightByStep.push(0);
    record.inFlightByStep[step] = Math.max(record.inFlightByStep[step] ?? 0, inFlight);
    const tail = behaviour.tailEvery !== undefined && admitted % behaviour.tailEvery === 0;
    const hangs = behaviour.hangFirst !== undefined && admitted <= behaviour.hangFirst;
    const jitter = behaviour.jitterMs ? Math.floor(nextRandom() * behaviour.jitterMs) : 0;
    const delay = (hangs ? (behaviour.hangMs ?? 0) : tail ? (behaviour.tailMs ?? 0) : behaviour.latencyMs) + jitter;
    const answeredIn = record;
    const answer = (): void => {
      inFlight--;
      record.deleted.add(id);
      if (!hangs && answeredIn === record) record.othersDoneMs = performance.now() - epoch;
      send(res, { status: 204 });
    };
    const servedIn = generation;
    const serve = (): void => {
      if (servedIn === generation) serving++;
      const done = (): void => {
        answer();
        if (servedIn !== generation) return;
        serving--;
        serveNext();
      };
      if (delay <= 0) {
        done();
        return;
      }
      const timer = setTimeout(() => {
        timers.delete(timer);
        done();
      }, delay);
      timers.add(timer);
    };
    if (behaviour.slots !== undefined && serving >= behaviour.slots) waiting.push({ arrivedAt: now, serve });
    else serve();
  };

  /** A slot came free: the longest-waiting request is served next. */
  const serveNext = (): void => {
    if (behaviour.slots === undefined || serving >= behaviour.slots) return;
    const next = waiting.shift();
    if (next === undefined) return;
    record.queueingMsTotal += performance.now() - next.arrivedAt;
    next.serve();
  };

  const sockets = new Set<Socket>();
  const server = tls
    ? http2.createSecureServer({ cert: tls.cert, key: tls.key, allowHTTP1: true }, handle)
    : http.createServer({ keepAliveTimeout: 30_000 }, handle);
  if (tls) {
    (server as http2.Http2SecureServer).on('session', (session) => {
      if (behaviour.maxConcurrentStreams !== undefined) session.settings({ maxConcurrentStreams: behaviour.maxConcurrentStreams });
    });
  }
  server.on('connection', (socket: Socket) => {
    record.connections++;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve); // loopback only
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    configure(next) {
      behaviour = { ...next };
      epoch = performance.now();
      bucket = next.ratePerSecond === undefined ? undefined : new TokenBucket(next.ratePerSecond, next.burst ?? DEFAULT_BURST, epoch);
      admitted = 0;
      // Requests of an earlier run still waiting are served, outside the new count.
      generation++;
      serving = 0;
      for (const stale of waiting.splice(0)) stale.serve();
      seed = 1;
      record = newRecord();
    },
    stats() {
      const { deleted, queueingMsTotal, ...rest } = record;
      const served = rest.byStatus[204] ?? 0;
      return {
        ...rest,
        // Requests served at once waited 0: the mean is over every answered request.
        meanQueueingMs: served === 0 ? 0 : queueingMsTotal / served,
        byStatus: { ...rest.byStatus },
        byHttpVersion: { ...rest.byHttpVersion },
        arrivals: [...rest.arrivals],
        inFlightByStep: [...rest.inFlightByStep],
        distinctDeleted: deleted.size,
      };
    },
    close: () =>
      new Promise((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        // An HTTP/2 server has no closeAllConnections(): destroying the sockets does for both.
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The most arrivals in any window of `windowMs` (half-open: [t, t + windowMs)); arrivals sorted. */
export function maxInWindow(arrivals: readonly number[], windowMs: number): number {
  let best = 0;
  let start = 0;
  for (let end = 0; end < arrivals.length; end++) {
    while ((arrivals[end] ?? 0) - (arrivals[start] ?? 0) >= windowMs) start++;
    best = Math.max(best, end - start + 1);
  }
  return best;
}
