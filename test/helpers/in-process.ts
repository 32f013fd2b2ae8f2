// The CLI in the test process: runCli with the test IO, the real config file code on a
// temporary folder, and a fake service in place of the HTTP transport. For the logic of the
// commands (what is stored, refused, printed, sent to which target), where spawning the
// built binary would only add a process start per case. What only a real process shows
// (signals, pipes, TLS, proxies, the wire) stays in test/e2e. A test of the HTTP layer swaps only
// the wire (InProcessOptions.http: a scripted dispatcher under the real transport). The fake service
// answers at once and takes no permits from the run's throttle (TransportRequest.gate): requests in
// flight, --rate and --fail-fast's in-flight bound are the transport's part, tested end to end.
//
// Imports only the stable entry points: src/cli.ts, src/context.ts (types), src/errors.ts,
// src/ui/io.ts and src/config/file.ts. The shape of an answer is taken from the Context
// type, so a change to it fails to compile here, in one place.
import { existsSync, lstatSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { Chalk } from 'chalk';
import { afterEach, beforeEach, expect } from 'vitest';
import { runCli, type Seams } from '../../src/cli.js';
import { type Context, type ContextParts, createContext, type TransportRequest } from '../../src/context.js';
import { CliError, Exit, UsageError } from '../../src/errors.js';
import type { Stdin } from '../../src/platform/stdin.js';
import { createTestIO } from '../../src/ui/io.js';
import { journalsOf } from './cli.js';

/** What `plantstore --version` prints in process. */
export const VERSION = '0.0.0-test';

type Transport = Awaited<ReturnType<Context['transport']>>;
/** What the fake service answers for one request: the transport's outcome for it. */
export type Answer = Awaited<ReturnType<Transport['send']>>;

export const deleted = (_id: string): Answer => ({ kind: 'ok', status: 204, body: '' });

/** A request as the fake service saw it: the method and the path under the base URL. */
export interface SeenRequest {
  method: string;
  path: string;
}

/** The fake service's answer when a test scripts none: a DELETE is done (204); any other method has no answer to give. */
function unscripted(id: string, request: SeenRequest): Answer {
  if (request.method === 'DELETE') return deleted(id);
  throw new Error(`the fake service has no answer scripted for ${request.method} ${request.path}: pass answer`);
}

/**
 * A complete answer with a failure status, as the HTTP client reports it after one attempt:
 * `error` is the API's Error code, null when the body was not an Error object. The exit
 * code follows from the status, as for a real answer.
 */
export const refused = (_id: string, answer: { status: number; error: number | null; message: string }): Answer => ({
  kind: 'failed',
  last: { kind: 'api-error', status: answer.status, code: answer.error, message: answer.message },
  attempts: 1,
  earlierAnswerLost: false,
});

export interface InProcessRun {
  /** What the process would exit with: the command's code, or that of the error it threw. */
  exit: number;
  /** The message of the error that ended the run (main prints it after "plantstore: "); undefined when none was thrown. */
  error: string | undefined;
  /** That error itself, for its class (a UsageError, say); its message is `error`, masked as main prints it. */
  thrown: CliError | undefined;
  stdout: string;
  stderr: string;
  /** Each transport() call: the endpoint, network options and throttle a run would send with. Empty when nothing was going to be sent. */
  built: TransportRequest[];
  /** Each request handed to the service, its method and path, in the order they were sent. */
  requests: SeenRequest[];
  /** The last part of each request's path (for delete, the plant ids), in the order they were sent. */
  sent: string[];
  /** How many times the command closed the fake service (a run closes each client it asked for). */
  closed: number;
}

export interface InProcessOptions {
  env?: Record<string, string>;
  /** Chunks of standard input (ended after the last). */
  stdin?: string[];
  /**
   * The service's answer for a request, handed the last part of its path (for delete, the plant
   * id) and the request. By default a DELETE is deleted (204), and any other method has no answer (the run throws).
   */
  answer?: (id: string, request: SeenRequest) => Answer;
  /**
   * The real transport over this wire, in place of the fake service (then `answer` is not asked
   * and `sent` stays empty): test/http scripts the dispatcher.
   */
  http?: ContextParts['http'];
  /** A command's run function replaced (cli.ts Seams): argv tests capture the options. */
  seams?: Seams;
}

/**
 * Call at the top of a test file: a fresh config folder per test (`dir()`), removed after it,
 * and `run` to run the CLI against it. PLANTSTORE_CONFIG_DIR is set to that folder unless
 * the env of a run says otherwise.
 */
export function inProcess() {
  let dir: string | undefined;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'plantstore-in-process-'));
  });
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  const here = (): string => {
    if (!dir) throw new Error('inProcess(): used outside a test');
    return dir;
  };

  async function run(argv: readonly string[], options: InProcessOptions = {}): Promise<InProcessRun> {
    const env: Record<string, string> = { PLANTSTORE_CONFIG_DIR: here(), ...options.env };
    // With chalk, as main has it whenever a stream may be colored: FORCE_COLOR in `env` colors the buffers.
    const io = createTestIO({ env, chalk: Chalk });
    // As main does: a token from the environment is never printed, whatever layer quotes it.
    const envToken = env['PLANTSTORE_TOKEN'];
    if (envToken) io.redact(envToken.trim());
    const built: TransportRequest[] = [];
    const requests: SeenRequest[] = [];
    const sent: string[] = [];
    let closed = 0;
    const answer = options.answer ?? unscripted;
    // The real context, config file and all; only the transport is the fake service, unless the test swaps the wire.
    const real = createContext({
      io,
      env,
      stdin: Readable.from(options.stdin ?? []) as unknown as Stdin,
      version: VERSION,
      signal: new AbortController().signal,
      ...(options.http ? { http: options.http } : {}),
    });
    const ctx: Context = {
      ...real,
      async transport(request) {
        built.push(request);
        if (options.http) return real.transport(request);
        return {
          async send({ method, path }) {
            const id = path.slice(path.lastIndexOf('/') + 1);
            requests.push({ method, path });
            sent.push(id);
            return answer(id, { method, path });
          },
          async close() {
            closed++;
          },
        };
      },
    };
    let exit: number;
    let error: string | undefined;
    let thrown: CliError | undefined;
    try {
      exit = await runCli(argv, ctx, {}, options.seams);
    } catch (caught) {
      // Anything but a CliError is a bug the test should see as such.
      if (!(caught instanceof CliError)) throw caught;
      thrown = caught;
      exit = caught.exit;
      error = io.mask(caught.message);
    }
    const result = { exit, error, thrown, stdout: io.stdout(), stderr: io.stderr(), built, requests, sent, closed };
    assertNoTokenLeak(argv, env, options.stdin, result);
    return result;
  }

  const file = () => path.join(here(), 'config.json');
  return {
    run,
    /** This test's config folder. */
    dir: here,
    /** The config file in it. */
    file,
    /** What the config file holds, parsed; undefined while there is none. */
    stored: (): StoredConfig | undefined => (existsSync(file()) ? (JSON.parse(readFileSync(file(), 'utf8')) as StoredConfig) : undefined),
  };
}

