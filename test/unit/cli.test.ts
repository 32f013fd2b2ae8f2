import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { Chalk } from 'chalk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { type ConfigFile, openConfig } from '../../src/config/file.js';
import type { ApiRequest, Context, Stdin } from '../../src/context.js';
import { CliError, Exit, UsageError } from '../../src/errors.js';
import type { PlantApi } from '../../src/http/client.js';
import type { PlantOutcome } from '../../src/http/outcome.js';
import { createTestIO, type Env, type TestIO } from '../../src/ui/io.js';

/** What the fake server's answer becomes in the HTTP layer: a complete answer with a failure status. */
const apiError = (id: string, status: number, code: number | null, message: string): PlantOutcome => ({
  kind: 'failed',
  id,
  last: { kind: 'api-error', status, code, message },
  attempts: 1,
  earlierAnswerLost: false,
});

const VERSION = '9.8.7';
const TOKEN = 'sandbox-token-0123456789';
const BASE = 'https://api.example.com';

let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plantstore-cli-'));
});

afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Run {
  exit: number | undefined;
  error: unknown;
  stdout: string;
  stderr: string;
  /** Options each api() call was built with; empty when nothing was going to be sent. */
  built: ApiRequest[];
  /** Ids handed to deletePlant, in order. */
  sent: string[];
  closed: number;
}

interface RunOptions {
  env?: Record<string, string>;
  stdin?: string[];
  stdinIsTTY?: boolean;
  /** What the fake server answers for an id; deleted with 204 by default. */
  answer?: (id: string) => PlantOutcome;
}

async function run(argv: string[], options: RunOptions = {}): Promise<Run> {
  const env: Env = { PLANTSTORE_CONFIG_DIR: dir, ...options.env };
  const io: TestIO = createTestIO({ env, stdinIsTTY: options.stdinIsTTY ?? false, chalk: Chalk });
  const record: Pick<Run, 'built' | 'sent' | 'closed'> = { built: [], sent: [], closed: 0 };
  let config: ConfigFile | undefined;
  const answer = options.answer ?? ((id: string): PlantOutcome => ({ kind: 'deleted', id, status: 204 }));
  const ctx: Context = {
    io,
    env,
    stdin: Readable.from(options.stdin ?? []) as unknown as Stdin,
    version: VERSION,
    signal: new AbortController().signal,
    config: () => (config ??= openConfig(env, (line) => io.err(line))),
    async api(apiOptions): Promise<PlantApi> {
      record.built.push(apiOptions);
      return {
        async deletePlant(id) {
          record.sent.push(id);
          return answer(id);
        },
        async close() {
          record.closed++;
        },
      };
    },
  };
  let exit: number | undefined;
  let error: unknown;
  try {
    exit = await runCli(argv, ctx);
  } catch (thrown) {
    error = thrown;
  }
  return { exit, error, stdout: io.stdout(), stderr: io.stderr(), ...record };
}

/** The env of a run that can reach the (fake) service. */
const READY = { PLANTSTORE_BASE_URL: BASE, PLANTSTORE_TOKEN: TOKEN };

function expectUsageError(result: Run, message: RegExp): void {
  expect(result.exit).toBeUndefined();
  expect(result.error).toBeInstanceOf(UsageError);
  expect((result.error as UsageError).exit).toBe(Exit.usage);
  expect((result.error as UsageError).message).toMatch(message);
  expect((result.error as UsageError).message).not.toContain('\n');
}

function storedConfig(): { profiles?: Record<string, { token?: string; 'base-url'?: string }> } | undefined {
  const file = path.join(dir, 'config.json');
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as ReturnType<typeof storedConfig>) : undefined;
}

