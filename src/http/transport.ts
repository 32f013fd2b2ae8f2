// The only module that speaks HTTP to the service: a request (`{method, path}`) in, a typed
// outcome out, after every attempt the retry rules allow. It knows no operation: what a
// success means, and the words for what happened, are the command's.

import type { Dispatcher } from 'undici';
import { type Lease, staticTokens, type TokenLeases } from '../config/token-lease.js';
import type { Env } from '../platform/env.js';
import { createMask } from '../text/secret-mask.js';
import { type AttemptSetup, sendOnce } from './attempt.js';
import { classifyStatus, isLoadRefusal, verdictOf } from './classify.js';
import { createDispatcher } from './dispatcher.js';
import { type AttemptGate, feedbackFor, feedbackOf } from './gate.js';
import type { FailedAttempt, HttpRequest, NotSentReason, Outcome, Route, TransportEvent } from './outcome.js';
import { maskProxy, proxyFor } from './proxy.js';
import { backoffDelayMs, REFUSALS_PER_RETRY, sharedRetryDelayMs, wait } from './retry.js';

export interface NetworkOptions {
  /** Bounds one attempt: connect, headers and body together. */
  timeoutMs: number;
  /** Further attempts after the first, for failures worth retrying. */
  retries: number;
  /** The longest single wait between attempts, ours or the server's Retry-After. */
  maxRetryWaitMs: number;
  /** Extra trusted certificates (PEM). */
  caPem?: string;
  /** The file caPem was read from: a certificate it does not vouch for is said to be "not signed by a CA in" it. */
  caFile?: string;
  /** Connections kept per origin. */
  connections?: number;
}

/**
 * Where requests go, and the bearer token they carry: one token, or a source of them that
 * renews it (a token command: before it expires, and once after a 401 with it).
 */
export interface Endpoint {
  baseUrl: string;
  token: string | TokenLeases;
}

export interface TransportOptions extends NetworkOptions {
  endpoint: Endpoint;
  userAgent: string;
  /** Proxy variables come from here. */
  env: Env;
  /** Each step of each request, for a trace; every string in an event is already masked. */
  onEvent?: (event: TransportEvent) => void;
  /** In place of the pool this module would build (tests script the wire with one). */
  dispatcher?: Dispatcher;
  random?: () => number;
  /** The run's throttle; without one, attempts go out as soon as they are ready. */
  gate?: AttemptGate;
}

export interface Transport {
  send(request: HttpRequest, interrupt: AbortSignal): Promise<Outcome>;
  close(): Promise<void>;
}

type Failed = Extract<Outcome, { kind: 'failed' }>;

// RFC 9110 §9.2.2: sending these twice has the effect of sending them once. A request may say otherwise (HttpRequest.repeatable).
const IDEMPOTENT = new Set('GET HEAD PUT DELETE OPTIONS TRACE'.split(' '));

