import type { Dispatcher } from 'undici';
import { plantUrl } from '../config/base-url.js';
import type { Target } from '../config/resolve.js';
import type { Env } from '../ui/io.js';
import { createMask, type Mask } from '../ui/secret-mask.js';
import { classifyStatus, isLoadRefusal, verdictOf } from './classify.js';
import { type DeadlineSignal, Deadlines, TIMED_OUT } from './deadlines.js';
import { createDispatcher, ON_SENT, type SentHook } from './dispatcher.js';
import { htmlTitle, parseErrorBody, serverLine, statusText } from './error-body.js';
import { type AttemptGate, feedbackFor } from './gate.js';
import type { FailedAttempt, PlantOutcome, Route } from './outcome.js';
import { maskProxy, proxyFor } from './proxy.js';
import { failedRequest } from './request-errors.js';
import { decodeBody, readCapped } from './response-body.js';
import { backoffDelayMs, formatSeconds, parseRetryAfter, REFUSALS_PER_RETRY, wait } from './retry.js';

/** The spec's Error object is tiny; anything past this is a hostile or broken server. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

export interface NetworkOptions {
  /** Bounds one attempt: connect, headers and body together. */
  timeoutMs: number;
  /** Further attempts after the first, for failures worth retrying. */
  retries: number;
  /** The longest single wait between attempts, ours or the server's Retry-After. */
  maxRetryWaitMs: number;
  /** Extra trusted certificates (PEM), from --cacert. */
  caPem?: string;
  /** Connections kept per origin. */
  connections?: number;
}

export interface ApiOptions extends NetworkOptions {
  target: Target;
  userAgent: string;
  /** Proxy variables come from here. */
  env: Env;
  /** --verbose: one line per event, already free of the token. */
  trace?: (line: string) => void;
  /** How the command words a failed attempt, for the trace; the transport writes no sentences of its own. */
  describe?: (attempt: FailedAttempt) => string;
  dispatcher?: Dispatcher;
  random?: () => number;
  /** The run's throttle (batch/throttle/); without one, attempts go out as soon as they are ready. */
  gate?: AttemptGate;
}

export interface PlantApi {
  deletePlant(id: string, signal: AbortSignal): Promise<PlantOutcome>;
  close(): Promise<void>;
}

/** What one attempt that was sent ended with, and when the server asked us to come back. */
interface Attempt {
  outcome: { kind: 'deleted'; status: number } | FailedAttempt;
  retryAfterMs?: number | undefined;
}

type Failed = Extract<PlantOutcome, { kind: 'failed' }>;

