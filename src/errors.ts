// The exit-code table is a public contract (README, --help): scripts branch on
// these numbers, so a code never changes meaning once released.
export const Exit = {
  ok: 0,
  apiRefused: 1,
  usage: 2,
  config: 3,
  auth: 4,
  notFound: 5,
  server: 6,
  network: 7,
  timeout: 8,
  internal: 70,
  /** SIGHUP: the terminal went away (an ssh session closed mid-run). */
  hangup: 129,
  interrupted: 130,
  terminated: 143,
} as const;

export type ExitCode = (typeof Exit)[keyof typeof Exit];

export const EXIT_CODE_HELP: ReadonlyArray<readonly [ExitCode, string]> = [
  [Exit.ok, 'every plant deleted'],
  [Exit.apiRefused, 'the API refused (400 with an Error object, or another 4xx)'],
  [Exit.usage, 'invalid command line or id'],
  [Exit.config, 'configuration: base URL missing or invalid, config file unreadable, unsupported Node'],
  [Exit.auth, 'authentication: no token, or the server answered 401/403'],
  [Exit.notFound, 'the server answered 404'],
  [Exit.server, 'server failure: 5xx, 429, a redirect, a malformed answer, or a web page instead of the API'],
  [Exit.network, 'network: DNS, connection refused or reset, TLS, proxy'],
  [Exit.timeout, 'timeout'],
  [Exit.internal, 'internal error (a bug): please report it'],
  [Exit.hangup, 'hung up (SIGHUP: the terminal closed)'],
  [Exit.interrupted, 'interrupted (Ctrl-C)'],
  [Exit.terminated, 'terminated (SIGTERM)'],
];

/** An error the user can act on: its message is printed as is, in one line. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exit: ExitCode,
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
  constructor(message: string) {
    super(message, Exit.config);
  }
}

export class AuthError extends CliError {
  constructor(message: string) {
    super(message, Exit.auth);
  }
}

export class InterruptedError extends CliError {
  constructor(message = 'interrupted') {
    super(message, Exit.interrupted);
  }
}
