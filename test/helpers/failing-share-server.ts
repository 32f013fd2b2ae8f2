// A service behind a gateway with one upstream of several dead (issue 40, item 6): a loopback
// server that answers a seeded share of the requests it gets with nginx's 502 page and serves the
// rest as the Plant Store API does (204, then "no such plant" for an id already deleted), each
// answer after a seeded latency, as a real server's. It records every request, so a test asserts
// on what the run sent and what the service deleted, never on how long the run took.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { idOf } from './batch-output.js';
import { BAD_GATEWAY_PAGE } from './gateway-proxy.js';
import { seeded } from './seeded.js';

export interface FailingShareServer {
  url: string;
  /** Requests received, and how many of them were answered 502. */
  readonly received: number;
  readonly failed: number;
  /** Ids the service deleted. */
  readonly deleted: ReadonlySet<string>;
  close(): Promise<void>;
}

export interface FailingShareOptions {
  /** The share of requests answered 502, 0 to 1, drawn from `seed`. */
  share: number;
  seed?: number;
  /** Each answer after this many milliseconds, ± a fifth (seeded). */
  latencyMs?: number;
}

export async function startFailingShareServer(options: FailingShareOptions): Promise<FailingShareServer> {
  const random = seeded(options.seed ?? 40);
  const latencyMs = options.latencyMs ?? 10;
  const deleted = new Set<string>();
  let received = 0;
  let failed = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    received += 1;
    const fails = random() < options.share;
    const delay = latencyMs * (0.8 + 0.4 * random());
    setTimeout(() => {
      if (fails) {
        failed += 1;
        res.writeHead(502, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(BAD_GATEWAY_PAGE) }).end(BAD_GATEWAY_PAGE);
        return;
      }
      const id = idOf(req.url ?? '');
      if (deleted.has(id)) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":404,"message":"no such plant"}');
        return;
      }
      deleted.add(id);
      res.writeHead(204).end();
    }, delay);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get received() {
      return received;
    },
    get failed() {
      return failed;
    },
    deleted,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
