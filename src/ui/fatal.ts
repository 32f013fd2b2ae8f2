import { CliError, Exit, type ExitCode, exitForSignal } from '../errors.js';
import { typedBeforeOperands } from '../platform/argv.js';
import { jsonOnOneLine, shown } from '../text/shown.js';
import type { IO } from './io.js';

export interface FatalOptions {
  json: boolean;
  debug: boolean;
  /** --verbose: the error's detail (the errno behind "no such file") is added to the line. */
  verbose?: boolean;
  /** What the command that failed adds to the JSON object (delete: `deleted:false`, which its scripts test for). */
  jsonFields?: Readonly<Record<string, boolean | number | string>>;
  /** The run's interrupt: a run a signal ended says that signal's code (130, 143 or 129) in its JSON, as the process exits. */
  interrupt?: AbortSignal;
}

/** The one object printed when a run stops before any request (usage, configuration). */
export function fatalJson(exit: ExitCode, message: string, fields: FatalOptions['jsonFields'] = {}): string {
  return jsonOnOneLine(JSON.stringify({ ...fields, exit, message }));
}

/**
 * Prints an error that ended the run, in one line (and as one JSON object with --json);
 * returns its exit code. Tokens are scrubbed by the IO itself (io.redact), like every line.
 */
export function reportFatal(error: unknown, io: IO, options: FatalOptions): ExitCode {
  const known = error instanceof CliError;
  const exit = known ? error.exit : Exit.internal;
  const raw = known
    ? `${error.message}${options.verbose && error.detail ? ` (${error.detail})` : ''}`
    : `internal error: ${error instanceof Error ? error.message : String(error)}; please report it, with the command you ran (PLANTSTORE_DEBUG=1 shows details)`;
  // One line, and whatever values the message quotes (a path, an id from stdin) unable to steer the terminal.
  const message = shown(raw.replace(/\s*\n\s*/g, ' '));
  const interrupt = options.interrupt;
  const shownExit = exit === Exit.interrupted && interrupt?.aborted ? exitForSignal(interrupt.reason) : exit;
  if (options.json) io.outJson(fatalJson(shownExit, io.mask(message), options.jsonFields));
  io.err(`${io.errStyle().red('plantstore:')} ${message}`);
  if (!known && options.debug && error instanceof Error && error.stack) {
    io.err(error.stack);
  }
  return exit;
}

/** --json must shape even the errors commander raises before any option is parsed. */
export function argvWantsJson(argv: readonly string[]): boolean {
  return typedBeforeOperands(argv, '--json');
}
