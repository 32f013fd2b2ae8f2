// The soak's stand-in for a real Plant Store (soak.ts): a truthful server with a capacity that
// moves and tokens that expire.
//   - It deletes a plant on the first authorized request for it (at arrival) and answers every
//     later one "no such plant" (a 404 Error object, or a 400 with code 1 for --missing-error 1).
//   - Its capacity cycles through `capacities` (64 → 16 → 128 in flight), one phase every
//     `phaseMs` from its start: at most that many requests are served at once, each for
//     `baseLatencyMs`, and the rest wait in arrival order, so latency grows with the queue. A
//     drop in capacity lets the requests being served finish; a rise serves the queue at once.
//   - It accepts only tokens from soak-token.mjs (signed with the shared secret) whose expiry
//     has not passed: an expired or unknown token is 401 with an Error object.
// It records what an operator would check: each id's authorized requests (how many times it was
// sent), which ids it deleted, and per 100 ms step the deletes, answers and requests in flight,
// so a run's pace and its climb after a restart are read from the server, not from the client.
// Times are epoch milliseconds (performance.timeOrigin + now()), comparable across processes.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface SoakPlan {
  /** Plants 1..ids exist; any other id never did. */
  ids: number;
  baseLatencyMs: number;
  /** Requests served at once in each phase, in order, cycling. */
  capacities: readonly number[];
  phaseMs: number;
  /** Shared with soak-token.mjs: a token is `soak-<expiresAtMs>-<signature>`. */
  tokenSecret: string;
  /** How "no such plant" is said: a 404 Error object, or a 400 Error object with code 1 (--missing-error 1). */
  missing: '404' | 'code1';
}

export const STEP_MS = 100;

export interface SoakStats {
  /** When the capacity cycle started (epoch ms): phase 0 runs from here. */
  startedAt: number;
  requests: number;
  /** Requests with a valid, unexpired token. */
  authorized: number;
  /** 401s: tokens past their expiry, and tokens that were never issued. */
  expired: number;
  forged: number;
  byStatus: Record<string, number>;
  /** Distinct plants deleted (each at most once, by construction: the first request deletes it). */
  deleted: number;
  /** Plants never deleted (their ids, the first 20). */
  notDeleted: number[];
  notDeletedCount: number;
  /** Authorized requests per existing id: how many ids got 0, 1, 2, 3 or more. */
  requestsPerId: [number, number, number, number];
  maxRequestsPerId: number;
  /** Ids sent more than twice (the first 20). */
  overTwice: number[];
  /** Per STEP_MS step from startedAt: plants deleted, authorized answers sent, the most requests in flight. */
  deletesByStep: number[];
  answersByStep: number[];
  inFlightByStep: number[];
  /**
   * Per step, the mean number of requests in service (time-weighted): by Little's law the answers
   * a step could give are that over the service time, so a slot left empty between an answer and
   * the client's next request shows here and not in the most in flight.
   */
  servingByStep: number[];
  meanQueueingMs: number;
  /**
   * Mean time from a request's service start to its answer being written (its timer's delay,
   * lateness included): what the server really took for a `baseLatencyMs` request.
   */
  meanServiceMs: number;
  connections: number;
  /** CPU time the server process used (user + system), ms; set by the process wrapper. */
  cpuMs: number;
}

export interface SoakServer {
  url: string;
  stats(): SoakStats;
  /** Calls `reached` once `deleted` reaches `count` (at once if it already has). */
  whenDeleted(count: number, reached: () => void): void;
  close(): Promise<void>;
}

export const epochNow = (): number => performance.timeOrigin + performance.now();

/** The capacity (requests served at once) at epoch time `t` for a cycle started at `startedAt`. */
export function capacityAt(plan: Pick<SoakPlan, 'capacities' | 'phaseMs'>, startedAt: number, t: number): number {
  const phase = Math.floor(Math.max(0, t - startedAt) / plan.phaseMs) % plan.capacities.length;
  return plan.capacities[phase] ?? 0;
}

/**
 * How many requests the server could have answered in [from, to): the integral of
 * min(capacity, cap) / base latency over the cycle. `cap` is a client's ceiling on requests in
 * flight (Infinity: the server's own capacity).
 */
