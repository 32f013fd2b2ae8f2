// Issue 29, item 1: every failure a newcomer meets names the next step. One row per message
// the issue quoted, run in process against a temporary config folder and a fake service.
import fs, { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type JournalIo, openJournal } from '../../../src/batch/journal/index.js';
import { DELETE_RESULTS } from '../../../src/commands/delete/operation.js';
import { joinWords } from '../../../src/config/command-words.js';
import { withLock } from '../../../src/config/lock.js';
import { runTokenCommand } from '../../../src/config/token-command.js';
import type { Context } from '../../../src/context.js';
import { openRunJournal } from '../../../src/engine/run-journal.js';
import { AuthError, CliError, ConfigError, Exit } from '../../../src/errors.js';
import { proxyFor } from '../../../src/http/proxy.js';
import { reportFatal } from '../../../src/ui/fatal.js';
import { createTestIO } from '../../../src/ui/io.js';
import { describeTransportFailure } from '../../../src/ui/transport-words.js';
import { type Answer, inProcess, refused } from '../../helpers/in-process.js';

const TOKEN = 'sandbox-token-0123456789';
const BASE = 'https://api.example.com';
const { run, dir } = inProcess();

/** An errno name (EDQUOT, ENOENT) that reached the user's message; kept for --verbose only. */
const ERRNO_NAME = /\bE[A-Z]{3,}\b/;
/** The message without its paths: a temporary folder's random suffix (plantstore-in-process-ELDLNI) is not an errno name. */
const withoutPaths = (message: string): string => message.replace(/\/\S+/g, '<path>');

/** Two profiles, as a user with a staging setup has them. */
function twoProfiles(): void {
  const profiles = { default: { 'base-url': BASE, token: TOKEN }, staging: { 'base-url': 'https://staging.example.com', token: TOKEN } };
  writeFileSync(path.join(dir(), 'config.json'), JSON.stringify({ profiles }), { mode: 0o600 });
}

const refusedConnection = (): Answer => ({
  kind: 'failed',
  last: { kind: 'network', host: '127.0.0.1:9', what: 'refused' },
  attempts: 3,
  earlierAnswerLost: false,
});

