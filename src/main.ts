import { fstatSync, readFileSync } from 'node:fs';
import pkg from '../package.json' with { type: 'json' };
import type { Reached } from './cli.js';
import { typedBeforeOperands } from './platform/argv.js';
import type { Stdin } from './platform/stdin.js';
import { errnoWords } from './text/errno.js';
import { orderedStreams } from './ui/streams.js';

/**
 * The process edge: the only module that touches `process`. It imports almost
 * nothing up front, so `plantstore --version` answers before commander, chalk or
 * any command is loaded; everything else is loaded once we know it is needed.
 */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const version = versionAsked(argv);
  if (version !== undefined) {
    process.stdout.write(version === 'json' ? `${JSON.stringify({ version: pkg.version, node: process.version })}\n` : `${pkg.version}\n`);
    return;
  }
  // Under npx the help names `npx plantstore …` (ui/io.ts npxHints), so commander writes it.
  if (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h') && process.env['npm_command'] !== 'exec') {
    const help = prebuiltHelp();
    if (help !== undefined) {
      process.stdout.write(help);
      return;
    }
  }
  // --no-color is read here, before commander: an error it raises while parsing (an unknown
  // option) is printed before any command could turn color off.
  const noColor = typedBeforeOperands(argv, '--no-color');
  // chalk is loaded only when some stream may be colored: scripts and CI runs skip it.
  const mayColor = !noColor && (process.stdout.isTTY === true || process.stderr.isTTY === true || process.env['FORCE_COLOR'] !== undefined);
  const [
    { runCli, fatalFieldsOf, createContext, Exit, exitForSignal, argvWantsJson, reportFatal, createIO, READER_GRACE_MS, learnTokensAtRest },
    chalk,
  ] = await Promise.all([import('./run-parts.js'), mayColor ? import('chalk') : undefined]);
  // Keep V8's young generation at its starting size. A batch run keeps thousands of
  // short-lived request objects in flight, and V8 otherwise grows new space to 128 MB
  // for them; with this, a million deletions peak well under 200 MB at the same speed.
  // (getBuiltinModule, not import(): an import has Node build node:v8's ES module facade, which loads more.)
  const v8 = process.getBuiltinModule('node:v8');
  v8.setFlagsFromString('--semi-space-growth-factor=1');
  // Keep undici's HTTP parser (llhttp, WebAssembly) on V8's baseline code for a few more
  // answers. By default V8 recompiles it with its optimizing compiler after a handful, on a
  // background thread: about 40 ms of CPU, which the process then waits for at exit (a delete
  // of 10 ids took 98 ms where one took 64; with this, 74). The budget is V8's rough count of
  // bytes run before a function is optimized (default 13,000,000), read when the parser is
  // instantiated, at the first connection. At 50,000,000 a run of 30 ids or more still pays
  // the recompilation, and a long batch runs as fast in as little memory as before; 150 times
  // the default spared runs of 100 ids too, but a long batch then peaked 12-14 MB higher (the
  // 1,000,000-id resume went over 200 MB).
  v8.setFlagsFromString('--wasm-tiering-budget=50000000');

  // Results that cannot be written (stdout on a full disk) must not pass for success. Messages
  // on stderr are for people: losing them changes nothing, as when its reader leaves.
  let outputLost = false;
  const verbose = process.env['PLANTSTORE_DEBUG'] === '1' || typedBeforeOperands(argv, '--verbose') || typedBeforeOperands(argv, '-v');
  const streams = orderedStreams(process.stdout, process.stderr, (error, stream) => {
    if (stream !== 'stdout') return;
    outputLost = true;
    const why = error.code === undefined ? error.message : `${errnoWords(error.code)}${verbose ? ` (${error.code})` : ''}`;
    process.stderr.write(
      `plantstore: cannot write the output: ${why}; the results from here on are lost, so the exit code is ${Exit.internal}: send stdout where it can be written, and run again\n`,
    );
    if (!process.exitCode) process.exitCode = Exit.internal;
  });
  const stdout = { ...streams.stdout, backlog: streams.backlog };
  const io = createIO(stdout, streams.stderr, process.stdin.isTTY === true, process.env, chalk?.Chalk);
  if (noColor) io.disableColor();
  const envToken = process.env['PLANTSTORE_TOKEN'];
  if (envToken) io.redact(envToken.trim());
  const interrupt = new AbortController();
  listenForInterrupts(interrupt, streams.flush, exitForSignal);
  const ctx = createContext({
    io,
    env: process.env,
    stdin: Object.assign(process.stdin, { isDirectory: stdinIsDirectory }) as unknown as Stdin,
    version: pkg.version,
    signal: interrupt.signal,
  });
  let exit: number;
  const reached: Reached = {};
  try {
    exit = await runCli(argv, ctx, reached);
  } catch (error) {
    // The run may have stopped before it learned its token: mask those kept on this machine too.
    learnTokensAtRest(process.env, argv, io.redact);
    exit = reportFatal(error, io, {
      json: argvWantsJson(argv),
      debug: process.env['PLANTSTORE_DEBUG'] === '1',
      verbose,
      jsonFields: fatalFieldsOf(reached),
      interrupt: interrupt.signal,
    });
  }
  streams.flush();
  // Commands only know they were interrupted; the signal decides the conventional code (128 + n).
  // Results lost outrank any other outcome but a signal: a script cannot trust what it read.
  if (outputLost && exit !== Exit.interrupted) exit = Exit.internal;
  process.exitCode = exit === Exit.interrupted ? exitForSignal(interrupt.signal.reason) : exit;
  if (interrupt.signal.aborted) leaveWithoutWaitingForReaders(process.exitCode, READER_GRACE_MS);
}

