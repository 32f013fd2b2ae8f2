// A second operation, in the test suite only (issue 42, "Done means"): a read, GET /plants/{id},
// with its own words. 200 is "read", a 404 Error object is "not found"; it destroys nothing, so
// the guard never meets it. It is what a next engineer adding a verb would write against the
// engine's contract (src/engine/operation.ts), and nothing more.

import { whyNotSent } from '../../src/engine/not-sent.js';
import type { EarlierState, Operation, Results } from '../../src/engine/operation.js';
import { Exit, type ExitCode } from '../../src/errors.js';
import { verdictOf } from '../../src/http/classify.js';
import { ERROR_BODY_BYTES } from '../../src/http/outcome.js';
import { describeAttempt, describeFailed } from '../../src/ui/transport-words.js';

export type ReadResult =
  | { id: string; kind: 'read'; status: number }
  | { id: string; kind: 'not-found'; status: number }
  | { id: string; kind: 'failed'; status: number | null; message: string; exit: ExitCode }
  | { id: string; kind: 'not-sent'; message: string; exit: ExitCode }
  | { id: string; kind: 'skipped'; earlier: EarlierState };

const KIND = { read: 'done', 'not-found': 'absent', failed: 'failed', 'not-sent': 'not-sent', skipped: 'skipped' } as const;

export const READ_RESULTS: Results<ReadResult> = {
  // No "in flight": a read whose answer was lost changed nothing, and asking again settles it.
  states: {
    done: { word: 'read', key: 'read' },
    absent: { word: 'not found', key: 'notFound' },
    failed: { word: 'failed', key: 'failed' },
    'not-sent': { word: 'not asked', key: 'notAsked' },
    skipped: { word: 'read before (journal)', key: 'readBefore' },
  },
  kindOf: (result) => KIND[result.kind],
  exitOf: (result) => ('exit' in result ? result.exit : undefined),
  asInFlight: (result) => result,
  withExit: (result, exit) => ('exit' in result ? { ...result, exit } : result),
  afterUncertain: () => false,
  tokenRefused: (result) => result.kind === 'failed' && result.exit === Exit.auth,
  notSent: (id, message, exit) => ({ id, kind: 'not-sent', message, exit }),
  skipped: (id, earlier) => ({ id, kind: 'skipped', earlier }),
  journalDetails: (result) => ({
    status: 'status' in result ? result.status : null,
    ...('message' in result ? { error: null, message: result.message } : {}),
  }),
  json: (result, mask) => {
    const fields = [`"id":${result.id}`, `"${result.kind}":true`];
    if ('status' in result) fields.push(`"status":${result.status}`);
    if ('message' in result) fields.push(`"message":${JSON.stringify(mask(result.message))}`, `"exit":${result.exit}`);
    return `{${fields.join(',')}}`;
  },
  line: (_io, result) => {
    switch (result.kind) {
      case 'read':
        return `Read plant ${result.id}`;
      case 'not-found':
        return `Plant ${result.id} not found`;
      case 'skipped':
        return `Plant ${result.id} read before (journal)`;
      default:
        return `✗ plant ${result.id}: ${result.message}`;
    }
  },
};

export const READ_OPERATION: Operation<ReadResult> = {
  destructive: false,
  // Asking again changes nothing.
  repeatable: true,
  request: (id) => ({ method: 'GET', path: `/plants/${id}` }),
  async send(transport, id, interrupt) {
    const outcome = await transport.send(
      { method: 'GET', path: `/plants/${id}`, label: id, successBody: 'read', bodyLimitBytes: ERROR_BODY_BYTES },
      interrupt,
    );
    if (outcome.kind === 'ok') return { id, kind: 'read', status: outcome.status };
    if (outcome.kind === 'not-sent') return { id, kind: 'not-sent', ...whyNotSent(outcome.reason) };
    const { last } = outcome;
    if (last.kind === 'api-error' && last.status === 404 && last.code !== null) return { id, kind: 'not-found', status: 404 };
    return {
      id,
      kind: 'failed',
      status: last.status ?? null,
      message: describeFailed(outcome, describeAttempt),
      exit: verdictOf(last).exit,
    };
  },
  results: READ_RESULTS,
  words: { verb: 'read', command: 'get', doing: 'reading', finishWithoutJournal: () => 'run it again to read the rest' },
  describeAttempt,
};