describe('a failure names the next step', () => {
  it.each<[string, () => string[], Record<string, string>, number, RegExp]>([
    [
      'a missing token file: the error in words, and what to point the flag at',
      () => ['--token-file', path.join(dir(), 'nope'), '--base-url', BASE, 'delete', '1'],
      {},
      Exit.config,
      /^cannot read token file .*nope \(from --token-file\): no such file; point --token-file at a readable file that holds the token$/,
    ],
    [
      'a token file that is a folder',
      () => {
        mkdirSync(path.join(dir(), 'folder'));
        return ['--base-url', BASE, 'delete', '1'];
      },
      { PLANTSTORE_TOKEN_FILE: 'FOLDER' },
      Exit.config,
      /^cannot read token file .*folder \(from PLANTSTORE_TOKEN_FILE\): is a directory; point PLANTSTORE_TOKEN_FILE at /,
    ],
    [
      'an unknown profile for delete: unknown, the names there are, a suggestion',
      () => {
        twoProfiles();
        return ['--profile', 'stagng', 'delete', '1'];
      },
      {},
      Exit.config,
      /^unknown profile 'stagng' \(did you mean staging\?\): the profiles in .*config\.json are default, staging; create it with plantstore --profile stagng auth login$/,
    ],
    [
      'an unknown profile for config list',
      () => {
        twoProfiles();
        return ['--profile', 'stagng', 'config', 'list'];
      },
      {},
      Exit.config,
      /^unknown profile 'stagng' \(did you mean staging\?\)/,
    ],
    [
      'an unknown profile from PLANTSTORE_PROFILE, with no config file at all',
      () => ['config', 'get', 'base-url'],
      { PLANTSTORE_PROFILE: 'work' },
      Exit.config,
      /^unknown profile 'work' \(from PLANTSTORE_PROFILE\): .*config\.json holds no profiles; create it with plantstore --profile work auth login, or set PLANTSTORE_PROFILE to a profile there is$/,
    ],
    [
      'an unknown profile for auth status, when the profile would supply the token',
      () => {
        twoProfiles();
        return ['--profile', 'defualt', 'auth', 'status'];
      },
      {},
      Exit.config,
      /^unknown profile 'defualt' \(did you mean default\?\)/,
    ],
  ])('%s', async (_name, argv, env, exit, message) => {
    const envHere = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === 'FOLDER' ? path.join(dir(), 'folder') : v]));
    const result = await run(argv(), { env: envHere });
    expect(result.error).toMatch(message);
    expect(result.exit).toBe(exit);
  });

  it('a profile only the environment backs is a label: the run goes ahead', async () => {
    twoProfiles();
    const result = await run(['--profile', 'ci', 'delete', '1'], { env: { PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: BASE } });
    expect(result.error).toBeUndefined();
    expect(result.exit).toBe(Exit.ok);
    expect(result.sent).toEqual(['1']);
  });

  it('the default profile is never unknown: a first run is told what to set', async () => {
    const result = await run(['delete', '1'], { env: { PLANTSTORE_TOKEN: TOKEN } });
    expect(result.error).toMatch(/^no base URL for profile 'default': pass --base-url/);
  });

  it.each<[string, string[], Record<string, string>, (dir: string) => void, RegExp]>([
    [
      'PLANTSTORE_TOKEN',
      ['delete', '80'],
      { PLANTSTORE_TOKEN: 'wrong-token-123', PLANTSTORE_BASE_URL: BASE },
      () => {},
      /it came from PLANTSTORE_TOKEN: set it to a valid token, or unset it and store one with plantstore auth login$/,
    ],
    [
      'a token file',
      ['--base-url', BASE, '--token-file', 'TOKENFILE', 'delete', '80'],
      {},
      (d) => writeFileSync(path.join(d, 'token'), `${TOKEN}\n`),
      /it came from the file .*token \(from --token-file\): put a valid token in it, or drop --token-file and store one with plantstore auth login$/,
    ],
    [
      'a profile',
      ['--profile', 'staging', 'delete', '80'],
      {},
      twoProfiles,
      /it came from profile 'staging' in .*config\.json: replace it with plantstore --profile staging auth login$/,
    ],
  ])('a 401 says where the token came from (%s) and how to replace it', async (_name, argv, env, setUp, hint) => {
    setUp(dir());
    const args = argv.map((word) => (word === 'TOKENFILE' ? path.join(dir(), 'token') : word));
    const result = await run(args, {
      env,
      answer: (id) => refused(id, { status: 401, error: 401, message: 'missing or invalid bearer token' }),
    });
    expect(result.exit).toBe(Exit.auth);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines[0]).toContain('error 401: missing or invalid bearer token (HTTP 401)');
    expect(lines.at(-1)).toMatch(/^the server refused the token \(401\/403\); /);
    expect(lines.at(-1)).toMatch(hint);
  });

  it('a sandbox whose port is taken says so in words, and how to pick another', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const result = await run(['sandbox', '--port', String(port)]);
      expect(result.exit).toBe(Exit.config);
      expect(result.error).toBe(
        `cannot listen on 127.0.0.1:${port}: the address is in use; pick another port with --port (0 picks a free one)`,
      );
      expect(result.thrown?.detail).toBe('EADDRINUSE');
    } finally {
      taken.close();
    }
  });

  it('a refused connection asks whether the server is running at that address', async () => {
    const result = await run(['delete', '42'], {
      env: { PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: 'http://127.0.0.1:9' },
      answer: refusedConnection,
    });
    expect(result.exit).toBe(Exit.network);
    expect(result.stderr).toContain(
      'plant 42: connection refused (127.0.0.1:9): is the server running at that address, and is the base URL right? (after 3 attempts)',
    );
  });

  it.each([
    [false, 'plantstore: cannot read token file nope (from --token-file): no such file; point it at a file'],
    [true, 'plantstore: cannot read token file nope (from --token-file): no such file; point it at a file (ENOENT)'],
  ])('the errno is kept for --verbose (verbose %s)', (verbose, line) => {
    const io = createTestIO();
    const error = new ConfigError('cannot read token file nope (from --token-file): no such file; point it at a file', 'ENOENT');
    expect(reportFatal(error, io, { json: false, debug: false, verbose })).toBe(Exit.config);
    expect(io.stderr()).toBe(`${line}\n`);
  });
});

