// The transport's side of issue 40's items 6 and 8: a failing answer (502, 504, a failed
// connection) retried from the run's budget costs the id a fifth of a retry and waits only a
// moment; a gate that stops ends a retry's wait at once. A scripted dispatcher (no sockets) and a
// stand-in gate; the wait is watched under fake timers, so nothing here waits for the clock.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AttemptGate, Feedback } from '../../src/http/gate.js';
import { ERROR_BODY_BYTES, type Outcome, type TransportEvent } from '../../src/http/outcome.js';
import { SHARED_BASE_DELAY_MS, SHARED_MAX_DELAY_MS } from '../../src/http/retry.js';
import { createTransport, type TransportOptions } from '../../src/http/transport.js';
import { type Step, scriptedDispatcher } from '../helpers/scripted-dispatcher.js';

/** A gate that admits everything, whose run is served (admitting) and whose budget pays `spare` retries. */
function budgetGate(spare: number) {
  const stopping = new AbortController();
  const feedback: Feedback[] = [];
  let asked = 0;
  const gate: AttemptGate = {
    acquire: async () => (stopping.signal.aborted ? undefined : { startedAt: 0, release: (given: Feedback) => void feedback.push(given) }),
    gaveUp: () => (stopping.signal.aborted ? 'the service failed every request for 2 s' : undefined),
    admitting: () => true,
    outage: () => false,
    spareRetry: () => {
      asked += 1;
      return asked <= spare;
    },
    stopped: stopping.signal,
  };
  return {
    gate,
    feedback,
    stop: () => stopping.abort(),
    get asked() {
      return asked;
    },
  };
}

function transportFor(steps: Step[], options: Partial<TransportOptions>) {
  const script = scriptedDispatcher(steps);
  const events: TransportEvent[] = [];
  const transport = createTransport({
    endpoint: { baseUrl: 'https://api.example.com', token: 'budget-token-0123456789abcdef' },
    userAgent: 'test',
    timeoutMs: 50,
    retries: 1,
    maxRetryWaitMs: 30_000,
    env: {},
    dispatcher: script.dispatcher,
    random: () => 0.999,
    onEvent: (event) => events.push(event),
    ...options,
  });
  const send = () =>
    transport.send(
      { method: 'DELETE', successBody: 'ignored', bodyLimitBytes: ERROR_BODY_BYTES, path: '/plants/42', label: '42' },
      new AbortController().signal,
    );
  return { script, events, transport, send };
}

const waits = (events: TransportEvent[]) => events.flatMap((event) => (event.kind === 'retrying' ? [event.delayMs] : []));

afterEach(() => {
  vi.useRealTimers();
});

describe('a failing answer retried from the run budget', () => {
  it('costs a fifth of a retry: with --retries 1, a 502 five times then a 204 is deleted', async () => {
    const budget = budgetGate(Number.POSITIVE_INFINITY);
    const { send, script, transport, events } = transportFor(
      [{ answer: 502 }, { answer: 502 }, { answer: 502 }, { answer: 502 }, { answer: 502 }, { answer: 204 }],
      {
        gate: budget.gate,
        random: () => 0,
      },
    );
    const outcome = await send();
    await transport.close();
    expect(outcome.kind).toBe('ok');
    expect(script.requests).toHaveLength(6);
    expect(waits(events)).toEqual([0, 0, 0, 0, 0]);
  });

  it('with the budget empty, a failure costs a whole retry again, as it always did', async () => {
    const budget = budgetGate(0);
    const { send, script, transport } = transportFor([{ answer: 502 }], { gate: budget.gate, random: () => 0 });
    const outcome = await send();
    await transport.close();
    expect(outcome).toMatchObject({ kind: 'failed', attempts: 2 });
    expect(script.requests).toHaveLength(2);
  });

  it('is asked only for a retry that would follow: --retries 0 spends nothing from it', async () => {
    const budget = budgetGate(Number.POSITIVE_INFINITY);
    const { send, script, transport } = transportFor([{ answer: 502 }], { gate: budget.gate, retries: 0 });
    await send();
    await transport.close();
    expect(script.requests).toHaveLength(1);
    expect(budget.asked).toBe(0);
  });

  it('waits a moment, not a backoff: 25 ms, doubling, at most 100 ms (a 503 refusal backs off as before)', async () => {
    const budget = budgetGate(Number.POSITIVE_INFINITY);
    const { send, transport, events } = transportFor(
      [{ error: 'ECONNREFUSED' }, { error: 'ECONNREFUSED' }, { error: 'ECONNREFUSED' }, { error: 'ECONNREFUSED' }, { answer: 204 }],
      {
        gate: budget.gate,
      },
    );
    expect((await send()).kind).toBe('ok');
    await transport.close();
    const shared = waits(events);
    expect(shared).toHaveLength(4);
    shared.forEach((delay, i) => {
      expect(delay).toBeLessThan(Math.min(SHARED_MAX_DELAY_MS, SHARED_BASE_DELAY_MS * 2 ** i));
    });
    expect(Math.max(...shared)).toBeGreaterThanOrEqual(SHARED_MAX_DELAY_MS - 1);
  });
});

describe('a gate that stops while a retry waits', () => {
  it('ends the wait at once: the id is reported with its last answer, stopped, and nothing more is sent', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const budget = budgetGate(0);
    const { send, script, transport, events } = transportFor([{ answer: 503, headers: { 'retry-after': '20' } }], {
      gate: budget.gate,
    });
    let outcome: Outcome | undefined;
    void send().then((done) => {
      outcome = done;
    });
    const ticks = async () => {
      for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    await ticks();
    // Waiting out the Retry-After: 20 s that no clock here will run.
    expect(waits(events)).toEqual([20_000]);
    expect(outcome).toBeUndefined();
    budget.stop();
    await ticks();
    expect(outcome).toMatchObject({
      kind: 'failed',
      attempts: 1,
      last: { status: 503 },
      stopped: { kind: 'gave-up', reason: 'the service failed every request for 2 s' },
    });
    expect(script.requests).toHaveLength(1);
    await transport.close();
  });
});
