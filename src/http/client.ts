import type { Dispatcher } from 'undici';
import type { Deleted, NotDeleted } from '../batch/result.js';
import { type Feedback, feedbackFor, type Permit } from '../batch/throttle.js';
import { plantUrl } from '../config/base-url.js';
import type { Target } from '../config/resolve.js';
import { Exit, exitForStatus } from '../errors.js';
import type { Env } from '../ui/io.js';
import { createMask, type Mask } from '../ui/secret-mask.js';
import { Deadlines, TIMED_OUT } from './deadlines.js';
import { createDispatcher } from './dispatcher.js';
import { parseErrorBody, serverLine, statusText } from './error-body.js';
import { maskProxy, proxyFor } from './proxy.js';
import { describeRequestError, formatSeconds } from './request-errors.js';
import { decodeBody, readCapped } from './response-body.js';
import { backoffDelayMs, isRetryableStatus, parseRetryAfter, REFUSALS_PER_RETRY, wait } from './retry.js';

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
  dispatcher?: Dispatcher;
  random?: () => number;
  /** The run's throttle (batch/throttle.ts); without one, attempts go out as soon as they are ready. */
  gate?: AttemptGate;
}

/** The one gate every attempt of a run passes, first or retry: it paces the run when the server pushes back. */
export interface AttemptGate {
  acquire(kind: 'first' | 'retry', signal: AbortSignal): Permit | undefined | Promise<Permit | undefined>;
  /** Why the run stopped trying, once the server has refused everything for too long. */
  gaveUp(): string | undefined;
}

const OK: Feedback = { kind: 'ok' };

export interface PlantApi {
  deletePlant(id: string, signal: AbortSignal): Promise<Deleted | NotDeleted>;
  close(): Promise<void>;
}

/** What one attempt ended with, and whether another could end better. */
interface Attempt {
  result: Deleted | NotDeleted;
  retryable: boolean;
  answerLost: boolean;
  retryAfterMs?: number | undefined;
}

