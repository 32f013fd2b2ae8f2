// How much of a round trip is plantstore's own (`--concurrency auto`).
//
// The latency-based limit (latency-limit.ts) reads a round trip longer than the base latency as a
// queue at the server. Part of it is a queue in the client: an answer that has arrived waits in
// the socket until the event loop is free to read it. Answers come back in bursts, as their
// requests went out (a doubling sends half the limit at once; h2 frames arrive together), so each
// waits on average for half its burst to be read: with the loop busy a share ρ of the time, about
// ρ/2 of the round trip is the client's own. Measured over TLS on two cores against a server with
// room for 200 that queued none of them: rounds at 128 in flight read 1.6-3x the base latency with
// the loop busy 83-100% of the round; at 32, 1.15x with the loop busy 45%. The cuts and the ends
// of slow start they caused ran 10,000 ids at 0.86-0.89x of fixed 256.
//
// So a lasting rise, and the rise slow start extrapolates before it doubles, are judged with the
// client's share taken off (serverShare); and a round, or a span of rounds, spent with the loop
// busy (CLIENT_BUSY) says nothing of the server at all: the client sends no faster than it reads,
// so the server holds about (our throughput × its own latency) whatever our limit, and the limit
// may grow through such a round (a filled one, as always). A queue at the server shows once the
// client keeps up again, and a 503 cuts at any time.

/** Busy at least this share of a round: the client's share of its latency (up to 40%) hides any queue at the server. */
export const CLIENT_BUSY = 0.8;

/** A point in the event loop's history to measure its use from. */
export type LoopMark = unknown;

/** How busy the event loop has been; injected in tests, where time is a fake clock's. */
export interface LoopUse {
  mark(): LoopMark;
  /** The share of the time since `mark` the loop spent running code rather than waiting for I/O: 0 to 1. */
  busySince(mark: LoopMark): number;
}

/** This process's event loop (Node's event-loop utilization, on the global `performance`, as latency-limit.ts reads its clock). */
export const EVENT_LOOP: LoopUse = {
  mark: () => performance.eventLoopUtilization(),
  busySince: (mark) => performance.eventLoopUtilization(mark as ReturnType<typeof performance.eventLoopUtilization>).utilization,
};

/** A loop that is never busy: latency is all the server's (a limiter on a fake clock, by default). */
export const IDLE_LOOP: LoopUse = { mark: () => undefined, busySince: () => 0 };

/** Latency `ratio` times the base, less the client's own share with its loop `busy` that share of the time. */
export function serverShare(ratio: number, busy: number): number {
  return ratio * (1 - busy / 2);
}

/** When a span of rounds opened: on the limiter's clock, and in the event loop's use. */
export interface Opened {
  at: number;
  loop: LoopMark;
}

/**
 * Latency `ratio` times the base since `opened`, as of `now`: 0 until it has lasted `lasting` ms,
 * or with the client busy through it (it says nothing of the server), else with the client's own
 * share taken off both it and the base (read with the loop `baseLoopBusy` busy).
 */
export function lastedRatio(
  loop: LoopUse,
  opened: Opened,
  { now, lasting, ratio, baseLoopBusy }: { now: number; lasting: number; ratio: number; baseLoopBusy: number },
): number {
  const busy = loop.busySince(opened.loop);
  if (now - opened.at < lasting || busy >= CLIENT_BUSY) return 0;
  return serverShare(ratio, busy) / serverShare(1, baseLoopBusy);
}
