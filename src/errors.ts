// The exit-code table is a public contract (README, --help, the man page): scripts branch
// on these numbers, so a code never changes meaning once released. It is written once,
// here; `Exit`, the help's list and the man page's are read from it, and a test holds the
// README's table to it.
const EXIT_TABLE = [
  ['ok', 0, 'success: every request did what was asked'],
  ['apiRefused', 1, 'the API refused (400 with an Error object, or another 4xx)'],
  ['usage', 2, 'invalid command line or id'],
  ['config', 3, 'configuration: base URL missing or invalid, config file unreadable, unsupported Node'],
  ['auth', 4, 'authentication: no token, a token command that failed, or the server answered 401/403'],
  ['notFound', 5, 'the server answered 404'],
  ['server', 6, 'server failure: 5xx, 429, a redirect, a malformed answer, or a web page instead of the API'],
  ['network', 7, 'network: DNS, connection refused or reset, TLS, proxy'],
  ['timeout', 8, 'timeout'],
  /** --max-deletes, or the question at a terminal not answered with the count: nothing was sent. */
  ['refused', 9, 'nothing sent: refused by a limit you set'],
  /** --max-duration: the ids in flight finished, the rest were not sent; with --journal the same command goes on. */
  ['stoppedAtTime', 10, 'stopped at the time you set; run the same command again to go on'],
  ['internal', 70, 'internal error (a bug): please report it'],
  /** SIGHUP: the terminal went away (an ssh session closed mid-run). */
  ['hangup', 129, 'hung up (SIGHUP: the terminal closed)'],
  ['interrupted', 130, 'interrupted (Ctrl-C)'],
  ['terminated', 143, 'terminated (SIGTERM)'],
] as const;

type ExitRow = (typeof EXIT_TABLE)[number];

/** Each code by name: `Exit.auth` is 4. */
export const Exit = Object.freeze(Object.fromEntries(EXIT_TABLE.map(([name, code]) => [name, code]))) as {
  readonly [Row in ExitRow as Row[0]]: Row[1];
};

export type ExitCode = ExitRow[1];

/** Every code with its meaning, in the order --help and the README list them. */
export const EXIT_CODE_HELP: ReadonlyArray<readonly [ExitCode, string]> = EXIT_TABLE.map(([, code, meaning]) => [code, meaning]);

/** An error the user can act on: its message is printed as is, in one line. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exit: ExitCode,
    /** What --verbose adds to the line, such as the system's code (ENOENT) behind words like "no such file". */
    readonly detail?: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class UsageError extends CliError {
  constructor(message: string) {
    super(message, Exit.usage);
  }
}

export class ConfigError extends CliError {
  constructor(message: string, detail?: string) {
    super(message, Exit.config, detail);
  }
}

export class AuthError extends CliError {
  constructor(message: string, detail?: string) {
    super(message, Exit.auth, detail);
  }
}

/** 128 + the signal's number, as shells report a process the signal ended: the run's code, and each id's. */
export function exitForSignal(signal: unknown): ExitCode {
  return signal === 'SIGTERM' ? Exit.terminated : signal === 'SIGHUP' ? Exit.hangup : Exit.interrupted;
}

export class InterruptedError extends CliError {
  constructor(message = 'interrupted') {
    super(message, Exit.interrupted);
  }
}

/**
 * The error a bad value deserves: typed on this command line, a usage error (exit 2); from
 * the environment, a profile or a file, a configuration error (exit 3). The one place that
 * choice is made.
 */
export function badValue(message: string, onCommandLine: boolean): CliError {
  return onCommandLine ? new UsageError(message) : new ConfigError(message);
}