describe('argv errors are usage errors (exit 2) and send nothing', () => {
  it.each<[string, string[], RegExp]>([
    ['no command', [], /a command is missing/],
    ['unknown command', ['frobnicate'], /unknown command 'frobnicate'/],
    ['unknown command with a suggestion', ['delet', '1'], /unknown command 'delet' \(did you mean delete\?\)/],
    ['unknown option with a suggestion', ['delete', '--jsn', '1'], /unknown option '--jsn' \(did you mean --json\?\)/],
    ['unknown global option', ['--frob', 'delete', '1'], /unknown option '--frob'/],
    ['delete without an id', ['delete'], /no plant id given/],
    ['one bad id among good ones', ['delete', '1', 'abc'], /invalid plant id 'abc'/],
    ['a bad id after the good ones', ['delete', '1', '2', '1.5'], /invalid plant id '1\.5'/],
    ['an out-of-range id', ['delete', '9223372036854775808'], /out of range/],
    ['a bad --timeout', ['--timeout', 'soon', 'delete', '1'], /invalid --timeout 'soon'/],
    ['--timeout without a value', ['delete', '1', '--timeout'], /argument missing/],
    [
      'a --timeout below the minimum',
      ['--timeout', '0.0001', 'delete', '1'],
      /^invalid --timeout '0\.0001': the shortest timeout is 0\.01 seconds/,
    ],
    ['a --timeout of 0', ['delete', '1', '--timeout', '0'], /^invalid --timeout '0': the shortest timeout is 0\.01 seconds/],
  ])('%s', async (_name, argv, message) => {
    const result = await run(argv, { env: READY });
    expectUsageError(result, message);
    expect(result.built).toEqual([]);
    expect(result.sent).toEqual([]);
    expect(result.stdout).toBe('');
  });

  it('a PLANTSTORE_TIMEOUT below the minimum is a configuration error (exit 3)', async () => {
    const result = await run(['delete', '1'], { env: { ...READY, PLANTSTORE_TIMEOUT: '0.009' } });
    expect(result.error).toBeInstanceOf(CliError);
    expect((result.error as CliError).exit).toBe(Exit.config);
    expect((result.error as CliError).message).toBe(
      "invalid PLANTSTORE_TIMEOUT '0.009': the shortest timeout is 0.01 seconds (10 ms); give a number of seconds such as 30 or 2.5",
    );
    expect(result.built).toEqual([]);
  });

  it('points to --help', async () => {
    const result = await run(['delete', '--jsn', '1'], { env: READY });
    expect((result.error as Error).message).toMatch(/see plantstore --help\)?$/);
  });
});