/** The config file as JSON: the settings of each profile. */
export interface StoredConfig {
  profiles?: Record<string, { token?: string; 'base-url'?: string }>;
}

/** The run ended with a UsageError (exit 2) whose message, on one line, matches. */
export function expectUsageError(run: InProcessRun, message: RegExp): void {
  expect(run.thrown).toBeInstanceOf(UsageError);
  expect(run.exit).toBe(Exit.usage);
  expect(run.error).toMatch(message);
  expect(run.error).not.toContain('\n');
}

/**
 * The same sweep test/helpers/cli.ts makes over every spawned run: a token handed in through
 * the environment or standard input never comes back out, except from `auth token`, and is
 * never written into the journal of a `--journal FILE` run.
 */
export function assertNoTokenLeak(
  argv: readonly string[],
  env: Record<string, string>,
  stdin: string[] | undefined,
  run: Pick<InProcessRun, 'stdout' | 'stderr' | 'error'>,
): void {
  const secrets = [env['PLANTSTORE_TOKEN'], stdin?.join('').trim()].filter((s): s is string => !!s && s.length >= 8 && !/\s/.test(s));
  const printsToken = argv.includes('auth') && argv.includes('token');
  const shown = printsToken ? [run.stderr, run.error ?? ''] : [run.stdout, run.stderr, run.error ?? ''];
  // Regular files only: a test may plant a FIFO (which would block the read), a folder or a symlink there.
  const journals = journalsOf(argv).filter((file) => lstatSync(file, { throwIfNoEntry: false })?.isFile());
  for (const secret of secrets) {
    if (shown.some((text) => text.includes(secret))) throw new Error(`plantstore ${argv.join(' ')} printed the token it was given`);
    for (const file of journals) {
      if (readFileSync(file, 'utf8').includes(secret))
        throw new Error(`plantstore ${argv.join(' ')} wrote the token it was given into ${file}`);
    }
  }
}
