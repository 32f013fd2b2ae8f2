// The handler one attempt dispatches with, driven as undici drives it: a controller per start,
// then a head, body chunks and an end or an error.
import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { Exchange } from '../../../src/http/exchange.js';

/** undici's controller, as far as the exchange uses it: abort() is recorded, once. */
function controller(): Dispatcher.DispatchController & { abortedWith: Error[] } {
  const abortedWith: Error[] = [];
  return {
    abortedWith,
    get aborted() {
      return abortedWith.length > 0;
    },
    paused: false,
    reason: null,
    abort(reason: Error) {
      if (abortedWith.length === 0) abortedWith.push(reason);
    },
    pause() {},
    resume() {},
  };
}

const settled = async (exchange: Exchange): Promise<unknown> => exchange.ended;

/** An exchange that undici has started (once), with the controller it was given. */
function started(
  limit: number,
  hooks?: ConstructorParameters<typeof Exchange>[1],
): { exchange: Exchange; c: ReturnType<typeof controller> } {
  const exchange = new Exchange(limit, hooks);
  const c = controller();
  exchange.onRequestStart(c);
  return { exchange, c };
}

describe('Exchange', () => {
  it('keeps the head and the whole body of a complete answer', async () => {
    const { exchange, c } = started(1024);
    exchange.onResponseStart(c, 400, { 'content-type': 'application/json' });
    exchange.onResponseData(c, Buffer.from('{"error":7,'));
    exchange.onResponseData(c, Buffer.from('"message":"no"}'));
    exchange.onResponseEnd();
    const ended = await exchange.ended;
    expect(ended.head).toEqual({ status: 400, headers: { 'content-type': 'application/json' } });
    expect(ended.body.toString()).toBe('{"error":7,"message":"no"}');
    expect(ended.error).toBeUndefined();
    expect(exchange.sent).toBe(true);
  });

  it('reads no more than the limit, then drops the connection once undici is done with the chunk', async () => {
    const { exchange, c } = started(10);
    exchange.onResponseStart(c, 500, {});
    exchange.onResponseData(c, Buffer.from('0123456'));
    exchange.onResponseData(c, Buffer.from('789abcdef'));
    // Not from inside undici's callback: undici would go on to end the answer it aborted.
    expect(c.aborted).toBe(false);
    const ended = await exchange.ended;
    expect(ended.body.toString()).toBe('0123456789');
    expect(ended.error).toBeUndefined();
    await Promise.resolve();
    expect(c.aborted).toBe(true);
  });

  it('says when a body went on past the limit, and not when it ended at exactly the limit', async () => {
    const exact = started(10);
    exact.exchange.onResponseStart(exact.c, 200, {});
    exact.exchange.onResponseData(exact.c, Buffer.from('0123456789'));
    exact.exchange.onResponseEnd();
    const whole = await exact.exchange.ended;
    expect([whole.body.toString(), whole.overLimit]).toEqual(['0123456789', undefined]);
    const over = started(10);
    over.exchange.onResponseStart(over.c, 200, {});
    over.exchange.onResponseData(over.c, Buffer.from('0123456789'));
    over.exchange.onResponseData(over.c, Buffer.from('a'));
    const cut = await over.exchange.ended;
    expect([cut.body.toString(), cut.overLimit, cut.error]).toEqual(['0123456789', true, undefined]);
  });

  it('an error after the head keeps the head and what came of the body', async () => {
    const { exchange, c } = started(1024);
    exchange.onResponseStart(c, 503, { 'retry-after': '5' });
    exchange.onResponseData(c, Buffer.from('part'));
    const reset = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    exchange.onResponseError(c, reset);
    const ended = await exchange.ended;
    expect([ended.head?.status, ended.body.toString(), ended.error]).toEqual([503, 'part', reset]);
  });

  it('aborted while undici still holds it queued: ends at once, unsent, and is dropped when undici starts it', async () => {
    const exchange = new Exchange(1024);
    exchange.abort('SIGINT');
    expect(await settled(exchange)).toEqual({ body: Buffer.alloc(0), error: 'SIGINT' });
    const c = controller();
    exchange.onRequestStart(c);
    expect(c.aborted).toBe(true);
    expect(exchange.sent).toBe(false);
  });

  it('aborted once sent: ends with the reason, and aborts the request where undici has it; what undici says after is ignored', async () => {
    const { exchange, c } = started(1024);
    exchange.abort('timeout');
    expect(c.aborted).toBe(true);
    exchange.onResponseError(c, new Error('aborted'));
    expect((await exchange.ended).error).toBe('timeout');
    expect(exchange.sent).toBe(true);
  });

  it('counts the starts after the first as undici sending the request again on its own', () => {
    let resent = 0;
    const exchange = new Exchange(1024, { onResend: () => resent++ });
    exchange.onRequestStart(controller());
    expect(resent).toBe(0);
    exchange.onRequestStart(controller()); // REFUSED_STREAM, then a replay
    exchange.onRequestStart(controller());
    expect(resent).toBe(2);
  });

  it('two Content-Length headers that disagree end it at the head, body unread; the trace still sees the head', async () => {
    const heads: number[] = [];
    const { exchange, c } = started(1024, { onHead: (head) => heads.push(head.status) });
    exchange.onResponseStart(c, 200, { 'content-length': ['2', '5'] });
    exchange.onResponseData(c, Buffer.from('ok'));
    const ended = await exchange.ended;
    expect([ended.head?.status, ended.body.length, ended.error, ended.conflictingLengths]).toEqual([200, 0, undefined, true]);
    expect(heads).toEqual([200]);
    await Promise.resolve();
    expect(c.aborted).toBe(true);
  });

  it('the same length twice is one length', async () => {
    const { exchange, c } = started(1024);
    exchange.onResponseStart(c, 200, { 'content-length': ['2', ' 2'] });
    exchange.onResponseData(c, Buffer.from('ok'));
    exchange.onResponseEnd();
    const ended = await exchange.ended;
    expect([ended.body.toString(), ended.conflictingLengths]).toEqual(['ok', undefined]);
  });

  it('cut by its deadline: says which, ends with the reason, once', async () => {
    const { exchange, c } = started(1024);
    exchange.cut('timeout', 'time ran out');
    exchange.cut('interrupted', 'SIGINT');
    expect(exchange.cutoff).toBe('timeout');
    expect((await exchange.ended).error).toBe('time ran out');
    expect(c.abortedWith).toHaveLength(1);
  });

  it('ignores 1xx heads: the answer is the head after them', async () => {
    const { exchange, c } = started(1024);
    exchange.onResponseStart(c, 103, { link: '</x>' });
    exchange.onResponseStart(c, 204, {});
    exchange.onResponseEnd();
    expect((await exchange.ended).head?.status).toBe(204);
  });
});
