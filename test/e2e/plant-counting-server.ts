// A loopback Plant Store for the --journal tests: the sandbox's behaviour (plants 1..n, 204 for
// one that is there, 400 with the Error object {"error":1} for one that is not), counting every
// DELETE per id as it arrives, before it is answered. The sandbox logs a request when its answer
// is written, so one cut off by a kill -9 may delete a plant and leave no line; counted here, a
// request a killed client never saw answered still counts.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const NO_SUCH_PLANT = 1;

export interface PlantCountingServer {
  url: string;
  /** DELETEs received for `id` (its digits), answered or not. */
  received(id: string): number;
  /** Every DELETE received with the token. */
  total(): number;
  /** Ids the server deleted: each answered 204 exactly once, on its first DELETE. */
  readonly deleted: ReadonlySet<string>;
  /** Ids answered 400 error 1 ("no such plant") at least once. */
  readonly refused: ReadonlySet<string>;
  /** Resolves once `total()` reaches `count`. */
  receivedAtLeast(count: number): Promise<void>;
  /** Resolves once every request held so far has been closed by the client (an aborted request). */
  heldClosed(): Promise<void>;
  close(): Promise<void>;
}

export interface PlantServerOptions {
  /** Plants 1..plants exist at the start. */
  plants: number;
  token: string;
  /** Requests for which this says true are never answered: held until the client gives up or the server closes. */
  hold?: (id: string) => boolean;
}

export async function startPlantCountingServer(options: PlantServerOptions): Promise<PlantCountingServer> {
  const counts = new Map<string, number>();
  const deleted = new Set<string>();
  const refused = new Set<string>();
  const held = new Set<http.ServerResponse>();
  let total = 0;
  let waiters: Array<{ count: number; resolve(): void }> = [];
  const heldWaiters: Array<() => void> = [];

  const answerNoSuchPlant = (res: http.ServerResponse, id: string): void => {
    const body = JSON.stringify({ error: NO_SUCH_PLANT, message: `plant ${id} does not exist` });
    res.writeHead(400, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }).end(body);
  };

  const server = http.createServer((req, res) => {
    req.resume();
    const id = /^\/plants\/(-?[0-9]+)$/.exec(req.url ?? '')?.[1];
    if (req.headers.authorization !== `Bearer ${options.token}`) {
      res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"error":401,"message":"missing or invalid bearer token"}');
      return;
    }
    if (req.method !== 'DELETE' || id === undefined) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('no route\n');
      return;
    }
    total++;
    counts.set(id, (counts.get(id) ?? 0) + 1);
    for (const waiter of waiters.filter((w) => total >= w.count)) waiter.resolve();
    waiters = waiters.filter((w) => total < w.count);
    if (options.hold?.(id)) {
      held.add(res);
      res.on('close', () => {
        held.delete(res);
        if (held.size === 0) for (const resolve of heldWaiters.splice(0)) resolve();
      });
      return;
    }
    const n = Number(id);
    if (Number.isSafeInteger(n) && n >= 1 && n <= options.plants && !deleted.has(id)) {
      deleted.add(id);
      res.writeHead(204).end();
    } else {
      refused.add(id);
      answerNoSuchPlant(res, id);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received: (id) => counts.get(id) ?? 0,
    total: () => total,
    deleted,
    refused,
    receivedAtLeast: (count) => new Promise((resolve) => (total >= count ? resolve() : waiters.push({ count, resolve }))),
    heldClosed: () => new Promise((resolve) => (held.size === 0 ? resolve() : heldWaiters.push(resolve))),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