/** An errno error, as Node raises it. */
const errno = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`${code}: failed`), { code });

/** fs.openSync fails with `code` for the path ending in `suffix` (and, with `creating`, only when it would create it). */
function openFails(suffix: string, code: string, creating = false): void {
  const real = fs.openSync;
  vi.spyOn(fs, 'openSync').mockImplementation((file, flags, mode) => {
    const create = typeof flags === 'number' && (flags & fs.constants.O_CREAT) !== 0;
    if (String(file).endsWith(suffix) && (!creating || create)) throw errno(code);
    return real(file, flags, mode);
  });
}

/** The journal's own writes (every write but the lock's) fail with `code`. */
const writesFail = (code: string): JournalIo => ({
  write: () => {
    throw errno(code);
  },
  fsync: (fd) => fs.fsyncSync(fd),
  ftruncate: (fd, length) => fs.ftruncateSync(fd, length),
});

const JOURNAL_RUN = { baseUrl: BASE, profile: 'default' };

/** A run's first sent line, on a journal whose writes fail with `code`: what recordSent throws is the message. */
async function sendOneWhileWritesFail(file: string, code: string): Promise<void> {
  const journal = await openJournal(file, { ...JOURNAL_RUN, io: writesFail(code) });
  try {
    journal.recordSent('1');
  } finally {
    try {
      journal.close();
    } catch {
      // The write's failure is the one the case reads.
    }
  }
}