describe('argv reaches the delete command', () => {
  it.each<[string, string[], string[]]>([
    ['one id', ['delete', '42'], ['42']],
    ['several ids, in order, duplicates dropped', ['delete', '3', '1', '3', '007'], ['3', '1', '7']],
    ['a negative id', ['delete', '-5'], ['-5']],
    ['a negative id after --', ['delete', '--', '-5'], ['-5']],
    ['int64 max exactly', ['delete', '9223372036854775807'], ['9223372036854775807']],
  ])('%s', async (_name, argv, sent) => {
    const result = await run(argv, { env: READY });
    expect(result.error).toBeUndefined();
    expect(result.exit).toBe(0);
    expect(result.sent).toEqual(sent);
    expect(result.closed).toBe(1);
  });

  it.each<[string, string[], Partial<ApiRequest>]>([
    [
      'defaults',
      ['delete', '1'],
      {
        network: { timeoutMs: 30_000, retries: 2, maxRetryWaitMs: 30_000 },
        verbose: false,
        target: { profile: 'default', baseUrl: BASE, token: TOKEN },
      },
    ],
    ['--timeout before the command', ['--timeout', '2.5', 'delete', '1'], { network: expect.objectContaining({ timeoutMs: 2_500 }) }],
    ['--timeout after the ids', ['delete', '1', '--timeout', '7'], { network: expect.objectContaining({ timeoutMs: 7_000 }) }],
    ['--timeout at the minimum', ['delete', '1', '--timeout', '0.01'], { network: expect.objectContaining({ timeoutMs: 10 }) }],
    [
      '--retries and --max-retry-wait',
      ['delete', '1', '--retries', '0', '--max-retry-wait', '5'],
      { network: expect.objectContaining({ retries: 0, maxRetryWaitMs: 5_000 }) },
    ],
    ['--verbose', ['--verbose', 'delete', '1'], { verbose: true }],
    [
      '--base-url',
      ['--base-url', 'https://other.example.com/v2/', 'delete', '1'],
      { target: { profile: 'default', baseUrl: 'https://other.example.com/v2', token: TOKEN } },
    ],
    ['--profile', ['delete', '--profile', 'work', '1'], { target: { profile: 'work', baseUrl: BASE, token: TOKEN } }],
  ])('%s', async (_name, argv, expected) => {
    const result = await run(argv, { env: READY });
    expect(result.error).toBeUndefined();
    expect(result.built).toHaveLength(1);
    expect(result.built[0]).toMatchObject(expected);
  });

  it.each<[string, string[]]>([
    ['--json before the command', ['--json', 'delete', '1', '2']],
    ['--json after the ids', ['delete', '1', '2', '--json']],
  ])('%s: one JSON object per id on stdout', async (_name, argv) => {
    const result = await run(argv, { env: READY });
    expect(result.exit).toBe(0);
    expect(result.stdout).toBe('{"id":1,"deleted":true,"status":204}\n{"id":2,"deleted":true,"status":204}\n');
    // Human text, here the summary of a multi-id run, stays on stderr.
    expect(result.stderr).toMatch(/^2 deleted, 0 already absent, 0 failed, 0 not attempted in \d+\.\ds\n$/);
  });

  it.each([['--quiet'], ['-q']])('%s: nothing printed on success', async (flag) => {
    const result = await run(['delete', flag, '1', '2'], { env: READY });
    expect(result.exit).toBe(0);
    expect(result.sent).toEqual(['1', '2']);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('');
  });

  it('without flags: one human line per id', async () => {
    const result = await run(['delete', '1', '2'], { env: READY });
    expect(result.stdout).toBe('Deleted plant 1\nDeleted plant 2\n');
  });

  it('the first failing id decides the exit code, and every id is still tried', async () => {
    const answer = (id: string): PlantOutcome =>
      id === '2'
        ? apiError(id, 404, null, 'Not Found')
        : id === '3'
          ? apiError(id, 400, 13, 'plant 3 is protected')
          : { kind: 'deleted', id, status: 204 };
    const result = await run(['delete', '1', '2', '3'], { env: READY, answer });
    expect(result.exit).toBe(Exit.notFound);
    expect(result.sent).toEqual(['1', '2', '3']);
    expect(result.stderr).toMatch(
      // A 404 without the API's Error object carries the hint that the base URL may be wrong.
      /^✗ plant 2: Not Found; the answer is not the API's Error object, so the base URL may be wrong \(check it with plantstore auth status\) \(HTTP 404\)\n✗ plant 3: error 13: plant 3 is protected \(HTTP 400\)\n\d+ deleted, 0 already absent, 2 failed, 0 not attempted in \d+\.\ds\n$/,
    );
  });

  describe('--no-color', () => {
    const refuse = (id: string): PlantOutcome => apiError(id, 400, 1, 'no');
    // FORCE_COLOR turns color on for the buffers, so the flag has something to turn off.
    const env = { ...READY, FORCE_COLOR: '1' };

    it('colors the failure mark without the flag (the control case)', async () => {
      const result = await run(['delete', '5'], { env, answer: refuse });
      expect(result.stderr).toContain('\u001b[');
    });

    it.each([
      ['before the command', ['--no-color', 'delete', '5']],
      ['after the id', ['delete', '5', '--no-color']],
    ])('%s: no escape codes at all', async (_name, argv) => {
      const result = await run(argv, { env, answer: refuse });
      expect(result.exit).toBe(1);
      expect(result.stderr).toBe('✗ plant 5: error 1: no (HTTP 400)\n');
    });
  });

  it('a missing base URL is exit 3 before anything is built', async () => {
    const result = await run(['delete', '1'], { env: { PLANTSTORE_TOKEN: TOKEN } });
    expect(result.error).toBeInstanceOf(CliError);
    expect((result.error as CliError).exit).toBe(Exit.config);
    expect(result.built).toEqual([]);
  });

  it('a missing token is exit 4 before anything is built', async () => {
    const result = await run(['delete', '1'], { env: { PLANTSTORE_BASE_URL: BASE } });
    expect((result.error as CliError).exit).toBe(Exit.auth);
    expect(result.built).toEqual([]);
  });
});

