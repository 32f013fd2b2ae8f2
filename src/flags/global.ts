import { RETRIED_STATUSES } from '../http/classify.js';
import { Flag } from './flag.js';
import { baseUrl, profileName, seconds, text, wholeNumber } from './kinds.js';

// The program's own options: accepted before or after any command. Each command
// lists the ones it reads (its help shows those), and reads them through a
// FlagReader; adding one here and to the commands that read it is the whole change.

export const PROFILE = Flag.valued(
  {
    key: 'profile',
    flags: '--profile <name>',
    help: 'use a named profile',
    env: 'PLANTSTORE_PROFILE',
    envHelp: 'the profile',
    default: 'default',
    completes: { kind: 'profiles' },
  },
  profileName,
);

export const BASE_URL = Flag.valued(
  {
    key: 'baseUrl',
    flags: '--base-url <url>',
    help: 'service base URL',
    env: 'PLANTSTORE_BASE_URL',
    envHelp: 'the service base URL',
    profileKey: 'base-url',
  },
  baseUrl,
);

export const JSON_OUTPUT = Flag.switch({ key: 'json', flags: '--json', help: 'write JSON to stdout (one object per line)' });

export const QUIET = Flag.switch({ key: 'quiet', flags: '-q, --quiet', help: 'print nothing on success' });

/**
 * True unless --no-color is given (commander's negated flag). main.ts also looks for
 * it before commander runs, so that commander's own errors come out uncolored too.
 */
export const COLOR = Flag.switch({
  key: 'color',
  flags: '--no-color',
  help: 'never use color (also NO_COLOR, TERM=dumb; FORCE_COLOR forces it)',
});

/** Below this no attempt could even connect. */
const MIN_TIMEOUT_SECONDS = 0.01;

export const TIMEOUT = Flag.valued(
  {
    key: 'timeout',
    flags: '--timeout <time>',
    help: 'give up on an attempt after this long (30s, 500ms; a bare number is seconds)',
    env: 'PLANTSTORE_TIMEOUT',
    envHelp: 'how long an attempt may take, like --timeout',
    default: '30',
  },
  seconds({ seconds: MIN_TIMEOUT_SECONDS, of: 'timeout' }),
);

export const RETRIES = Flag.valued(
  {
    key: 'retries',
    flags: '--retries <n>',
    // The statuses from the one table (http/classify.ts): a change of retry rule changes the help with it.
    help: `retries on refused/reset connections, timeouts, ${RETRIED_STATUSES.join('/')}`,
    env: 'PLANTSTORE_RETRIES',
    envHelp: 'retries of a failed attempt',
    default: '2',
  },
  wholeNumber(0, 10),
);

export const MAX_RETRY_WAIT = Flag.valued(
  {
    key: 'maxRetryWait',
    flags: '--max-retry-wait <time>',
    help: 'longest wait before a retry (30s, 2m; a bare number is seconds)',
    env: 'PLANTSTORE_MAX_RETRY_WAIT',
    envHelp: 'the longest wait before a retry, like --max-retry-wait',
    default: '30',
  },
  seconds(),
);

export const CACERT = Flag.valued(
  {
    key: 'cacert',
    flags: '--cacert <file>',
    help: 'also trust the CA certificates in this PEM file',
    env: 'PLANTSTORE_CA_CERT',
    envHelp: 'extra CA certificates (PEM); also NODE_EXTRA_CA_CERTS',
    completes: { kind: 'files' },
  },
  // The path: the command reads the bundle when it needs it (config/ca-bundle.ts).
  text,
);

export const TOKEN_FILE = Flag.valued(
  {
    key: 'tokenFile',
    flags: '--token-file <path>',
    help: 'read the token from this file',
    env: 'PLANTSTORE_TOKEN_FILE',
    envHelp: 'a file holding the token',
    completes: { kind: 'files' },
  },
  text,
);

export const VERBOSE = Flag.switch({
  key: 'verbose',
  flags: '-v, --verbose',
  help: 'trace requests and answers to stderr, token masked',
  env: 'PLANTSTORE_DEBUG',
  envHelp: 'like --verbose, and the stack of an internal error',
});

/** In the order --help lists them. */
export const GLOBAL_FLAGS = [
  PROFILE,
  BASE_URL,
  JSON_OUTPUT,
  QUIET,
  COLOR,
  TIMEOUT,
  RETRIES,
  MAX_RETRY_WAIT,
  CACERT,
  TOKEN_FILE,
  VERBOSE,
] as const;

/** Variables no flag stands for, for the Environment section of --help: listed before the flags' own. */
export const VARIABLES_FIRST: ReadonlyArray<readonly [string, string]> = [
  ['PLANTSTORE_TOKEN', 'the bearer token; no config file is needed with it'],
  ['PLANTSTORE_TOKEN_COMMAND', 'a command that prints the token, run when one is needed (words, not a shell)'],
  ['PLANTSTORE_CONFIG_DIR', 'the folder of config.json'],
];

/** …and after them. */
export const VARIABLES_LAST: ReadonlyArray<readonly [string, string]> = [
  ['https_proxy, http_proxy', 'proxies, read as curl reads them; also HTTPS_PROXY, ALL_PROXY, NO_PROXY'],
  ['NO_COLOR, FORCE_COLOR', 'no color / color even when not a terminal'],
];