export function servable(
  plan: Pick<SoakPlan, 'capacities' | 'phaseMs' | 'baseLatencyMs'>,
  startedAt: number,
  from: number,
  to: number,
  cap = Number.POSITIVE_INFINITY,
): number {
  let total = 0;
  let t = from;
  while (t < to) {
    const phaseEnd = startedAt + (Math.floor((t - startedAt) / plan.phaseMs) + 1) * plan.phaseMs;
    const end = Math.min(to, phaseEnd);
    total += (Math.min(capacityAt(plan, startedAt, t), cap) / plan.baseLatencyMs) * (end - t);
    t = end;
  }
  return total;
}

export function signToken(secret: string, expiresAtMs: number): string {
  const signature = createHmac('sha256', secret).update(String(expiresAtMs)).digest('hex').slice(0, 32);
  return `soak-${expiresAtMs}-${signature}`;
}

const TOKEN = /^Bearer soak-(\d+)-([0-9a-f]{32})$/;
const PLANT_PATH = /^\/plants\/([^/?#]+)$/;
const EXPIRED = JSON.stringify({ error: 401, message: 'token expired' });
const FORGED = JSON.stringify({ error: 401, message: 'unknown token' });

export async function startSoakServer(plan: SoakPlan): Promise<SoakServer> {
  const startedAt = epochNow();
  const requestsPerId = new Uint8Array(plan.ids + 1);
  const deletedIds = new Uint8Array(plan.ids + 1);
  let deleted = 0;
  const record = { requests: 0, authorized: 0, expired: 0, forged: 0, byStatus: {} as Record<string, number>, connections: 0 };
  const deletesByStep: number[] = [];
  const answersByStep: number[] = [];
  const inFlightByStep: number[] = [];
  let inFlight = 0;
  let serving = 0;
  /** Request-milliseconds in service per step, added up at each change of `serving`. */
  const servingMsByStep: number[] = [];
  let servingSince = startedAt;
  const setServing = (by: number): void => {
    const now = epochNow();
    // Split the span since the last change across the steps it covers.
    for (let t = servingSince; t < now; ) {
      const step = stepOf(t);
      const end = Math.min(now, startedAt + (step + 1) * STEP_MS);
      bump(servingMsByStep, step, serving * (end - t));
      t = end;
    }
    servingSince = now;
    serving += by;
  };
  let queueingMsTotal = 0;
  let serviceMsTotal = 0;
  let served = 0;
  const waiting: { arrivedAt: number; serve: () => void }[] = [];
  let waitingHead = 0;
  const thresholds: { count: number; reached: () => void }[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const validTokens = new Map<string, number>();
  const missingAnswer =
    plan.missing === '404'
      ? { status: 404, body: JSON.stringify({ error: 404, message: 'no such plant' }) }
      : { status: 400, body: JSON.stringify({ error: 1, message: 'no such plant' }) };

  const stepOf = (t: number): number => Math.floor((t - startedAt) / STEP_MS);
  const bump = (steps: number[], step: number, by = 1): void => {
    for (let i = steps.length; i <= step; i++) steps.push(0);
    steps[step] = (steps[step] ?? 0) + by;
  };

  const send = (res: http.ServerResponse, status: number, body?: string): void => {
    record.byStatus[status] = (record.byStatus[status] ?? 0) + 1;
    if (res.destroyed) return;
    if (body === undefined) res.writeHead(status).end();
    else res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }).end(body);
  };

  /** The token's expiry (epoch ms) when it is one soak-token.mjs issued, else undefined. */
  const expiryOf = (header: string | undefined): number | undefined => {
    if (header === undefined) return undefined;
    const known = validTokens.get(header);
    if (known !== undefined) return known;
    const match = TOKEN.exec(header);
    if (!match) return undefined;
    const expiresAt = Number(match[1]);
    if (`Bearer ${signToken(plan.tokenSecret, expiresAt)}` !== header) return undefined;
    validTokens.set(header, expiresAt);
    return expiresAt;
  };

  const checkThresholds = (): void => {
    for (let i = thresholds.length - 1; i >= 0; i--) {
      const threshold = thresholds[i];
      if (threshold && deleted >= threshold.count) {
        thresholds.splice(i, 1);
        threshold.reached();
      }
    }
  };

  const serveNext = (): void => {
    const now = epochNow();
    while (waitingHead < waiting.length && serving < capacityAt(plan, startedAt, now)) {
      const next = waiting[waitingHead++];
      if (!next) break;
      queueingMsTotal += now - next.arrivedAt;
      next.serve();
    }
    if (waitingHead > 4096 && waitingHead * 2 > waiting.length) {
      waiting.splice(0, waitingHead);
      waitingHead = 0;
    }
  };

  const handle = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const now = epochNow();
    record.requests++;
    req.resume();
    const id = PLANT_PATH.exec(req.url ?? '')?.[1];
    if (req.method !== 'DELETE' || id === undefined) {
      send(res, 405);
      return;
    }
    const expiresAt = expiryOf(req.headers.authorization);
    if (expiresAt === undefined) {
      record.forged++;
      send(res, 401, FORGED);
      return;
    }
    if (expiresAt <= now) {
      record.expired++;
      send(res, 401, EXPIRED);
      return;
    }
    record.authorized++;
    const plant = /^[1-9]\d*$/.test(id) ? Number(id) : 0;
    const exists = plant >= 1 && plant <= plan.ids;
    let status = missingAnswer.status;
    let body: string | undefined = missingAnswer.body;
    if (exists) {
      requestsPerId[plant] = Math.min(255, (requestsPerId[plant] ?? 0) + 1);
      if (!deletedIds[plant]) {
        deletedIds[plant] = 1;
        deleted++;
        bump(deletesByStep, stepOf(now));
        status = 204;
        body = undefined;
        checkThresholds();
      }
    }
    inFlight++;
    const step = stepOf(now);
    for (let i = inFlightByStep.length; i <= step; i++) inFlightByStep.push(0);
    inFlightByStep[step] = Math.max(inFlightByStep[step] ?? 0, inFlight);
    const serve = (): void => {
      setServing(1);
      const servedFrom = epochNow();
      const timer = setTimeout(() => {
        timers.delete(timer);
        setServing(-1);
        inFlight--;
        served++;
        const answeredAt = epochNow();
        serviceMsTotal += answeredAt - servedFrom;
        bump(answersByStep, stepOf(answeredAt));
        send(res, status, body);
        serveNext();
      }, plan.baseLatencyMs);
      timers.add(timer);
    };
    if (serving < capacityAt(plan, startedAt, now) && waitingHead === waiting.length) serve();
    else waiting.push({ arrivedAt: now, serve });
  };

  // A rise in capacity serves the queue at once, not at the next answer.
  const phaseTimer = setInterval(serveNext, plan.phaseMs);
  const sockets = new Set<Socket>();
  const server = http.createServer({ keepAliveTimeout: 30_000 }, handle);
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
    url: `http://127.0.0.1:${port}`,
    whenDeleted(count, reached) {
      thresholds.push({ count, reached });
      checkThresholds();
    },
    stats() {
      const perId: [number, number, number, number] = [0, 0, 0, 0];
      const notDeleted: number[] = [];
      const overTwice: number[] = [];
      let maxRequestsPerId = 0;
      for (let plant = 1; plant <= plan.ids; plant++) {
        const sent = requestsPerId[plant] ?? 0;
        perId[Math.min(3, sent) as 0 | 1 | 2 | 3] += 1;
        maxRequestsPerId = Math.max(maxRequestsPerId, sent);
        if (sent > 2 && overTwice.length < 20) overTwice.push(plant);
        if (!deletedIds[plant] && notDeleted.length < 20) notDeleted.push(plant);
      }
      return {
        startedAt,
        ...record,
        byStatus: { ...record.byStatus },
        deleted,
        notDeleted,
        notDeletedCount: plan.ids - deleted,
        requestsPerId: perId,
        maxRequestsPerId,
        overTwice,
        deletesByStep: [...deletesByStep],
        answersByStep: [...answersByStep],
        inFlightByStep: [...inFlightByStep],
        servingByStep: servingMsByStep.map((ms) => ms / STEP_MS),
        meanQueueingMs: served === 0 ? 0 : queueingMsTotal / served,
        meanServiceMs: served === 0 ? 0 : serviceMsTotal / served,
        cpuMs: 0,
      };
    },
    close: () =>
      new Promise((resolve) => {
        clearInterval(phaseTimer);
        for (const timer of timers) clearTimeout(timer);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