/**
 * `--version` (or `-V`) alone: the bare version; with `--json`, in either order, the
 * object a bug report wants. Anything more goes through commander (cli.ts), which
 * answers the same.
 */
function versionAsked(argv: readonly string[]): 'plain' | 'json' | undefined {
  const isVersion = (word: string | undefined): boolean => word === '--version' || word === '-V';
  if (argv.length === 1 && isVersion(argv[0])) return 'plain';
  if (argv.length === 2 && argv.includes('--json') && argv.some(isVersion)) return 'json';
  return undefined;
}

// After a signal, the report is written and the process should end, not wait for a reader
// that stopped reading for longer than the grace (see READER_GRACE_MS in ui/io.ts).
function leaveWithoutWaitingForReaders(code: number, graceMs: number): void {
  if (process.stdout.writableLength === 0 && process.stderr.writableLength === 0) return;
  // Unref'd: when the reader does take the rest within the grace, the process ends then.
  setTimeout(() => process.exit(code), graceMs).unref();
}

/** Asked only by a command about to read stdin: one fstat, not paid by every run. */
function stdinIsDirectory(): boolean {
  try {
    return fstatSync(0).isDirectory();
  } catch {
    return false;
  }
}

/** The top-level help, captured from commander at build time; absent when running from source. */
function prebuiltHelp(): string | undefined {
  try {
    return readFileSync(new URL('help.txt', import.meta.url), 'utf8');
  } catch {
    return undefined;
  }
}

// First Ctrl-C, SIGTERM or SIGHUP: abort in-flight work so the command can report what was
// done (SIGHUP's default would kill the run mid-batch with no report, and leave a hidden
// prompt's terminal without echo). Second signal of any kind: leave at once, with what was
// already printed written out, and the first signal's code: the --json lines and the journal
// already say it (SIGTERM then Ctrl-C is 143, not 130).
function listenForInterrupts(controller: AbortController, flush: () => void, exitForSignal: (signal: unknown) => number): void {
  const onSignal = (signal: NodeJS.Signals): void => {
    if (controller.signal.aborted) {
      flush();
      process.exit(exitForSignal(controller.signal.reason));
    }
    controller.abort(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
}

await main();