export function createTransport(options: TransportOptions): Transport {
  const { endpoint, gate, onEvent } = options;
  const base = new URL(endpoint.baseUrl);
  const rawProxy = proxyFor(base, options.env);
  const ownDispatcher = options.dispatcher === undefined;
  const dispatcher = options.dispatcher ?? createDispatcher({ ...options, origin: base.origin, proxy: rawProxy });
  const tokens = typeof endpoint.token === 'string' ? staticTokens(endpoint.token, { now: Date.now }) : endpoint.token;
  // The newest token, in every form a server could echo it back in, hidden before any text is
  // cut to length. An attempt takes the mask as it starts, so one still on its way when the
  // token is renewed keeps masking its own: the mask holds one token however many a run sees.
  let newest: Lease | undefined = typeof endpoint.token === 'string' ? { token: endpoint.token, generation: 1, obtainedAt: 0 } : undefined;
  let mask = createMask(newest === undefined ? [] : [newest.token]);
  // Outcomes carry these to whoever prints them: masked here, once, like every other string in an outcome.
  const proxy = rawProxy === undefined ? undefined : mask(maskProxy(rawProxy));
  const route: Route = { host: mask(base.host), ...(proxy === undefined ? {} : { via: proxy }) };
  const userAgent = options.userAgent;
  const setup: AttemptSetup = {
    dispatcher,
    origin: base.origin,
    basePath: endpoint.baseUrl.slice(base.origin.length),
    headers: { 'user-agent': userAgent, accept: 'application/json' },
    route,
    ...(options.caFile === undefined ? {} : { caFile: mask(options.caFile) }),
    timeoutMs: options.timeoutMs,
    mask,
    hooks: gate?.resent ? { onResend: () => gate.resent?.() } : {},
    onEvent,
  };

  const staticLease = newest;
  // The request headers for a token, built once per token rather than once per attempt.
  let headers: { token: string; value: Record<string, string> } | undefined;
  const headersFor = (token: string): Record<string, string> => {
    if (headers?.token !== token) headers = { token, value: { ...setup.headers, authorization: `Bearer ${token}` } };
    return headers.value;
  };

  /** What an attempt sent with `lease` is made with: its mask is made for that token. */
  const setupFor = (lease: Lease): AttemptSetup => {
    if (newest === undefined || lease.generation > newest.generation) {
      newest = lease;
      mask = createMask([lease.token]);
      setup.mask = mask;
    }
    // A lease handed out just before a renewal completed: rare, and masked for both.
    return lease.token === newest.token ? setup : { ...setup, mask: createMask([lease.token, newest.token]) };
  };

  async function send(request: HttpRequest, interrupt: AbortSignal): Promise<Outcome> {
    const label = request.label ?? request.path;
    // The newest token when the request started: a 401 with a token obtained since is final.
    const startedAt = tokens.generation();
    // Whether an attempt whose answer was lost may go again: the caller's word, else the method's.
    const idempotent = request.repeatable ?? IDEMPOTENT.has(request.method.toUpperCase());
    // Whether an attempt so far may have reached the server with its answer lost.
    let lost = false;
    // In fifths of a retry: a refusal for load while the server admits other requests of the
    // run costs one; any other failure, a lone request's refusals among them, a whole retry.
    let spent = 0;
    const budget = options.retries * REFUSALS_PER_RETRY;
    let previous: Failed | undefined;
    let resentAfterIdleClose = false;
    for (let number = 1; ; number++) {
      const permit = await gate?.acquire(number === 1 ? 'first' : 'retry', interrupt);
      if (gate && permit === undefined) return notAdmitted(previous, interrupt);
      // The attempts still assured however the next ones fail: the trace never numbers one past it.
      const total = number + Math.floor((budget - spent) / REFUSALS_PER_RETRY);
      onEvent?.({
        kind: 'attempt',
        label,
        number,
        total,
        method: request.method,
        url: mask(`${endpoint.baseUrl}${request.path}`),
        ...(proxy === undefined ? {} : { via: proxy }),
        headers: [
          ['authorization', 'Bearer ***'],
          ['user-agent', userAgent],
        ],
      });
      let lease: Lease;
      try {
        // Waits while a renewal is under way: no request goes out with a token already refused.
        // A token that never renews is at hand: a batch of a million pays no extra turn for it.
        lease = staticLease ?? (await tokens.current());
      } catch (error) {
        permit?.release(feedbackFor(null));
        return noToken(previous, error, interrupt);
      }
      const sent = await sendOnce(staticLease ? setup : setupFor(lease), request, headersFor(lease.token), interrupt);
      if (sent === undefined) {
        // Ctrl-C came between the permit and the send: the permit goes back, having learnt nothing.
        permit?.release(feedbackFor(null));
        return notAdmitted(previous, interrupt);
      }
      const { outcome, retryAfterMs } = sent;
      // What the ending means, from the one table: for the throttle (its load) as for the retry below.
      const verdict = outcome.kind === 'ok' ? classifyStatus(outcome.status) : verdictOf(outcome, { idempotent });
      permit?.release(feedbackOf(verdict.load, outcome.status, retryAfterMs));
      if (outcome.status !== undefined) tokens.answered(lease, outcome.status);
      if (outcome.kind === 'ok') return outcome;
      const failed: Failed = { kind: 'failed', last: outcome, attempts: number, earlierAnswerLost: lost };
      if (outcome.status === 401 && !tokens.refusalIsFinal(lease, startedAt)) {
        // The token may have expired while the request waited: renew it (once, however many
        // requests were refused) and send again. Not a retry: nothing failed but the token.
        try {
          await tokens.renewAfter(lease);
        } catch (error) {
          return noToken(failed, error, interrupt);
        }
        previous = failed;
        continue;
      }
      if (outcome.kind === 'network' && outcome.idleClose && idempotent && !resentAfterIdleClose && !interrupt.aborted) {
        // The server closed a reused idle connection as this went out on it: sent once more at
        // once, as curl and browsers do, whatever --retries says (idle-reuse.ts).
        resentAfterIdleClose = true;
        lost ||= verdict.answerLost;
        previous = failed;
        onEvent?.({ kind: 'retrying', label, delayMs: 0, retryAfter: false, failure: outcome });
        continue;
      }
      // While the whole service fails, the batch pauses and probes: a failure then is the service's, not this id's.
      const paced = (isLoadRefusal(verdict.load) && gate?.admitting() === true) || gate?.outage?.() === true;
      // A share of failures (one upstream of two dead) while the rest is served: the run's good
      // answers pay for the retry, and the id tries again soon, likely elsewhere (retry-quota.ts).
      const shared =
        !paced && verdict.load === 'failing' && verdict.retryable && spent < budget && !interrupt.aborted && gate?.spareRetry?.() === true;
      spent += paced || shared ? 1 : REFUSALS_PER_RETRY;
      if (spent > budget || !verdict.retryable || interrupt.aborted) return failed;
      if (retryAfterMs !== undefined && retryAfterMs > options.maxRetryWaitMs) {
        return { ...failed, stopped: { kind: 'retry-after-too-long', retryAfterMs, maxRetryWaitMs: options.maxRetryWaitMs } };
      }
      lost ||= verdict.answerLost;
      previous = failed;
      const delayMs =
        retryAfterMs ??
        (shared
          ? sharedRetryDelayMs(spent, options.maxRetryWaitMs, options.random)
          : backoffDelayMs(number, options.maxRetryWaitMs, options.random));
      onEvent?.({ kind: 'retrying', label, delayMs, retryAfter: retryAfterMs !== undefined, failure: outcome as FailedAttempt });
      // A gate that stops (the run gave up, or reached --max-duration) ends the wait: no attempt follows it.
      await wait(delayMs, gate?.stopped === undefined ? interrupt : AbortSignal.any([interrupt, gate.stopped]));
      if (interrupt.aborted) return failed;
    }
  }

  /** No token to send: the token command failed. The run ends; this request was not sent, or not again. */
  function noToken(previous: Failed | undefined, error: unknown, interrupt: AbortSignal): Outcome {
    // Ctrl-C, SIGTERM or SIGHUP stopped the command: the request was interrupted, not refused a token,
    // and an answer before (a 401 for an expired token) was not its last word.
    if (interrupt.aborted) {
      return previous === undefined ? notAdmitted(previous, interrupt) : { ...previous, stopped: { kind: 'interrupted-awaiting-token' } };
    }
    const message = error instanceof Error ? error.message : String(error);
    return previous === undefined
      ? { kind: 'not-sent', reason: { kind: 'no-token', message } }
      : { ...previous, stopped: { kind: 'gave-up', reason: message } };
  }

  /** No further attempt: the user interrupted, or the server refused everything for too long. */
  function notAdmitted(previous: Failed | undefined, interrupt: AbortSignal): Outcome {
    const gaveUp = interrupt.aborted ? undefined : gate?.gaveUp();
    if (previous === undefined) {
      const reason: NotSentReason = gaveUp === undefined ? { kind: 'interrupted' } : { kind: 'gave-up', reason: gaveUp };
      return { kind: 'not-sent', reason };
    }
    return gaveUp === undefined ? previous : { ...previous, stopped: { kind: 'gave-up', reason: gaveUp } };
  }

  return {
    send,
    close: () => {
      // Called once every request has its outcome: what undici still holds was abandoned at its
      // deadline or on Ctrl-C (a connection still being opened). close() would wait for those
      // connects to fail one after another; destroy() ends them now. (One handed in is the caller's to end as it likes.)
      return ownDispatcher ? dispatcher.destroy() : dispatcher.close();
    },
  };
}