/** The only module that speaks HTTP. */
export function createPlantApi(options: ApiOptions): PlantApi {
  const { target } = options;
  const base = new URL(target.baseUrl);
  const rawProxy = proxyFor(base, options.env);
  const gate = options.gate;
  const ownDispatcher = options.dispatcher === undefined;
  const dispatcher =
    options.dispatcher ??
    createDispatcher({ ...options, origin: base.origin, proxy: rawProxy, ...(gate?.resent ? { onResend: () => gate.resent?.() } : {}) });
  // Trace lines are built only when someone reads them: a batch of a million
  // requests should not format a million unused strings.
  const trace = options.trace;
  // Without the command's words, a trace still shows what happened, as the data itself.
  const describe = options.describe ?? ((attempt: FailedAttempt) => JSON.stringify(attempt));
  // Shared per interrupt signal, which in the CLI is one for the whole run.
  let deadlines: { for: AbortSignal; signals: Deadlines } | undefined;
  const deadlinesFor = (interrupt: AbortSignal): Deadlines => {
    if (deadlines?.for !== interrupt) {
      deadlines?.signals.dispose();
      deadlines = { for: interrupt, signals: new Deadlines(options.timeoutMs, interrupt) };
    }
    return deadlines.signals;
  };
  // The token in every form a server could echo it back in, hidden before any text is cut to length.
  const mask = createMask([target.token]);
  // Outcomes carry these to whoever prints them: masked here, once, like every other string in an outcome.
  const proxy = rawProxy === undefined ? undefined : mask(maskProxy(rawProxy));
  const route: Route = { host: mask(base.host), ...(proxy === undefined ? {} : { via: proxy }) };
  const headers = {
    authorization: `Bearer ${target.token}`,
    'user-agent': options.userAgent,
    accept: 'application/json',
  };

  /** One attempt; undefined when the user interrupted before it could be sent. */
  async function attempt(id: string, number: number, total: number, interrupt: AbortSignal): Promise<Attempt | undefined> {
    if (interrupt.aborted) return undefined;
    const url = plantUrl(target.baseUrl, id);
    const path = url.slice(base.origin.length);
    const signal = deadlinesFor(interrupt).signal();
    const started = performance.now();
    if (trace) {
      // Requests run side by side: every line says which plant it is about.
      trace(`[${id}] * attempt ${number} of ${total}: DELETE ${url} ${proxy ? `via proxy ${proxy}` : '(direct)'}`);
      trace(`[${id}] > authorization: Bearer ***`);
      trace(`[${id}] > user-agent: ${headers['user-agent']}`);
    }
    // The head of an answer, once it arrives: a body cut short after it is still a failure to
    // answer (reset or timeout), but the status is kept, since an answer had begun.
    let began: { status: number; headers: Record<string, string | string[] | undefined> } | undefined;
    // Whether undici has written the request to a connection. A dispatcher handed in (tests) says nothing: assume it has.
    let sent = !ownDispatcher;
    const onSent = (): void => {
      sent = true;
    };
    try {
      const request: Dispatcher.RequestOptions & SentHook = {
        origin: base.origin,
        path,
        method: 'DELETE',
        headers,
        signal,
        [ON_SENT]: onSent,
      };
      const response = await untilAborted(dispatcher.request(request), signal);
      const status = response.statusCode;
      began = { status, headers: response.headers };
      if (trace) {
        trace(`[${id}] < HTTP ${status} ${statusText(status)} (${elapsed(started)})`);
        for (const [name, value] of Object.entries(response.headers)) trace(`[${id}] < ${name}: ${serverLine(String(value), mask)}`);
      }
      if (hasConflictingLengths(response.headers)) {
        // Which length is right cannot be known, so neither the status nor the body can be trusted.
        response.body.destroy();
        return { outcome: { ...route, kind: 'malformed', headersTooLarge: false } };
      }
      if (classifyStatus(status).kind === 'success') {
        // 204 is the spec's answer. Another 2xx deletes too, unless its body is a web page: a
        // base URL that leads to a web front end answers 200 to anything, and every plant would
        // be reported deleted. A body cut short changes nothing: the status said so.
        const page = status === 204 ? undefined : await webPageTitle(response, mask).catch(() => undefined);
        if (page === undefined) {
          await response.body.dump({ limit: MAX_ERROR_BODY_BYTES }).catch(() => {});
          return { outcome: { kind: 'deleted', status } };
        }
        return { outcome: { kind: 'web-page', status, title: page } };
      }
      const body = await readBody(response);
      return {
        outcome: failedAnswer(status, response.headers, body, mask),
        retryAfterMs: parseRetryAfter(header(response.headers, 'retry-after'), Date.now()),
      };
    } catch (error) {
      const aborted = interrupt.aborted ? 'interrupted' : signal.reason === TIMED_OUT ? 'timeout' : undefined;
      if (!sent && aborted === 'interrupted') {
        // Still connecting (or queued for a connection) when Ctrl-C came: nothing left this machine.
        trace?.(`[${id}] * interrupted after ${elapsed(started)}, before the request was sent`);
        return undefined;
      }
      if (!sent && aborted === 'timeout') {
        // The deadline struck while connecting: the server never had the request.
        const outcome: FailedAttempt = { ...route, kind: 'timeout', ms: options.timeoutMs, phase: 'connect' };
        trace?.(`[${id}] * failed after ${elapsed(started)}: ${describe(outcome)}`);
        return { outcome };
      }
      const outcome = failedRequest(error, {
        aborted,
        timeoutMs: options.timeoutMs,
        route: began === undefined ? route : { ...route, status: began.status },
        mask,
      });
      trace?.(`[${id}] * failed after ${elapsed(started)}: ${describe(outcome)}`);
      // A 429 or 503 cut short still said when to come back.
      return { outcome, retryAfterMs: began && parseRetryAfter(header(began.headers, 'retry-after'), Date.now()) };
    }
  }

  async function deletePlant(id: string, interrupt: AbortSignal): Promise<PlantOutcome> {
    // Whether an attempt so far may have reached the server with its answer lost.
    let lost = false;
    // In fifths of a retry: a refusal for load (classify.ts) while the server admits other
    // requests of the run costs one; any other failure, a lone id's refusals among them, a whole retry.
    let spent = 0;
    const budget = options.retries * REFUSALS_PER_RETRY;
    let previous: Failed | undefined;
    for (let number = 1; ; number++) {
      const permit = await gate?.acquire(number === 1 ? 'first' : 'retry', interrupt);
      if (gate && permit === undefined) return notAdmitted(id, previous, interrupt);
      // The attempts still assured however the next ones fail: the trace never numbers one past it.
      const total = number + Math.floor((budget - spent) / REFUSALS_PER_RETRY);
      const sent = await attempt(id, number, total, interrupt);
      if (sent === undefined) {
        // Ctrl-C came between the permit and the send: the permit goes back, having learnt nothing.
        permit?.release(feedbackFor(null));
        return notAdmitted(id, previous, interrupt);
      }
      const { outcome, retryAfterMs } = sent;
      permit?.release(feedbackFor(outcome.status ?? null, retryAfterMs));
      if (outcome.kind === 'deleted') return { kind: 'deleted', id, status: outcome.status };
      const verdict = verdictOf(outcome);
      const failed: Failed = { kind: 'failed', id, last: outcome, attempts: number, earlierAnswerLost: lost };
      const paced = isLoadRefusal(verdict.load) && gate?.admitting() === true;
      spent += paced ? 1 : REFUSALS_PER_RETRY;
      if (spent > budget || !verdict.retryable || interrupt.aborted) return failed;
      if (retryAfterMs !== undefined && retryAfterMs > options.maxRetryWaitMs) {
        return { ...failed, stopped: { kind: 'retry-after-too-long', retryAfterMs, maxRetryWaitMs: options.maxRetryWaitMs } };
      }
      lost ||= verdict.answerLost;
      previous = failed;
      const delay = retryAfterMs ?? backoffDelayMs(number, options.maxRetryWaitMs, options.random);
      trace?.(`[${id}] * retrying in ${formatSeconds(delay)}${retryAfterMs !== undefined ? ' (Retry-After)' : ''}: ${describe(outcome)}`);
      await wait(delay, interrupt);
      if (interrupt.aborted) return failed;
    }
  }

  /** No further attempt: the user interrupted, or the server refused everything for too long. */
  function notAdmitted(id: string, previous: Failed | undefined, interrupt: AbortSignal): PlantOutcome {
    const gaveUp = interrupt.aborted ? undefined : gate?.gaveUp();
    if (previous === undefined) {
      return { kind: 'not-sent', id, reason: gaveUp === undefined ? { kind: 'interrupted' } : { kind: 'gave-up', reason: gaveUp } };
    }
    return gaveUp === undefined ? previous : { ...previous, stopped: { kind: 'gave-up', reason: gaveUp } };
  }

  return {
    deletePlant,
    close: () => {
      deadlines?.signals.dispose();
      // Called once every deletion has its outcome: what undici still holds was abandoned at its
      // deadline or on Ctrl-C (a connection still being opened). close() would wait for those
      // connects to fail one after another; destroy() ends them now. (One handed in is the caller's to end as it likes.)
      return ownDispatcher ? dispatcher.destroy() : dispatcher.close();
    },
  };
}

