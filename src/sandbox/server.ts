// In-memory implementation of the Plant Store service (see
// /work/shared/spec/plant-store-service.md), used by `plantstore sandbox`
// and the end-to-end tests. Only node: built-ins, so it runs anywhere.

import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import { isIPv6 } from 'node:net';
import { FailPlan, latencyOf, NO_PRESSURE, type Pressure, RateGate, Slots } from './pressure.js';

/** The sandbox's time: real by default; a test passes its own to drive the rate and the waits. */
export interface SandboxClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const REAL_CLOCK: SandboxClock = {
  now: () => performance.now(),
  // Unref'd: a wait still pending never holds the process open after close().
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref()),
};

export interface SandboxOptions {
  host: string;
  port: number;
  token: string;
  plants: number;
  log?: (line: string) => void;
  /** Latency, failures, a rate and a capacity (pressure.ts); none by default. */
  pressure?: Pressure;
  clock?: SandboxClock;
}

export interface Sandbox {
  url: string;
  close(): Promise<void>;
  readonly plantCount: number;
  readonly requestCount: number;
  /** Requests waiting for one of the --capacity slots. */
  readonly queued: number;
}

// The spec only defines 400 "unexpected error"; these codes are sandbox choices.
/** The sandbox's Error code for "no such plant" (what plantstore's --missing-error declares). */
export const SANDBOX_NOT_FOUND_ERROR = 1;
const ERR_NOT_FOUND = SANDBOX_NOT_FOUND_ERROR;
const ERR_INVALID_ID = 2;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const PLANT_PATH = /^\/plants\/([^/]*)$/;

function sendJson(res: ServerResponse, status: number, error: number, message: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ error, message });
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

// Ids stay BigInt end to end: int64 ids above 2^53 would silently collide as JS numbers.
function parsePlantId(raw: string): bigint | undefined {
  if (!/^-?[0-9]+$/.test(raw)) return undefined;
  const id = BigInt(raw);
  return id >= INT64_MIN && id <= INT64_MAX ? id : undefined;
}

