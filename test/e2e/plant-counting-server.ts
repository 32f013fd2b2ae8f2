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
  /** Requests held right now (by `hold` or by a 'hold' fault): their answers have not been sent. */
  heldNow(): number;
  /** Resolves once `heldNow()` reaches `count`. */
  holdingAtLeast(count: number): Promise<void>;
  /** Ids whose 204 went out while `run` was the current run (see `run`). */
  deletedIn(run: number): ReadonlySet<string>;
  /** Ids that got a complete "no such plant" answer at least once (not held, reset or turned into a 502). */
  readonly toldMissing: ReadonlySet<string>;
  /** The run the test says is under way: 204s are recorded under it. */
  run: number;
  close(): Promise<void>;
}

/**
 * What goes wrong with an answer after the server has done what was asked (deleted the plant,
 * or found none): held unanswered, the connection reset, or a gateway's 502 in its place.
 */
export type AnswerFault = 'hold' | 'reset' | 'bad-gateway';

export interface PlantServerOptions {
  /** Plants 1..plants exist at the start. */
  plants: number;
  token: string;
  /** Requests for which this says true are never answered: held until the client gives up or the server closes. */
  hold?: (id: string) => boolean;
  /** Asked once the request was carried out: whether its answer is lost (see AnswerFault). */
  fault?: (id: string) => AnswerFault | undefined;
}

export async function startPlantCountingServer(options: PlantServerOptions): Promise<PlantCountingServer> {
  const counts = new Map<string, number>();
  const deleted = new Set<string>();
  const refused = new Set<string>();
  const held = new Set<http.ServerResponse>();
  const deletedByRun = new Map<number, Set<string>>();
  const toldMissing = new Set<string>();
  let total = 0;
  let waiters: Array<{ count: number; resolve(): void }> = [];
  const heldWaiters: Array<() => void> = [];
  let holdingWaiters: Array<{ count: number; resolve(): void }> = [];
  const state = { run: 0 };

  const holdUnanswered = (res: http.ServerResponse): void => {
    held.add(res);
    for (const waiter of holdingWaiters.filter((w) => held.size >= w.count)) waiter.resolve();
    holdingWaiters = holdingWaiters.filter((w) => held.size < w.count);
    res.on('close', () => {
      held.delete(res);
      if (held.size === 0) for (const resolve of heldWaiters.splice(0)) resolve();
    });
  };

  /** Whether the answer is lost to `fault`; true when it was. */
  const lost = (req: http.IncomingMessage, res: http.ServerResponse, id: string): boolean => {
    const fault = options.fault?.(id);
    if (fault === undefined) return false;
    if (fault === 'hold') holdUnanswered(res);
    else if (fault === 'reset') req.socket.resetAndDestroy();
    else {
      const page = '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>';
      res.writeHead(502, { 'Content-Type': 'text/html', 'Content-Length': Buffer.byteLength(page) }).end(page);
    }
    return true;
  };

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
      holdUnanswered(res);
      return;
    }
    const n = Number(id);
    if (Number.isSafeInteger(n) && n >= 1 && n <= options.plants && !deleted.has(id)) {
      deleted.add(id);
      if (lost(req, res, id)) return;
      const ofRun = deletedByRun.get(state.run) ?? new Set<string>();
      deletedByRun.set(state.run, ofRun);
      ofRun.add(id);
      res.writeHead(204).end();
    } else {
      refused.add(id);
      if (lost(req, res, id)) return;
      toldMissing.add(id);
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
    heldNow: () => held.size,
    holdingAtLeast: (count) => new Promise((resolve) => (held.size >= count ? resolve() : holdingWaiters.push({ count, resolve }))),
    deletedIn: (run) => deletedByRun.get(run) ?? new Set(),
    toldMissing,
    get run() {
      return state.run;
    },
    set run(run: number) {
      state.run = run;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