describe('help and version', () => {
  it.each([['--version'], ['-V']])('%s prints the version and returns 0', async (flag) => {
    const result = await run([flag]);
    expect(result.error).toBeUndefined();
    expect(result.exit).toBe(0);
    expect(result.stdout).toBe(`${VERSION}\n`);
  });

  it.each([[['help']], [['help', 'delete']], [['auth', 'help']]])('%j prints help on stdout and returns 0 like --help', async (argv) => {
    const result = await run(argv);
    expect(result.stdout).toMatch(/Usage: plantstore/);
    expect(result.error).toBeUndefined();
    expect(result.exit).toBe(0);
  });

  it.each([[['--help']], [['-h']], [['delete', '--help']]])('%j prints help with the exit-code table and returns 0', async (argv) => {
    const result = await run(argv);
    expect(result.error).toBeUndefined();
    expect(result.exit).toBe(0);
    if (argv[0] === 'delete') {
      expect(result.stdout).toMatch(/Usage: plantstore delete/);
      return;
    }
    expect(result.stdout).toMatch(/Usage: plantstore/);
    expect(result.stdout).toContain('Exit codes');
    for (const [code, words] of [
      [0, 'every plant deleted'],
      [2, 'invalid command line or id'],
      [4, 'authentication'],
      [5, '404'],
      [130, 'interrupted'],
    ] as const) {
      expect(result.stdout).toMatch(new RegExp(`^\\s*${code}\\s+.*${words}`, 'm'));
    }
    expect(result.stdout).toContain('PLANTSTORE_TOKEN');
  });
});