// Constant-time comparison so the sandbox doesn't teach clients a timing oracle.
function isAuthorized(header: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer (.+)$/i.exec(header ?? '');
  if (!match?.[1]) return false;
  const given = Buffer.from(match[1], 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

// A bad percent-escape is just another malformed id, not a server crash.
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The plants of a sandbox: ids 1..n, less those deleted. */
export interface Plants {
  /** True when the plant was there (and is now gone). */
  delete(id: bigint): boolean;
  readonly count: number;
}

// One Set holds at most 2^24 entries; a long session may delete more.
const DELETED_PER_SET = 2 ** 23;

/**
 * Only the deletions are stored, so a sandbox of any size starts at once: a plant exists
 * iff 1 <= id <= n and it was not deleted. n is a safe integer, so the count stays exact.
 */
export function createPlants(n: number): Plants {
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new RangeError(`sandbox plants must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}, got ${n}`);
  }
  const last = BigInt(n);
  const deleted: Set<bigint>[] = [];
  let deletedCount = 0;
  return {
    delete(id) {
      if (id < 1n || id > last || deleted.some((set) => set.has(id))) return false;
      let current = deleted[deleted.length - 1];
      if (current === undefined || current.size >= DELETED_PER_SET) {
        current = new Set();
        deleted.push(current);
      }
      current.add(id);
      deletedCount++;
      return true;
    },
    get count() {
      return n - deletedCount;
    },
  };
}

/**
 * How long close() lets connections still in use finish. Without --latency or --capacity every
 * request that has fully arrived was answered at once, so this only lets those answers flush;
 * a request still arriving (half its headers or body sent), waiting out a latency or queued
 * for a slot would otherwise hold close() for as long as that takes.
 */
const CLOSE_GRACE_MS = 200;

function formatUrl(host: string, port: number): string {
  return `http://${isIPv6(host) ? `[${host}]` : host}:${port}`;
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    // Reject with the original error (EADDRINUSE, EACCES...) so the CLI can explain it.
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

export async function startSandbox(opts: SandboxOptions): Promise<Sandbox> {
  if (opts.token === '') throw new TypeError('sandbox token must not be empty');
  const plants = createPlants(opts.plants);
  const expectedToken = Buffer.from(opts.token, 'utf8');
  let requestCount = 0;
  let closing: Promise<void> | undefined;
  const pressure = opts.pressure ?? NO_PRESSURE;
  const clock = opts.clock ?? REAL_CLOCK;
  const failPlan = new FailPlan(pressure.failShare, pressure.seed);
  const rateGate = pressure.rate && new RateGate(pressure.rate, clock.now());
  const slots = pressure.capacity === undefined ? undefined : new Slots(pressure.capacity);

  /** Past the rate: 429 at once, before queueing. Then a slot, the latency, and maybe a 503, as a busy service answers. */
  async function serve(req: IncomingMessage, res: ServerResponse, method: string, path: string, number: number): Promise<void> {
    const retryIn = rateGate?.admit(clock.now());
    if (retryIn !== undefined) {
      sendJson(res, 429, 429, `too many requests (sandbox --rate): try again in ${retryIn}s`, { 'Retry-After': String(retryIn) });
      return;
    }
    const release = await slots?.acquire();
    try {
      const wait = latencyOf(pressure, number);
      if (wait > 0) await clock.sleep(wait);
      // The client left, or close() cut it, while it waited: nothing to answer.
      if (req.socket.destroyed) return;
      if (failPlan.fails(path)) {
        const retryAfter = String(pressure.retryAfterSeconds);
        sendJson(res, 503, 503, `the sandbox fails this request on purpose (--fail): try again in ${retryAfter}s`, {
          'Retry-After': retryAfter,
        });
      } else {
        route(req, res, method, path);
      }
    } finally {
      release?.();
    }
  }

  function deletePlant(res: ServerResponse, rawId: string): void {
    const id = parsePlantId(rawId);
    if (id === undefined) sendJson(res, 400, ERR_INVALID_ID, `invalid plant id '${rawId}'`);
    else if (!plants.delete(id)) sendJson(res, 400, ERR_NOT_FOUND, `plant ${id} does not exist`);
    else res.writeHead(204).end();
  }

  function route(req: IncomingMessage, res: ServerResponse, method: string, path: string): void {
    const match = PLANT_PATH.exec(path);
    if (!isAuthorized(req.headers.authorization, expectedToken)) {
      sendJson(res, 401, 401, 'missing or invalid bearer token', { 'WWW-Authenticate': 'Bearer realm="plantstore-sandbox"' });
    } else if (!match) {
      // Outside the API, not an Error object: the spec defines those for its operation only,
      // and plantstore counts a 404 as "no such plant" only when it carries one.
      const body = `no route for ${method} ${path}\n`;
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body) }).end(body);
    } else if (method !== 'DELETE') {
      sendJson(res, 405, 405, `method ${method} not allowed on ${path}`, { Allow: 'DELETE' });
    } else {
      deletePlant(res, decodeSegment(match[1] ?? ''));
    }
  }

  const server = createServer((req, res) => {
    const started = process.hrtime.bigint();
    const number = ++requestCount;
    // The spec says "no request body"; drain anything sent so keep-alive keeps working.
    req.resume();
    const method = req.method ?? 'GET';
    // Route and log the raw pathname (no URL normalisation, so '//x' or '/a/../b' aren't rewritten);
    // the query string is never needed and could carry secrets.
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      opts.log?.(`${method} ${path} ${res.statusCode} ${ms.toFixed(1)}ms`);
    });
    void serve(req, res, method, path, number);
  });

  await listen(server, opts.host, opts.port);
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : opts.port;

  return {
    url: formatUrl(opts.host, port),
    get plantCount() {
      return plants.count;
    },
    get requestCount() {
      return requestCount;
    },
    get queued() {
      return slots?.queued ?? 0;
    },
    close() {
      // Memoised so a second close() (e.g. test teardown after an explicit close) doesn't reject.
      closing ??= new Promise<void>((resolve, reject) => {
        const cut = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
        server.close((err) => {
          clearTimeout(cut);
          if (err) reject(err);
          else resolve();
        });
        // Don't wait for idle keep-alive sockets to time out (Node >= 19 close() does this too;
        // explicit so it doesn't hinge on that). The rest are cut after the grace above.
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