describe('a journal that cannot be opened or written says why in words, and what to do', () => {
  afterEach(() => vi.restoreAllMocks());

  it.each<[string, (file: string) => Promise<unknown>, RegExp, string]>([
    [
      'its folder does not exist (the lock is made first)',
      (file) => openJournal(path.join(path.dirname(file), 'no-such-folder', 'j'), JOURNAL_RUN),
      /^cannot create journal lock .*j\.lock: its folder does not exist; create the folder, or give --journal another path$/,
      'ENOENT',
    ],
    [
      'no room for the lock',
      (file) => {
        vi.spyOn(fs, 'writeSync').mockImplementationOnce(() => {
          throw errno('ENOSPC');
        });
        return openJournal(file, JOURNAL_RUN);
      },
      /^cannot create journal lock .*\.lock: no space left on the device; free some space, or give --journal another path$/,
      'ENOSPC',
    ],
    [
      'an existing journal it may not open',
      (file) => {
        writeFileSync(file, '');
        openFails('run.journal', 'EACCES');
        return openJournal(file, JOURNAL_RUN);
      },
      /^cannot open journal .*run\.journal: permission denied; check the permissions of the journal and its folder, or give --journal another path$/,
      'EACCES',
    ],
    [
      'a new journal on a read-only disk',
      (file) => {
        openFails('run.journal', 'EROFS', true);
        return openJournal(file, JOURNAL_RUN);
      },
      /^cannot create journal .*run\.journal: read-only file system; use a journal on a writable disk, or give --journal another path$/,
      'EROFS',
    ],
    [
      'a journal whose reads fail (a failing disk)',
      (file) => {
        writeFileSync(file, '');
        vi.spyOn(fs, 'read').mockImplementation(((...args: unknown[]) => (args.at(-1) as (e: Error) => void)(errno('EIO'))) as never);
        return openJournal(file, JOURNAL_RUN);
      },
      /^cannot read journal .*run\.journal: input\/output error; check the disk, or give --journal another path$/,
      'EIO',
    ],
    [
      'a new journal whose header does not fit',
      (file) => {
        const real = fs.writeSync;
        let calls = 0;
        // The first write is the lock's; the second, the header's.
        vi.spyOn(fs, 'writeSync').mockImplementation(((...args: Parameters<typeof real>) => {
          if (++calls === 2) throw errno('EDQUOT');
          return real(...args);
        }) as typeof real);
        return openJournal(file, JOURNAL_RUN);
      },
      /^cannot write journal .*run\.journal: disk quota exceeded, so nothing was sent; free some space, then run the same command again to resume$/,
      'EDQUOT',
    ],
    [
      'a result that does not fit, mid-run',
      (file) => sendOneWhileWritesFail(file, 'ENOSPC'),
      /^cannot write journal .*run\.journal: no space left on the device, so the results from here on are not recorded; free some space, then run the same command again to resume$/,
      'ENOSPC',
    ],
    [
      'a file size limit (ulimit -f), mid-run',
      (file) => sendOneWhileWritesFail(file, 'EFBIG'),
      /: the file is larger than this system allows, so the results from here on are not recorded; raise the file size limit \(ulimit -f\), then run/,
      'EFBIG',
    ],
  ])('%s', async (_name, act, message, code) => {
    const file = path.join(dir(), 'run.journal');
    const error = await Promise.resolve()
      .then(() => act(file))
      .then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).message).toMatch(message);
    expect(withoutPaths((error as CliError).message)).not.toMatch(ERRNO_NAME);
    expect((error as CliError).detail).toBe(code);
  });

  it('a run whose journal another plantstore took over (this one stopped for 30 s) says so, and when to run again', async () => {
    vi.useFakeTimers();
    try {
      const file = path.join(dir(), 'run.journal');
      const ctx = { signal: new AbortController().signal, io: createTestIO(), env: { PLANTSTORE_CONFIG_DIR: dir() } } as unknown as Context;
      const journal = await openRunJournal(
        file,
        { ...JOURNAL_RUN, token: { value: TOKEN, source: 'PLANTSTORE_TOKEN' } },
        { verbose: false, journalSameAccount: false },
        ctx,
        {
          results: DELETE_RESULTS,
          repeatable: true,
          words: { verb: 'delete', command: 'delete', doing: 'deleting', finishWithoutJournal: () => '' },
        },
      );
      expect(journal.recordSent('1')).toBe(true);
      vi.advanceTimersByTime(1000);
      // Another run judged the lock stale, broke it and took its own.
      renameSync(`${file}.lock`, `${file}.broken`);
      writeFileSync(`${file}.lock`, '4242 elsewhere');
      vi.advanceTimersByTime(1000);
      const tookOver = `the journal ${file} could not be written: another plantstore took it over (its lock was not renewed for 30 s: was this run stopped?)`;
      expect(journal.stopReason()?.message).toBe(`not sent: ${tookOver}, so nothing more is sent`);
      expect(journal.close()).toBe(
        `${tookOver}; results after that are not recorded in it; once that run has ended, run the same command again to resume (exit 70)`,
      );
    } finally {
      vi.useRealTimers();
    }
  });

  it.each([
    [[] as string[], ': no space left on the device, so nothing more is sent'],
    [['--verbose'], ': no space left on the device (ENOSPC), so nothing more is sent'],
  ])('a delete run whose journal fills up: each id not sent, and the closing line, say so in words (%j)', async (flags, notSent) => {
    const file = path.join(dir(), 'run.journal');
    const real = fs.writeSync;
    // The journal's sent lines fail; the lock and the header are written.
    vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, data: unknown, ...rest: never[]) => {
      if (Buffer.isBuffer(data) && data.toString().includes('"sent":true')) throw errno('ENOSPC');
      return (real as (...args: unknown[]) => number)(fd, data, ...rest);
    }) as typeof real);
    const result = await run([...flags, '--base-url', BASE, 'delete', '--journal', file, '1', '2'], { env: { PLANTSTORE_TOKEN: TOKEN } });
    expect(result.exit).toBe(Exit.internal);
    expect(result.sent).toEqual([]);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe(`✗ plant 1: not sent: the journal ${file} could not be written${notSent}`);
    expect(lines.at(-1)).toBe(
      `plantstore: the journal ${file} could not be written${notSent.replace(', so nothing more is sent', '')}; results after that are not recorded in it; free some space, then run the same command again to resume (exit 70)`,
    );
  });
});