/** The only module that speaks HTTP. */
export function createPlantApi(options: ApiOptions): PlantApi {
  const { target } = options;
  const base = new URL(target.baseUrl);
  const rawProxy = proxyFor(base, options.env);
  const proxy = rawProxy === undefined ? undefined : maskProxy(rawProxy);
  const dispatcher = options.dispatcher ?? createDispatcher({ ...options, origin: base.origin, proxy: rawProxy });
  // Trace lines are built only when someone reads them: a batch of a million
  // requests should not format a million unused strings.
  const trace = options.trace;
  const gate = options.gate;
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
  const headers = {
    authorization: `Bearer ${target.token}`,
    'user-agent': options.userAgent,
    accept: 'application/json',
  };

  async function attempt(id: string, number: number, interrupt: AbortSignal): Promise<Attempt> {
    if (interrupt.aborted) return notSent(id);
    const url = plantUrl(target.baseUrl, id);
    const path = url.slice(base.origin.length);
    const signal = deadlinesFor(interrupt).signal();
    const started = performance.now();
    if (trace) {
      // Requests run side by side: every line says which plant it is about.
      trace(`[${id}] * attempt ${number} of ${options.retries + 1}: DELETE ${url} ${proxy ? `via proxy ${proxy}` : '(direct)'}`);
      trace(`[${id}] > authorization: Bearer ***`);
      trace(`[${id}] > user-agent: ${headers['user-agent']}`);
    }
    // The head of an answer, once it arrives: a body cut short after it is still a failure to
    // answer (reset or timeout), but the status is kept, since an answer had begun.
    let began: { status: number; headers: Record<string, string | string[] | undefined> } | undefined;
    try {
      const response = await dispatcher.request({ origin: base.origin, path, method: 'DELETE', headers, signal });
      const status = response.statusCode;
      began = { status, headers: response.headers };
      if (trace) {
        trace(`[${id}] < HTTP ${status} ${statusText(status)} (${elapsed(started)})`);
        for (const [name, value] of Object.entries(response.headers)) trace(`[${id}] < ${name}: ${serverLine(String(value), mask)}`);
      }
      if (status >= 200 && status < 300) {
        // The status says it was deleted; what happens to the rest of the body changes nothing.
        await response.body.dump({ limit: MAX_ERROR_BODY_BYTES }).catch(() => {});
        return { result: { id, deleted: true, status }, retryable: false, answerLost: false };
      }
      const raw = await readCapped(response.body, MAX_ERROR_BODY_BYTES);
      const body = decodeBody(
        raw,
        header(response.headers, 'content-encoding'),
        header(response.headers, 'content-type'),
        MAX_ERROR_BODY_BYTES,
      );
      return {
        result: failedAnswer(id, status, response.headers, body, mask),
        retryable: isRetryableStatus(status),
        answerLost: false,
        retryAfterMs: parseRetryAfter(header(response.headers, 'retry-after'), Date.now()),
      };
    } catch (error) {
      const aborted = interrupt.aborted ? 'interrupted' : signal.reason === TIMED_OUT ? 'timeout' : undefined;
      const described = describeRequestError(error, {
        aborted,
        timeoutMs: options.timeoutMs,
        baseUrl: target.baseUrl,
        proxy,
        mask,
        answerBegun: began?.status,
      });
      trace?.(`[${id}] * failed after ${elapsed(started)}: ${described.message}`);
      const result: NotDeleted = {
        id,
        deleted: false,
        status: began?.status ?? null,
        error: null,
        message: described.message,
        exit: described.exit,
        attempted: true,
      };
      return {
        result,
        retryable: described.retryable,
        answerLost: described.answerLost,
        // A 429 or 503 cut short still said when to come back.
        retryAfterMs: began && parseRetryAfter(header(began.headers, 'retry-after'), Date.now()),
      };
    }
  }

  async function deletePlant(id: string, interrupt: AbortSignal): Promise<Deleted | NotDeleted> {
    let earlierAnswerLost = false;
    // In fifths of a retry: a refusal (429, 503) costs one, any other failure a whole retry.
    let spent = 0;
    let previous: NotDeleted | undefined;
    for (let number = 1; ; number++) {
      let permit = gate?.acquire(number === 1 ? 'first' : 'retry', interrupt);
      if (permit instanceof Promise) permit = await permit;
      if (gate && permit === undefined) return notAdmitted(id, previous, number - 1, earlierAnswerLost, interrupt);
      const outcome = await attempt(id, number, interrupt);
      const { result } = outcome;
      permit?.release(result.deleted ? OK : feedbackFor(result.status, outcome.retryAfterMs));
      if (result.deleted) return result;
      const refused = result.status === 429 || result.status === 503;
      spent += refused ? 1 : REFUSALS_PER_RETRY;
      const last = spent > options.retries * REFUSALS_PER_RETRY || !outcome.retryable || interrupt.aborted;
      if (last) return finish(result, number, earlierAnswerLost);
      if (outcome.retryAfterMs !== undefined && outcome.retryAfterMs > options.maxRetryWaitMs) {
        return finish(
          {
            ...result,
            message: `${result.message}; the server asked to retry after ${formatSeconds(outcome.retryAfterMs)}, longer than --max-retry-wait ${formatSeconds(options.maxRetryWaitMs)}`,
          },
          number,
          false,
        );
      }
      earlierAnswerLost ||= outcome.answerLost;
      previous = result;
      const delay = outcome.retryAfterMs ?? backoffDelayMs(number, options.maxRetryWaitMs, options.random);
      trace?.(
        `[${id}] * retrying in ${formatSeconds(delay)}${outcome.retryAfterMs !== undefined ? ' (Retry-After)' : ''}: ${result.message}`,
      );
      await wait(delay, interrupt);
      if (interrupt.aborted) return finish(result, number, false);
    }
  }

  /** The gate sent nothing more: the user interrupted, or the server refused everything for too long. */
  function notAdmitted(
    id: string,
    previous: NotDeleted | undefined,
    attempts: number,
    earlierAnswerLost: boolean,
    interrupt: AbortSignal,
  ): NotDeleted {
    const gaveUp = interrupt.aborted ? undefined : gate?.gaveUp();
    if (previous === undefined) {
      if (gaveUp === undefined) return interruptedBeforeSending(id);
      return { id, deleted: false, status: null, error: null, message: `not sent: ${gaveUp}`, exit: Exit.server, attempted: false };
    }
    const result = gaveUp === undefined ? previous : { ...previous, message: `${previous.message}; ${gaveUp}, so it was not tried again` };
    return finish(result, attempts, earlierAnswerLost);
  }

  /** Adds what the attempts teach: how many there were, and whether an earlier one may have done the work. */
  function finish(result: NotDeleted, attempts: number, earlierAnswerLost: boolean): NotDeleted {
    const message = attempts > 1 ? `${result.message} (after ${attempts} attempts)` : result.message;
    return { ...result, message: mask(message), ...(earlierAnswerLost && result.status !== null ? { earlierAnswerLost } : {}) };
  }

  return {
    deletePlant,
    close: () => {
      deadlines?.signals.dispose();
      return dispatcher.close();
    },
  };
}

function failedAnswer(
  id: string,
  status: number,
  headers: Record<string, string | string[] | undefined>,
  body: string,
  mask: Mask,
): NotDeleted {
  if (status >= 300 && status < 400) {
    const location = header(headers, 'location')?.trim();
    const known = statusText(status);
    const named = known === `HTTP status ${status}` ? `HTTP ${status}` : `${status} ${known}`;
    const message =
      status === 304
        ? // A conditional answer to a request that had no condition: nothing was deleted.
          'the server answered 304 Not Modified, which makes no sense for a DELETE'
        : location
          ? // Following it would hand the bearer token to wherever the server points.
            `the server redirected to ${serverLine(location, mask)}; redirects are not followed so the token stays with the base URL you chose, so fix the base URL`
          : `the server answered ${named} without a Location`;
    return { id, deleted: false, status, error: null, message, exit: Exit.server, attempted: true };
  }
  const details = parseErrorBody(status, header(headers, 'content-type'), body, mask);
  return { id, deleted: false, status, error: details.code, message: details.message, exit: exitForStatus(status), attempted: true };
}

/** An attempt that never left: the user interrupted before it could be sent. */
function notSent(id: string): Attempt {
  return { result: interruptedBeforeSending(id), retryable: false, answerLost: false };
}

function interruptedBeforeSending(id: string): NotDeleted {
  const message = 'not sent: interrupted before its turn';
  return { id, deleted: false, status: null, error: null, message, exit: Exit.interrupted, attempted: false };
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function elapsed(started: number): string {
  return `${(performance.now() - started).toFixed(1)} ms`;
}
