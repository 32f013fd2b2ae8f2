import { Agent, request, type Dispatcher } from 'undici';
import { plantUrl } from './base-url.js';
import { parseErrorBody } from './error-body.js';
import { Exit, exitForStatus } from './errors.js';
import { describeRequestError } from './request-errors.js';
import type { DeleteResult } from './result.js';
import type { Target } from './settings.js';
import { scrubToken } from './token.js';

/** The spec's Error object is tiny; anything past this is a hostile or broken server. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

export interface ApiOptions {
  target: Target;
  userAgent: string;
  /** Bounds one attempt: connect, headers and body together. */
  timeoutMs: number;
  dispatcher?: Dispatcher;
}

export interface PlantApi {
  deletePlant(id: string, signal: AbortSignal): Promise<DeleteResult>;
  close(): Promise<void>;
}

/** The only module that speaks HTTP. */
export function createPlantApi(options: ApiOptions): PlantApi {
  const { target } = options;
  const dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 10_000 });
  const headers = {
    authorization: `Bearer ${target.token}`,
    'user-agent': options.userAgent,
    accept: 'application/json',
  };

  async function deletePlant(id: string, interrupt: AbortSignal): Promise<DeleteResult> {
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = AbortSignal.any([interrupt, timeout]);
    try {
      const response = await request(plantUrl(target.baseUrl, id), {
        method: 'DELETE',
        headers,
        signal,
        dispatcher,
      });
      if (response.statusCode >= 200 && response.statusCode < 300) {
        await response.body.dump();
        return { id, deleted: true, status: response.statusCode };
      }
      const body = await readCapped(response.body, MAX_ERROR_BODY_BYTES);
      return failedAnswer(id, response.statusCode, response.headers, body);
    } catch (error) {
      const reason = interrupt.aborted ? 'interrupted' : timeout.aborted ? 'timeout' : undefined;
      const described = describeRequestError(error, reason, options.timeoutMs, target.baseUrl);
      return {
        id,
        deleted: false,
        status: null,
        error: null,
        message: scrubToken(described.message, target.token),
        exit: described.exit,
        attempted: true,
      };
    }
  }

  return { deletePlant, close: () => dispatcher.close() };
}

function failedAnswer(id: string, status: number, headers: Record<string, string | string[] | undefined>, body: string): DeleteResult {
  if (status >= 300 && status < 400) {
    const location = headerValue(headers['location']) ?? '(no Location header)';
    return {
      id,
      deleted: false,
      status,
      error: null,
      // Following it would hand the bearer token to wherever the server points.
      message: `the server redirected to ${parseErrorBody(status, 'text/plain', location).message}; redirects are not followed so the token stays with the base URL you chose, so fix the base URL`,
      exit: Exit.server,
      attempted: true,
    };
  }
  const details = parseErrorBody(status, headerValue(headers['content-type']), body);
  return { id, deleted: false, status, error: details.code, message: details.message, exit: exitForStatus(status), attempted: true };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Reads at most `limit` bytes, then drops the rest: a 1 GB error page must not fill
 * memory. The status already says what happened, so a body cut short by a reset or
 * the timeout still yields what arrived rather than hiding the status.
 */
async function readCapped(body: AsyncIterable<Buffer>, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      const room = limit - size;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      size += Math.min(chunk.length, room);
      if (size >= limit) break; // leaving the loop destroys the stream and its connection
    }
  } catch {
    // Keep the partial body.
  }
  return Buffer.concat(chunks).toString('utf8');
}