describe('a token command that fails says why in words, where it came from, and what to do', () => {
  const ENV = 'PLANTSTORE_TOKEN_COMMAND';
  /** A command line running `source` with this node. */
  const node = (source: string): string => {
    const file = path.join(dir(), `t${Math.random().toString(36).slice(2)}.mjs`);
    writeFileSync(file, source);
    return joinWords([process.execPath, file]);
  };

  it.each<[string, () => string, string, RegExp, string | undefined]>([
    [
      'a program not on PATH',
      () => 'plantstore-no-such-program --now',
      ENV,
      /^token command 'plantstore-no-such-program --now' \(from PLANTSTORE_TOKEN_COMMAND\) could not start: no program plantstore-no-such-program on PATH; install it, or give its full path$/,
      'ENOENT',
    ],
    [
      'a path where there is no program',
      () => '/nonexistent/get-token',
      ENV,
      /^token command '\/nonexistent\/get-token' \(from PLANTSTORE_TOKEN_COMMAND\) could not start: no such file \/nonexistent\/get-token \(or the interpreter on its #! line\); check the path$/,
      'ENOENT',
    ],
    [
      'a file that is not executable',
      () => {
        writeFileSync(path.join(dir(), 'get-token'), '#!/bin/sh\necho x\n', { mode: 0o644 });
        return path.join(dir(), 'get-token');
      },
      "profile 'work' in /home/me/.config/plantstore/config.json",
      /^token command '.*get-token' \(from profile 'work' in \/home\/me\/\.config\/plantstore\/config\.json\) could not start: permission denied on .*get-token; make it executable \(chmod \+x\), or check that it is a program$/,
      'EACCES',
    ],
    [
      'a non-zero exit',
      () => node(`console.error('vault: sealed'); process.exit(3);`),
      ENV,
      /^token command '.*' \(from PLANTSTORE_TOKEN_COMMAND\) failed with exit status 3 \(its stderr ended: vault: sealed\); run it by itself to see why$/,
      undefined,
    ],
    [
      'nothing on stdout',
      () => node(''),
      ENV,
      /printed no token on stdout; it must print the token alone, or a JSON object \{"token": "…"\}$/,
      undefined,
    ],
    [
      'a JSON object without "token"',
      () => node(`console.log('{"access_token": "abc"}');`),
      ENV,
      /printed a JSON object without a "token" string; it must print the token alone, or a JSON object \{"token": "…"\}$/,
      undefined,
    ],
    [
      'an expiresAt that is not a time',
      () => node(`console.log('{"token": "Zq7xK9mPw2Lr", "expiresAt": "tomorrow"}');`),
      ENV,
      /printed an "expiresAt" that is not an RFC 3339 time; write it as 2030-01-02T15:04:05Z, or leave it out$/,
      undefined,
    ],
    [
      'a quote never closed',
      () => "pass show 'plantstore",
      ENV,
      /^cannot run token command 'pass show 'plantstore' \(from PLANTSTORE_TOKEN_COMMAND\): a single quote is never closed; close it, or write \\' for a literal quote$/,
      undefined,
    ],
    [
      'an empty program name (was an internal error: spawn threw a TypeError)',
      () => "'' --now",
      ENV,
      /^cannot run token command ''' --now' \(from PLANTSTORE_TOKEN_COMMAND\): its first word, the program's name, is empty; give the command that prints the token$/,
      undefined,
    ],
  ])('%s', async (_name, commandLine, source, message, code) => {
    const error = await runTokenCommand(commandLine(), { timeoutMs: 20_000, source }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).message).toMatch(message);
    expect(withoutPaths((error as AuthError).message)).not.toMatch(ERRNO_NAME);
    expect((error as AuthError).detail).toBe(code);
  });

  it('a delete run names the variable the command came from; the errno is kept for --verbose, never the token', async () => {
    const result = await run(['--base-url', BASE, 'delete', '1'], { env: { PLANTSTORE_TOKEN_COMMAND: 'plantstore-no-such-program' } });
    expect(result.exit).toBe(Exit.auth);
    expect(result.error).toBe(
      "token command 'plantstore-no-such-program' (from PLANTSTORE_TOKEN_COMMAND) could not start: no program plantstore-no-such-program on PATH; install it, or give its full path",
    );
    expect(result.thrown?.detail).toBe('ENOENT');
    expect(result.sent).toEqual([]);
  });
});

describe('the config file lock says why in words, and what to do', () => {
  afterEach(() => vi.restoreAllMocks());

  it.each<[string, () => string, RegExp, string]>([
    [
      'its folder does not exist',
      () => path.join(dir(), 'gone', 'config.json'),
      /^cannot write in config folder .*gone: it does not exist; set PLANTSTORE_CONFIG_DIR to a writable folder, or use PLANTSTORE_TOKEN$/,
      'ENOENT',
    ],
    [
      'no room for the lock',
      () => {
        vi.spyOn(fs, 'writeSync').mockImplementationOnce(() => {
          throw errno('ENOSPC');
        });
        return path.join(dir(), 'config.json');
      },
      /^cannot write in config folder .*: no space left on the device; free some space, or use PLANTSTORE_TOKEN$/,
      'ENOSPC',
    ],
  ])('%s', (_name, file, message, code) => {
    const error = (() => {
      try {
        withLock(file(), () => undefined);
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(message);
    expect((error as ConfigError).detail).toBe(code);
  });
});

describe('the remaining refusals name the next step', () => {
  it.each<[string, () => string[], Record<string, string>, string[] | undefined, number, RegExp]>([
    [
      'config get of a key never set, in the default profile',
      () => ['config', 'get', 'base-url'],
      {},
      undefined,
      Exit.config,
      /^base-url is not set for profile 'default'; set it with plantstore config set base-url <value>$/,
    ],
    [
      'config get of a key never set, in another profile',
      () => {
        twoProfiles();
        return ['--profile', 'staging', 'config', 'get', 'missing-error'];
      },
      {},
      undefined,
      Exit.config,
      /^missing-error is not set for profile 'staging'; set it with plantstore --profile staging config set missing-error <value>$/,
    ],
    [
      'a CA bundle that holds no certificate',
      () => {
        writeFileSync(path.join(dir(), 'ca.pem'), 'not a certificate\n');
        return ['--base-url', BASE, '--cacert', path.join(dir(), 'ca.pem'), 'delete', '1'];
      },
      { PLANTSTORE_TOKEN: TOKEN },
      undefined,
      Exit.config,
      /holds no PEM certificate \(-----BEGIN CERTIFICATE-----\); point --cacert at the CA's certificates in PEM form$/,
    ],
    [
      'help for a subcommand of a command that has none',
      () => ['help', 'delete', 'now'],
      {},
      undefined,
      Exit.usage,
      /^unknown command 'delete now': plantstore delete has no subcommands; see plantstore help delete$/,
    ],
    [
      'a token in the environment that breaks the token rules',
      () => ['--base-url', BASE, 'delete', '1'],
      { PLANTSTORE_TOKEN: 'short' },
      undefined,
      Exit.config,
      /^the token in PLANTSTORE_TOKEN is shorter than 8 characters; a bearer token is longer; check that PLANTSTORE_TOKEN holds the whole token and nothing else$/,
    ],
    [
      'a base URL of another scheme',
      () => ['--base-url', 'ftp://files.example.com', 'delete', '1'],
      { PLANTSTORE_TOKEN: TOKEN },
      undefined,
      Exit.config,
      /^invalid base URL 'ftp:\/\/files\.example\.com' \(from --base-url\): only http and https are supported, as in https:\/\/api\.example\.com$/,
    ],
    [
      'a base URL with a query',
      () => ['delete', '1'],
      { PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: 'https://api.example.com/?key=x' },
      undefined,
      Exit.config,
      /^invalid base URL 'https:\/\/api\.example\.com\/\?…' \(from PLANTSTORE_BASE_URL\): it must not have a query; drop everything from the \? on$/,
    ],
  ])('%s', async (_name, argv, env, stdin, exit, message) => {
    const result = await run(argv(), { env, ...(stdin ? { stdin } : {}) });
    expect(result.error).toMatch(message);
    expect(result.exit).toBe(exit);
  });
});

it('a proxy of another scheme names the variable, and what to set it to', () => {
  expect(() => proxyFor(new URL(BASE), { HTTPS_PROXY: 'socks5://127.0.0.1:1080' })).toThrow(
    /^unsupported proxy socks5:\/\/127\.0\.0\.1:1080 \(from HTTPS_PROXY\): .* proxies only; set HTTPS_PROXY to one, or unset it$/,
  );
});

describe('a network failure the user can act on names what to check', () => {
  const PROXY = 'http://proxy.example.com:3128';
  it.each<[string, Parameters<typeof describeTransportFailure>[0], string]>([
    [
      'a host that is not found',
      { kind: 'network', host: 'api.exmaple.com', what: 'host-not-found' },
      'host not found (DNS) (api.exmaple.com): check the host name in the base URL',
    ],
    [
      'a host that cannot be reached',
      { kind: 'network', host: 'api.example.com', what: 'host-unreachable' },
      "host unreachable (api.example.com): check this machine's network, and the host in the base URL",
    ],
    [
      'no network',
      { kind: 'network', host: 'api.example.com', what: 'network-unreachable' },
      'network unreachable (api.example.com): is this machine connected to a network that reaches it?',
    ],
    [
      'a proxy that refuses the connection',
      { kind: 'proxy-unreachable', host: 'api.example.com', via: PROXY, what: 'refused' },
      `connection refused by proxy ${PROXY} (while reaching api.example.com): is the proxy running there, and is the proxy variable right?`,
    ],
    [
      'a proxy whose host is not found',
      { kind: 'proxy-unreachable', host: 'api.example.com', via: PROXY, what: 'host-not-found' },
      `proxy host ${PROXY} not found (DNS) (while reaching api.example.com): check the host name in the proxy variable`,
    ],
    [
      'a proxy that wants credentials',
      { kind: 'proxy-refused', host: 'api.example.com', via: PROXY, connectStatus: 407 },
      `proxy ${PROXY} refused to connect to api.example.com (HTTP 407 to CONNECT): check the user and password in the proxy variable`,
    ],
    [
      'a proxy that does not let the host through',
      { kind: 'proxy-refused', host: 'api.example.com', via: PROXY, connectStatus: 403 },
      `proxy ${PROXY} refused to connect to api.example.com (HTTP 403 to CONNECT): ask whoever runs it to allow that host, or list it in NO_PROXY`,
    ],
    [
      'a proxy that cannot reach the host',
      { kind: 'proxy-refused', host: 'api.example.com', via: PROXY, connectStatus: 502 },
      `proxy ${PROXY} refused to connect to api.example.com (HTTP 502 to CONNECT): it could not reach that host; check the base URL, or bypass the proxy with NO_PROXY`,
    ],
    [
      'an answer that is not HTTP',
      { kind: 'malformed', host: 'api.example.com', headersTooLarge: false },
      'malformed HTTP answer from api.example.com: check that the base URL points at the Plant Store API',
    ],
  ])('%s', (_name, attempt, line) => {
    expect(describeTransportFailure(attempt)).toBe(line);
  });
});

// Issue 36, item 4: a hint copied from a named profile's error acts on that profile, a name
// from the environment says so, and the typos newcomers make get a "did you mean".
describe('messages that fit the case', () => {
  /** staging holds only what `drop` leaves of a base URL and a token. */
  function staging(settings: Record<string, string>): void {
    const profiles = { default: { 'base-url': BASE, token: TOKEN }, staging: settings };
    writeFileSync(path.join(dir(), 'config.json'), JSON.stringify({ profiles }), { mode: 0o600 });
  }

  it.each<[string, () => string[], Record<string, string>, number, string]>([
    [
      'no base URL for a named profile: the hint sets it in that profile',
      () => {
        staging({ token: TOKEN });
        return ['--profile', 'staging', 'delete', '1'];
      },
      {},
      Exit.config,
      "no base URL for profile 'staging': pass --base-url, set PLANTSTORE_BASE_URL, or run plantstore --profile staging config set base-url <url>",
    ],
    [
      'no token for a profile named by PLANTSTORE_PROFILE: the hint logs in to that profile',
      () => {
        staging({ 'base-url': BASE });
        return ['delete', '1'];
      },
      { PLANTSTORE_PROFILE: 'staging' },
      Exit.auth,
      "no token for profile 'staging': run plantstore --profile staging auth login, or set PLANTSTORE_TOKEN",
    ],
    [
      'auth token, no token in a named profile',
      () => {
        staging({ 'base-url': BASE });
        return ['--profile', 'staging', 'auth', 'token'];
      },
      {},
      Exit.auth,
      "no token for profile 'staging': run plantstore --profile staging auth login, or set PLANTSTORE_TOKEN",
    ],
    [
      'auth login at no terminal, for a named profile',
      () => ['--profile', 'staging', 'auth', 'login'],
      {},
      Exit.usage,
      'standard input is not a terminal: pipe the token with plantstore --profile staging auth login --with-token',
    ],
    [
      'config get token, for a named profile',
      () => {
        staging({ 'base-url': BASE });
        return ['--profile', 'staging', 'config', 'get', 'token'];
      },
      {},
      Exit.usage,
      "unknown config key 'token': known keys are base-url, missing-error, token-command, max-deletes; the token is managed by plantstore --profile staging auth login/logout",
    ],
    [
      'an unknown profile from PLANTSTORE_PROFILE says where the name came from',
      () => {
        twoProfiles();
        return ['delete', '1'];
      },
      { PLANTSTORE_PROFILE: 'stagng' },
      Exit.config,
      `unknown profile 'stagng' (from PLANTSTORE_PROFILE; did you mean staging?): the profiles in ${path.join('<dir>', 'config.json')} are default, staging; create it with plantstore --profile stagng auth login, or set PLANTSTORE_PROFILE to a profile there is`,
    ],
    [
      'a base URL without its scheme: did you mean http:// (this machine)',
      () => ['--base-url', 'localhost:8080', 'delete', '1'],
      { PLANTSTORE_TOKEN: TOKEN },
      Exit.config,
      "invalid base URL 'localhost:8080' (from --base-url): did you mean http://localhost:8080? A base URL starts with http:// or https://",
    ],
    [
      'a base URL without its scheme in the variable: https:// for another host',
      () => ['delete', '1'],
      { PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: 'api.example.com/v1' },
      Exit.config,
      "invalid base URL 'api.example.com/v1' (from PLANTSTORE_BASE_URL): did you mean https://api.example.com/v1? A base URL starts with http:// or https://",
    ],
    [
      'ids with commas: separate them with spaces',
      () => ['--base-url', BASE, 'delete', '42,43'],
      { PLANTSTORE_TOKEN: TOKEN },
      Exit.usage,
      "invalid plant id '42,43': one id at a time: separate ids with spaces: 42 43",
    ],
    [
      'completion alone names a shell to give',
      () => ['completion'],
      {},
      Exit.usage,
      'name your shell: plantstore completion bash (or zsh, fish, powershell)',
    ],
  ])('%s', async (_name, argv, env, exit, message) => {
    const result = await run(argv(), { env });
    expect(result.exit).toBe(exit);
    expect(result.error?.replaceAll(dir(), '<dir>')).toBe(message);
  });

  it('auth status with no token in a named profile: the hint logs in to it', async () => {
    staging({ 'base-url': BASE });
    const result = await run(['--profile', 'staging', 'auth', 'status']);
    expect(result.exit).toBe(Exit.auth);
    expect(result.stderr).toBe("No token for profile 'staging': run plantstore --profile staging auth login, or set PLANTSTORE_TOKEN\n");
  });

  it('auth logout says when the profile held only the token, and is gone with it', async () => {
    staging({ token: TOKEN });
    const result = await run(['--profile', 'staging', 'auth', 'logout']);
    expect(result.exit).toBe(0);
    expect(result.stderr).toBe("✓ Token removed from profile 'staging'; the profile held nothing else, so it was removed too\n");
    const kept = await run(['--profile', 'default', 'auth', 'logout']);
    expect(kept.stderr).toBe("✓ Token removed from profile 'default'\n");
  });
});
