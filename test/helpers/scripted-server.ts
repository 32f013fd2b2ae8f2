import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

export interface ScriptedServer {
  url: string;
  requests: SeenRequest[];
  /** Resolves when the next request arrives: lets a test act at the right moment without sleeping. */
  nextRequest(): Promise<SeenRequest>;
  close(): Promise<void>;
}

/** A real HTTP server on loopback whose answers each test writes itself. */
export async function startScriptedServer(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<ScriptedServer> {
  const requests: SeenRequest[] = [];
  const waiting: Array<(request: SeenRequest) => void> = [];
  const server = http.createServer((req, res) => {
    const seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers };
    requests.push(seen);
    for (const resolve of waiting.splice(0)) resolve(seen);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    nextRequest: () => new Promise((resolve) => waiting.push(resolve)),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A loopback port with nothing listening: connections to it are refused. */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Takes `token` for its first `uses` requests, then answers every request 401 (the token has
 * expired): a run with a token command renews, and a test can hold the renewal.
 */
export function startExpiringTokenServer(token: string, uses: number): Promise<ScriptedServer> {
  let taken = 0;
  return startScriptedServer((req, res) => {
    if (req.headers.authorization === `Bearer ${token}` && taken < uses) {
      taken++;
      res.writeHead(204).end();
    } else res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":401,"message":"token expired"}');
  });
}

/**
 * Counts the answers a test server gives (its handler calls `answer()` after each), and lets a
 * test wait until at least `count` were given: a point in a run, reached without sleeping.
 */
export function answerCounter(): { readonly answered: number; answer(): void; atLeast(count: number): Promise<void> } {
  let answered = 0;
  let waiters: Array<{ count: number; resolve(): void }> = [];
  return {
    get answered() {
      return answered;
    },
    answer() {
      answered += 1;
      for (const waiter of waiters.filter((w) => answered >= w.count)) waiter.resolve();
      waiters = waiters.filter((w) => answered < w.count);
    },
    atLeast: (count) => new Promise<void>((resolve) => (answered >= count ? resolve() : waiters.push({ count, resolve }))),
  };
}