describe('help for every command, as gh gives it', () => {
  const LEARN_MORE =
    'Learn more:\n  Use plantstore help <command> for the help of any command.\n  Read the README at https://www.npmjs.com/package/plantstore';

  /** The names in the Commands: section of a help text (help itself aside). */
  function subcommands(help: string): string[] {
    const section = /\nCommands:\n([\s\S]*?)(?:\n\n|$)/.exec(help)?.[1] ?? '';
    return [...section.matchAll(/^ {2}(\S+)/gm)].map((match) => match[1] ?? '').filter((name) => name !== 'help');
  }

  /** Every command path, found by walking the help texts themselves, so a new command is covered too. */
  async function everyCommand(path: string[] = []): Promise<string[][]> {
    const help = (await run([...path, '--help'])).stdout;
    const below = await Promise.all(subcommands(help).map((name) => everyCommand([...path, name])));
    return [path, ...below.flat()];
  }

  it('the walk finds every command', async () => {
    expect((await everyCommand()).map((path) => path.join(' '))).toEqual([
      '',
      'delete',
      'auth',
      'auth login',
      'auth logout',
      'auth status',
      'auth token',
      'config',
      'config get',
      'config set',
      'config unset',
      'config list',
      'config path',
      'completion',
      'sandbox',
    ]);
  });

  it('each has examples, ends with where to read more, fits 80 columns, and is the same through help <command>', async () => {
    for (const path of await everyCommand()) {
      const name = ['plantstore', ...path].join(' ');
      const viaFlag = await run([...path, '--help']);
      expect(viaFlag.exit, name).toBe(0);
      const help = viaFlag.stdout;
      expect(help, name).toMatch(new RegExp(`^Usage: ${name} `));
      const examples = /\nExamples:\n((?: {2}.*\n)+)/.exec(help)?.[1];
      expect(examples, `${name}: Examples`).toBeDefined();
      // Each example runs the command the help is about (a pipe may come first: echo ... | plantstore ...).
      expect(examples, name).toContain(`${name}`);
      expect(help.endsWith(`\n\n${LEARN_MORE}\n`), `${name}: Learn more last`).toBe(true);
      for (const line of help.split('\n')) expect(line.length, `${name}: ${line}`).toBeLessThanOrEqual(80);
      expect((await run(['help', ...path])).stdout, `plantstore help ${path.join(' ')}`).toBe(help);
    }
  });

  it('help auth login is the help of auth login, not of auth', async () => {
    const result = await run(['help', 'auth', 'login']);
    expect(result).toMatchObject({ exit: 0, error: undefined, stderr: '' });
    expect(result.stdout).toMatch(/^Usage: plantstore auth login \[options\]\n/);
    expect(result.stdout).toContain('--with-token');
  });

  it.each<[string[], RegExp]>([
    [['help', 'frob'], /^unknown command 'frob': plantstore help lists the commands$/],
    [['help', 'auth', 'frob'], /^unknown command 'auth frob': plantstore help auth lists its commands$/],
    [['help', 'delete', 'now'], /^unknown command 'delete now': plantstore delete has no subcommands$/],
  ])('%j is a usage error', async (argv, message) => {
    expectUsageError(await run(argv), message);
  });

  /** The flags in the Global Options: section of a help text. */
  function globalOptions(help: string): string[] {
    const section = /\nGlobal Options:\n([\s\S]*?)\n\n/.exec(help)?.[1] ?? '';
    return [...section.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map((match) => match[1] ?? '');
  }

  it.each<[string[], string[]]>([
    [
      ['delete'],
      [
        '--profile',
        '--base-url',
        '--json',
        '--quiet',
        '--no-color',
        '--timeout',
        '--retries',
        '--max-retry-wait',
        '--cacert',
        '--token-file',
        '--verbose',
      ],
    ],
    [
      ['auth', 'login'],
      ['--profile', '--base-url', '--json', '--quiet', '--no-color'],
    ],
    [
      ['auth', 'logout'],
      ['--profile', '--quiet', '--no-color'],
    ],
    [
      ['auth', 'status'],
      ['--profile', '--base-url', '--json', '--no-color', '--token-file'],
    ],
    [
      ['auth', 'token'],
      ['--profile', '--no-color', '--token-file'],
    ],
    [
      ['config', 'get'],
      ['--profile', '--json', '--no-color'],
    ],
    [
      ['config', 'set'],
      ['--profile', '--quiet', '--no-color'],
    ],
    [['config', 'path'], ['--no-color']],
    [['sandbox'], ['--no-color']],
  ])('%j --help lists the global options it reads, and only those', async (path, flags) => {
    expect(globalOptions((await run([...path, '--help'])).stdout)).toEqual(flags);
  });

  it('the top-level help keeps the environment, the exit codes, then where to read more', async () => {
    const help = (await run(['--help'])).stdout;
    const order = ['\nOptions:\n', '\nCommands:\n', '\nExamples:\n', '\nEnvironment:', '\nExit codes', `\n${LEARN_MORE}\n`];
    const at = order.map((heading) => help.indexOf(heading));
    expect(at.every((index) => index > 0)).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    expect(help).toContain('  help [command...]');
  });
});

describe('config', () => {
  it('set base-url then get base-url', async () => {
    const set = await run(['config', 'set', 'base-url', 'https://api.example.com/v1/']);
    expect(set.error).toBeUndefined();
    expect(set.exit).toBe(0);
    expect(set.stdout).toBe('');
    expect(set.stderr).toMatch(/Set base-url for profile 'default' to https:\/\/api\.example\.com\/v1/);

    const get = await run(['config', 'get', 'base-url']);
    expect(get.exit).toBe(0);
    expect(get.stdout).toBe('https://api.example.com/v1\n');
    expect(storedConfig()).toEqual({ profiles: { default: { 'base-url': 'https://api.example.com/v1' } } });
  });

  it('set and get in a named profile stay apart from the default', async () => {
    await run(['--profile', 'work', 'config', 'set', 'base-url', 'https://work.example.com']);
    expect((await run(['config', 'get', 'base-url', '--profile', 'work'])).stdout).toBe('https://work.example.com\n');
    const unset = await run(['config', 'get', 'base-url']);
    expect(unset.exit).toBe(Exit.config);
    expect(unset.stdout).toBe('');
  });

  it('set refuses an invalid URL with exit 3 and stores nothing', async () => {
    const result = await run(['config', 'set', 'base-url', 'ftp://x.example.com']);
    expect((result.error as CliError).exit).toBe(Exit.config);
    expect(storedConfig()).toBeUndefined();
  });

  it.each<[string[], RegExp]>([
    [['config', 'get', 'token'], /unknown config key 'token'.*auth login/],
    [['config', 'set', 'token', 'abc'], /unknown config key 'token'.*auth login/],
    [['config', 'get', 'colour'], /unknown config key 'colour'/],
    [['config', 'set', 'base-url'], /missing required argument 'value'/],
  ])('%j is a usage error', async (argv, message) => {
    expectUsageError(await run(argv), message);
    expect(storedConfig()).toBeUndefined();
  });

  it('path prints the file location', async () => {
    expect((await run(['config', 'path'])).stdout).toBe(`${path.join(dir, 'config.json')}\n`);
  });
});

describe('auth', () => {
  it('login --with-token stores a trimmed token; status masks it; logout keeps base-url', async () => {
    await run(['config', 'set', 'base-url', BASE]);

    const login = await run(['auth', 'login', '--with-token'], { stdin: [`  ${TOKEN}\n`] });
    expect(login.error).toBeUndefined();
    expect(login.exit).toBe(0);
    expect(login.stdout).toBe('');
    expect(login.stderr).not.toContain(TOKEN);
    expect(storedConfig()?.profiles?.['default']).toEqual({ 'base-url': BASE, token: TOKEN });

    const status = await run(['auth', 'status']);
    expect(status.exit).toBe(0);
    expect(status.stdout).toContain('sand…');
    expect(status.stdout).not.toContain(TOKEN);
    expect(status.stdout).not.toContain('sandb');
    expect(status.stdout).toContain(BASE);

    const logout = await run(['auth', 'logout']);
    expect(logout.exit).toBe(0);
    expect(storedConfig()?.profiles?.['default']).toEqual({ 'base-url': BASE });
    const get = await run(['config', 'get', 'base-url']);
    expect(get.stdout).toBe(`${BASE}\n`);

    const after = await run(['auth', 'status']);
    expect(after.exit).toBe(Exit.auth);
  });

  it('login reads a token split across chunks', async () => {
    const result = await run(['auth', 'login', '--with-token'], { stdin: ['sandbox-', 'token-', '0123456789\r\n'] });
    expect(result.exit).toBe(0);
    expect(storedConfig()?.profiles?.['default']?.token).toBe(TOKEN);
  });

  it('status --json masks the token too', async () => {
    await run(['auth', 'login', '--with-token'], { stdin: [TOKEN] });
    const status = await run(['auth', 'status', '--json']);
    expect(status.exit).toBe(0);
    expect(status.stdout).not.toContain(TOKEN);
    expect(JSON.parse(status.stdout) as unknown).toMatchObject({ profile: 'default', token: { masked: 'sand…' } });
  });

  it('status with no token anywhere exits 4', async () => {
    const result = await run(['auth', 'status']);
    expect(result.error).toBeUndefined();
    expect(result.exit).toBe(Exit.auth);
    expect(result.stdout).toMatch(/Token:\s+none/);
    expect(result.stderr).toMatch(/no token for profile 'default'/i);
  });

  it('token prints the stored token, alone, on stdout', async () => {
    await run(['auth', 'login', '--with-token'], { stdin: [`${TOKEN}\n`] });
    const result = await run(['auth', 'token']);
    expect(result.exit).toBe(0);
    expect(result.stdout).toBe(`${TOKEN}\n`);
  });

  it('token prefers PLANTSTORE_TOKEN', async () => {
    await run(['auth', 'login', '--with-token'], { stdin: [`${TOKEN}\n`] });
    expect((await run(['auth', 'token'], { env: { PLANTSTORE_TOKEN: 'env-token-value-1234' } })).stdout).toBe('env-token-value-1234\n');
  });

  it('token with none stored is exit 4', async () => {
    const result = await run(['auth', 'token']);
    expect((result.error as CliError).exit).toBe(Exit.auth);
    expect(result.stdout).toBe('');
  });

  it('login without --with-token on a non-TTY stdin is a usage error', async () => {
    const result = await run(['auth', 'login'], { stdin: [`${TOKEN}\n`] });
    expectUsageError(result, /not a terminal.*--with-token/);
    expect(storedConfig()).toBeUndefined();
  });

  it.each([
    ['inner whitespace', ['sandbox token 0123456789\n']],
    ['an inner line break', ['sandbox-token\n0123456789\n']],
    ['nothing at all', ['  \n']],
    ['a control character', ['sandbox-\u0007token\n']],
  ])('login with %s is exit 2 and stores nothing', async (_name, stdin) => {
    const result = await run(['auth', 'login', '--with-token'], { stdin });
    expectUsageError(result, /token/);
    expect(storedConfig()).toBeUndefined();
  });

  it('login with an http --base-url to a remote host stores nothing (exit 3)', async () => {
    const result = await run(['--base-url', 'http://api.example.com', 'auth', 'login', '--with-token'], { stdin: [TOKEN] });
    expect((result.error as CliError).exit).toBe(Exit.config);
    expect(storedConfig()).toBeUndefined();
  });

  it('login with --base-url stores both', async () => {
    const result = await run(['--base-url', 'http://127.0.0.1:8080/', 'auth', 'login', '--with-token'], { stdin: [TOKEN] });
    expect(result.exit).toBe(0);
    expect(storedConfig()?.profiles?.['default']).toEqual({ token: TOKEN, 'base-url': 'http://127.0.0.1:8080' });
  });
});