/** A complete answer that is not a success: a redirect, or what the body says went wrong. */
function failedAnswer(status: number, headers: Record<string, string | string[] | undefined>, body: string, mask: Mask): FailedAttempt {
  if (classifyStatus(status).kind === 'redirect') {
    const location = header(headers, 'location')?.trim();
    return { kind: 'redirect', status, ...(location ? { location: serverLine(location, mask) } : {}) };
  }
  const details = parseErrorBody(status, header(headers, 'content-type'), body, mask);
  return { kind: 'api-error', status, code: details.code, message: details.message };
}

type Answer = Dispatcher.ResponseData;

/** Up to MAX_ERROR_BODY_BYTES of an answer's body, decoded to text. */
async function readBody(response: Answer): Promise<string> {
  const raw = await readCapped(response.body, MAX_ERROR_BODY_BYTES);
  return decodeBody(raw, header(response.headers, 'content-encoding'), header(response.headers, 'content-type'), MAX_ERROR_BODY_BYTES);
}

/** The title of a 2xx answer that is an HTML page ('' without one); undefined when it is not a page. */
async function webPageTitle(response: Answer, mask: Mask): Promise<string | undefined> {
  const contentType = header(response.headers, 'content-type');
  const body = await readBody(response);
  const page = /\bhtml\b/i.test(contentType ?? '') || /^\s*<(!doctype\s+html|html[\s>])/i.test(body);
  return page ? htmlTitle(body, mask) : undefined;
}

/**
 * The request's answer, or the signal's reason as soon as it fires. undici fails a request
 * aborted while it still waits in its queue only once it is dispatched: for an https origin,
 * after the one connection it probes for HTTP/2 has connected or failed (every other
 * request waits on that probe). A handshake that never ends would hold Ctrl-C and the
 * deadline until undici's own connect timeout, one queued request after another.
 */
function untilAborted<T extends Dispatcher.ResponseData>(pending: Promise<T>, signal: DeadlineSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      reject(signal.reason);
      // undici still holds the request: whatever it ends with later is dropped.
      pending.then(
        (late) => late.body.destroy(),
        () => {},
      );
    };
    if (signal.reason !== undefined) return onAbort();
    signal.once('abort', onAbort);
    pending.then(
      (response) => {
        signal.off('abort', onAbort);
        resolve(response);
      },
      (error: unknown) => {
        signal.off('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Two Content-Length headers that disagree (RFC 9112 §6.3: unrecoverable), which undici passes on. */
function hasConflictingLengths(headers: Record<string, string | string[] | undefined>): boolean {
  const lengths = headers['content-length'];
  return Array.isArray(lengths) && new Set(lengths.map((length) => length.trim())).size > 1;
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function elapsed(started: number): string {
  return `${(performance.now() - started).toFixed(1)} ms`;
}
