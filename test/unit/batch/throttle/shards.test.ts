// Shards of one job on one small server (issue 41 item 2), in virtual time: four throttles, each a
// process's, started a few milliseconds apart as xargs -P or GNU parallel start them, share one
// server that serves 16 at once (50 ms) and queues the rest. Each must not read the queue the
// others build as the server's own latency: together they keep the queue no longer than the
// server's latency, as one process alone does, and never more than 64 at the server after the
// first second. Before shards measured the base latency together (src/batch/adaptive/shard-sync.ts),
// the shard that measured last grew to 30-40 in flight while the others sat at 2-6.
import { describe, expect, it } from 'vitest';
import { runOrdered } from '../../../../src/batch/ordered-pool.js';
import { Throttle } from '../../../../src/batch/throttle/throttle.js';
import { feedbackFor } from '../../../../src/http/gate.js';
import { queueingServer, VirtualClock } from './virtual-batch.js';

const SLOTS = 16;
const LATENCY_MS = 50;

interface Shared {
  /** Mean time a request waited for a slot at the server. */
  meanQueueingMs: number;
  /** Most requests at the server (all shards) from 1 s on. */
  mostAfterFirstSecond: number;
  deleted: number;
}

/** `count` shards (or one process, count 1) through one server; shard i starts i × `staggerMs` after the first. */
async function shardsTogether(count: number, ids: number, staggerMs: number): Promise<Shared> {
  const clock = new VirtualClock();
  const queueing: number[] = [];
  const server = queueingServer(SLOTS, LATENCY_MS, { queueing });
  let atServer = 0;
  let mostAfterFirstSecond = 0;
  let deleted = 0;
  const signal = new AbortController().signal;
  const runShard = async (index: number): Promise<void> => {
    await clock.sleep(index * staggerMs);
    const throttle = new Throttle({
      ceiling: { auto: 64 },
      ...(count > 1 ? { shards: count } : {}),
      now: clock.read,
      setTimer: clock.setTimer,
    });
    await runOrdered({
      items: Array.from({ length: ids / count }, (_, i) => i),
      hold: (resume) => throttle.hold(resume),
      run: async () => {
        const permit = await throttle.acquire('first', signal);
        if (permit === undefined) return 'not sent';
        atServer += 1;
        if (clock.now >= 1000) mostAfterFirstSecond = Math.max(mostAfterFirstSecond, atServer);
        const answer = await server(clock);
        atServer -= 1;
        permit.release(feedbackFor(answer.status));
        deleted += 1;
        return 'deleted';
      },
      emit() {},
      notStarted: () => 'not started',
    });
    throttle.close();
  };
  let done = false;
  const all = Promise.all(Array.from({ length: count }, (_, index) => runShard(index))).then(() => {
    done = true;
  });
  while (!done) if (!(await clock.step())) break;
  await all;
  return { meanQueueingMs: queueing.reduce((a, b) => a + b, 0) / queueing.length, mostAfterFirstSecond, deleted };
}

describe('4 shards, each at the default concurrency, against a server of capacity 16 (50 ms)', () => {
  // Before: 81, 89 and 78 ms of queueing, up to 87 at the server, as the last shard read the
  // others' queue as the base latency (started 10-80 ms apart, all four measured before any grew).
  it.each([150, 250, 400])(
    'started %i ms apart: mean queueing at most the server’s latency, at most 64 at it after 1 s',
    async (staggerMs) => {
      const four = await shardsTogether(4, 3200, staggerMs);
      expect(four.deleted).toBe(3200);
      expect(four.meanQueueingMs).toBeLessThanOrEqual(LATENCY_MS);
      expect(four.mostAfterFirstSecond).toBeLessThanOrEqual(64);
    },
  );

  it('one process alone keeps the queue short too (the reference the shards are held to)', async () => {
    const one = await shardsTogether(1, 3200, 0);
    expect(one.deleted).toBe(3200);
    expect(one.meanQueueingMs).toBeLessThanOrEqual(LATENCY_MS);
  });
});
