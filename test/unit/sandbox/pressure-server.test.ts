// A sandbox under pressure answers as a busy service does, in process on loopback, with its
// clock passed in: the time the rate reads, and each latency wait, which the test resolves.
import { afterEach, describe, expect, it } from 'vitest';
import { NO_PRESSURE, type Pressure } from '../../../src/sandbox/pressure.js';
import { type Sandbox, type SandboxClock, startSandbox } from '../../../src/sandbox/server.js';

const AUTH = { Authorization: 'Bearer sandbox-token' };
let sandboxes: Sandbox[] = [];

afterEach(async () => {
  await Promise.all(sandboxes.map((sb) => sb.close()));
  sandboxes = [];
});

/** A clock that stands still until told, and records each latency asked for; release() ends the waits in order. */
function heldClock() {
  let time = 0;
  const waits: Array<{ ms: number; end: () => void }> = [];
  const clock: SandboxClock = {
    now: () => time,
    sleep: (ms) => new Promise<void>((resolve) => waits.push({ ms, end: resolve })),
  };
  return {
    clock,
    waits,
    advance: (ms: number) => (time += ms),
    release: (count: number) => {
      for (const wait of waits.splice(0, count)) wait.end();
    },
  };
}

async function start(pressure: Partial<Pressure>, clock?: SandboxClock, log?: (line: string) => void): Promise<Sandbox> {
  const sb = await startSandbox({
    host: '127.0.0.1',
    port: 0,
    token: 'sandbox-token',
    plants: 1000,
    pressure: { ...NO_PRESSURE, ...pressure },
    ...(clock ? { clock } : {}),
    ...(log ? { log } : {}),
  });
  sandboxes.push(sb);
  return sb;
}

async function remove(sb: Sandbox, id: number) {
  const res = await fetch(`${sb.url}/plants/${id}`, { method: 'DELETE', headers: AUTH });
  const text = await res.text();
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: text ? (JSON.parse(text) as unknown) : undefined };
}

/** Waits until `check` holds, turn by turn of the event loop (no timers): the sandbox got the requests. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setImmediate(resolve));
}

describe('--fail', () => {
  it('answers the share with 503, Retry-After and an Error object, and leaves the plant there for the retry', async () => {
    const sb = await start({ failShare: 1, retryAfterSeconds: 3 });
    expect(await remove(sb, 1)).toEqual({
      status: 503,
      retryAfter: '3',
      body: { error: 503, message: 'the sandbox fails this request on purpose (--fail): try again in 3s' },
    });
    expect(sb.plantCount).toBe(1000);
  });

  it('fails the same requests for the same seed, and a retry of a failed id can pass', async () => {
    const statuses = async (seed: number) => {
      const sb = await start({ failShare: 0.3, seed });
      const first = [];
      for (let id = 1; id <= 40; id++) first.push((await remove(sb, id)).status);
      return first;
    };
    const one = await statuses(1);
    expect(await statuses(1)).toEqual(one);
    expect(one.filter((status) => status === 503).length).toBeGreaterThan(3);
    expect(one.filter((status) => status === 204).length).toBeGreaterThan(20);
    expect(await statuses(2)).not.toEqual(one);
  });
});

describe('--rate', () => {
  it('answers 429 with Retry-After past the rate, before any latency, and lets requests in as the time passes', async () => {
    const held = heldClock();
    const sb = await start({ rate: { count: 2, periodMs: 1000 } }, held.clock);
    expect((await remove(sb, 1)).status).toBe(204);
    expect((await remove(sb, 2)).status).toBe(204);
    expect(await remove(sb, 3)).toEqual({
      status: 429,
      retryAfter: '1',
      body: { error: 429, message: 'too many requests (sandbox --rate): try again in 1s' },
    });
    held.advance(500);
    expect((await remove(sb, 3)).status).toBe(204);
    expect((await remove(sb, 4)).status).toBe(429);
  });
});

describe('--latency and --capacity', () => {
  it('waits each request its latency, spread by the jitter and the seed', async () => {
    const held = heldClock();
    const sb = await start({ latencyMs: 50, jitterMs: 20, seed: 4 }, held.clock);
    const answers = Promise.all([1, 2, 3, 4].map((id) => remove(sb, id)));
    await until(() => held.waits.length === 4);
    const asked = held.waits.map((wait) => wait.ms);
    for (const ms of asked) expect(ms >= 30 && ms <= 70).toBe(true);
    expect(new Set(asked).size).toBeGreaterThan(1);
    held.release(4);
    expect((await answers).map((answer) => answer.status)).toEqual([204, 204, 204, 204]);
  });

  it('serves only capacity at once: the rest queue, and go in as earlier ones are answered', async () => {
    const held = heldClock();
    const sb = await start({ latencyMs: 50, capacity: 2 }, held.clock);
    const answers = Promise.all([1, 2, 3, 4, 5].map((id) => remove(sb, id)));
    await until(() => sb.requestCount === 5 && held.waits.length === 2);
    expect(sb.queued).toBe(3);
    held.release(1);
    await until(() => held.waits.length === 2);
    expect(sb.queued).toBe(2);
    held.release(2);
    await until(() => held.waits.length === 2);
    expect(sb.queued).toBe(0);
    held.release(2);
    expect((await answers).map((answer) => answer.status)).toEqual([204, 204, 204, 204, 204]);
  });

  it('logs each request once it is answered, with the time it waited', async () => {
    const lines: string[] = [];
    const sb = await start({ latencyMs: 5 }, undefined, (line) => lines.push(line));
    expect((await remove(sb, 9)).status).toBe(204);
    await until(() => lines.length === 1);
    expect(lines[0]).toMatch(/^DELETE \/plants\/9 204 \d+\.\dms$/);
    expect(Number(/ (\d+\.\d)ms$/.exec(lines[0] ?? '')?.[1])).toBeGreaterThanOrEqual(4);
  });
});

describe('close()', () => {
  it('stops a sandbox whose requests are queued or waiting out a latency', async () => {
    const held = heldClock();
    const sb = await start({ latencyMs: 1000, capacity: 1 }, held.clock);
    const answers = [1, 2, 3].map((id) => remove(sb, id).catch(() => 'cut'));
    await until(() => sb.requestCount === 3);
    await sb.close();
    expect(await Promise.all(answers)).toEqual(['cut', 'cut', 'cut']);
  });
});
