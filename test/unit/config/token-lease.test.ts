// Renewing a token from a command in the middle of a run: before it expires, and after a 401,
// once for any number of requests refused at the same moment. The command is a scripted
// function whose answers the test releases one by one; the clock is a number the test moves.
import { describe, expect, it } from 'vitest';
import type { ObtainedToken } from '../../../src/config/token-command.js';
import {
  commandTokens,
  isFinalRefusal,
  type Lease,
  RENEW_BEFORE_EXPIRY_MS,
  renewsAt,
  staticTokens,
  type TokenEvent,
} from '../../../src/config/token-lease.js';
import { AuthError } from '../../../src/errors.js';
import { rejection } from '../../helpers/thrown.js';

/** A token command whose every run waits until the test answers it. */
function scriptedCommand() {
  const runs: Array<{ resolve: (obtained: ObtainedToken) => void; reject: (error: unknown) => void }> = [];
  return {
    runs,
    obtain: () => new Promise<ObtainedToken>((resolve, reject) => runs.push({ resolve, reject })),
    answer(obtained: ObtainedToken): void {
      const run = runs.at(-1);
      if (!run) throw new Error('the command is not running');
      run.resolve(obtained);
    },
  };
}

function setUp() {
  const clock = { now: 1_000_000 };
  const command = scriptedCommand();
  const masked: string[] = [];
  const events: TokenEvent[] = [];
  const leases = commandTokens(command.obtain, {
    now: () => clock.now,
    onToken: (token) => masked.push(token),
    onEvent: (event) => events.push(event),
  });
  return { clock, command, masked, events, leases };
}

/** Lets every settled promise run its callbacks. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('commandTokens', () => {
  it('runs the command on first use only, once for many first requests', async () => {
    const { command, leases } = setUp();
    expect(command.runs).toHaveLength(0);
    expect(leases.generation()).toBe(0);
    const first = Array.from({ length: 10 }, () => leases.current());
    command.answer({ token: 'token-one-1' });
    const got = await Promise.all(first);
    expect(got.map((lease) => lease.token)).toEqual(Array(10).fill('token-one-1'));
    expect(await leases.current()).toEqual({ token: 'token-one-1', generation: 1, obtainedAt: 1_000_000 });
    expect(command.runs).toHaveLength(1);
  });

  it('renews before handing out a token that expires within 30 s; the request waits for it', async () => {
    const { clock, command, leases, events } = setUp();
    const first = leases.current();
    command.answer({ token: 'token-one-1', expiresAt: clock.now + 3_600_000 });
    await first;
    clock.now += 3_600_000 - RENEW_BEFORE_EXPIRY_MS - 1;
    expect((await leases.current()).token).toBe('token-one-1');
    clock.now += 1;
    let handedOut: Lease | undefined;
    const waiting = leases.current().then((lease) => (handedOut = lease));
    await settle();
    expect(handedOut).toBeUndefined();
    expect(command.runs).toHaveLength(2);
    command.answer({ token: 'token-two-2', expiresAt: clock.now + 3_600_000 });
    await waiting;
    expect(handedOut).toMatchObject({ token: 'token-two-2', generation: 2 });
    expect(events).toContainEqual({ kind: 'renewing', reason: 'expiring', generation: 1, expiresAt: 1_000_000 + 3_600_000 });
  });

  it('renews a short-lived token at half its life, not 30 s before an expiry it never reaches', () => {
    expect(renewsAt({ token: 't', generation: 1, obtainedAt: 0, expiresAt: 20_000 })).toBe(10_000);
    expect(renewsAt({ token: 't', generation: 1, obtainedAt: 0, expiresAt: 3_600_000 })).toBe(3_570_000);
    expect(renewsAt({ token: 't', generation: 1, obtainedAt: 0 })).toBeUndefined();
  });

  it('runs the command once for 64 requests refused at once; requests arriving meanwhile wait for the new token', async () => {
    const { command, leases, events } = setUp();
    const first = leases.current();
    command.answer({ token: 'token-one-1' });
    const old = await first;
    const refused = Array.from({ length: 64 }, () => leases.renewAfter(old));
    const arriving = Array.from({ length: 8 }, () => leases.current());
    await settle();
    expect(command.runs).toHaveLength(2);
    command.answer({ token: 'token-two-2' });
    const got = await Promise.all([...refused, ...arriving]);
    expect(new Set(got.map((lease) => `${lease.generation}:${lease.token}`))).toEqual(new Set(['2:token-two-2']));
    expect(command.runs).toHaveLength(2);
    expect(events.filter((event) => event.kind === 'renewing')).toEqual([{ kind: 'renewing', reason: 'refused', generation: 1 }]);
  });

  it('hands a 401 with an old token the newer one without running the command', async () => {
    const { command, leases } = setUp();
    const first = leases.current();
    command.answer({ token: 'token-one-1' });
    const old = await first;
    const renewal = leases.renewAfter(old);
    command.answer({ token: 'token-two-2' });
    await renewal;
    // A request sent with token 1 before the renewal comes back 401 after it.
    expect(await leases.renewAfter(old)).toMatchObject({ token: 'token-two-2', generation: 2 });
    expect(command.runs).toHaveLength(2);
  });

  it('a failing renewal rejects every waiter, and every later caller, with its error; the command never runs again', async () => {
    const { command, leases } = setUp();
    const first = leases.current();
    command.answer({ token: 'token-one-1' });
    const old = await first;
    const waiters = [...Array.from({ length: 5 }, () => leases.renewAfter(old)), leases.current()];
    const failure = new AuthError("token command 'pass show plantstore' failed with exit status 1");
    command.runs.at(-1)?.reject(failure);
    for (const waiter of waiters) expect(await rejection(waiter)).toBe(failure);
    expect(await rejection(leases.current())).toBe(failure);
    expect(await rejection(leases.renewAfter(old))).toBe(failure);
    expect(command.runs).toHaveLength(2);
  });

  it('tells the mask every token before any request can carry it', async () => {
    const { command, leases, masked } = setUp();
    const first = leases.current().then((lease) => {
      expect(masked).toContain(lease.token);
      return lease;
    });
    command.answer({ token: 'token-one-1' });
    const renewed = leases.renewAfter(await first).then((lease) => {
      expect(masked).toContain(lease.token);
      return lease;
    });
    command.answer({ token: 'token-two-2' });
    await renewed;
    expect(masked).toEqual(['token-one-1', 'token-two-2']);
  });

  it('each request renews at most once: the resend carries a token obtained after it started', async () => {
    const { command, leases } = setUp();
    const first = leases.current();
    command.answer({ token: 'token-one-1' });
    await first;
    const startedAt = leases.generation();
    const sent = await leases.current();
    expect(leases.refusalIsFinal(sent, startedAt)).toBe(false);
    const renewal = leases.renewAfter(sent);
    command.answer({ token: 'token-two-2' });
    const resent = await renewal;
    expect(leases.refusalIsFinal(resent, startedAt)).toBe(true);
  });
});

describe('commandTokens against a server that refuses its tokens', () => {
  /** The first token obtained, then refused once: the second is obtained, as for an expired token. */
  async function refusedOnce() {
    const setup = setUp();
    const { command, leases } = setup;
    const first = leases.current();
    command.answer({ token: 'token-one-1' });
    const one = await first;
    leases.answered(one, 401);
    const renewal = leases.renewAfter(one);
    command.answer({ token: 'token-two-2' });
    return { ...setup, one, two: await renewal };
  }

  it('a token obtained after a refusal, refused before the server took it once, ends the renewals', async () => {
    const { command, leases, two } = await refusedOnce();
    leases.answered(two, 401);
    const error = await rejection(leases.renewAfter(two));
    expect(error).toBeInstanceOf(AuthError);
    expect((error as Error).message).toMatch(/^the server refused token 2 from the token command as well, right after refusing token 1/);
    // Every later request is told the same, and the command is not run again.
    expect(await rejection(leases.current())).toBe(error);
    expect(command.runs).toHaveLength(2);
  });

  it('a token the server took, refused later (it expired early), is renewed as before', async () => {
    const { command, leases, two } = await refusedOnce();
    leases.answered(two, 204);
    leases.answered(two, 401);
    const renewal = leases.renewAfter(two);
    command.answer({ token: 'token-three-3' });
    expect((await renewal).generation).toBe(3);
  });

  it('a late refusal of the older token, or any other status, ends nothing', async () => {
    const { command, leases, one, two } = await refusedOnce();
    leases.answered(one, 401);
    leases.answered(two, 404);
    expect(await leases.current()).toBe(two);
    expect(command.runs).toHaveLength(2);
  });

  it('the first token refused is renewed: it may have expired while the run started', async () => {
    const { command, two } = await refusedOnce();
    expect(two.generation).toBe(2);
    expect(command.runs).toHaveLength(2);
  });
});

describe('staticTokens', () => {
  it('hands out the one token, never renews, and a 401 is final at once', async () => {
    const masked: string[] = [];
    const leases = staticTokens('static-token-1', { now: () => 5, onToken: (token) => masked.push(token) });
    const startedAt = leases.generation();
    const lease = await leases.current();
    expect(lease).toEqual({ token: 'static-token-1', generation: 1, obtainedAt: 5 });
    expect(leases.renewable).toBe(false);
    expect(leases.refusalIsFinal(lease, startedAt)).toBe(true);
    expect(await leases.renewAfter(lease)).toBe(lease);
    expect(masked).toEqual(['static-token-1']);
  });
});

describe('isFinalRefusal: a 401 is final only with a token obtained after the request started', () => {
  const lease = (generation: number): Lease => ({ token: 'token-x-123', generation, obtainedAt: 0 });
  it.each<[string, number, number, boolean, boolean]>([
    // name, generation sent with, newest generation when the request started, renewable, final
    ['sent with the token current at its start: renew and resend', 3, 3, true, false],
    ['sent with a token obtained after it started (the resend): final', 4, 3, true, true],
    ['its first token, obtained after it started (none before): final', 1, 0, true, true],
    ['a static token: final at once', 1, 1, false, true],
  ])('%s', (_name, sentWith, startedAt, renewable, final) => {
    expect(isFinalRefusal(lease(sentWith), startedAt, renewable)).toBe(final);
  });
});
