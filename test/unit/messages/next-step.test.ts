// Issue 29, item 1: every failure a newcomer meets names the next step. One row per message
// the issue quoted, run in process against a temporary config folder and a fake service.
import { mkdirSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, Exit } from '../../../src/errors.js';
import { reportFatal } from '../../../src/ui/fatal.js';
import { createTestIO } from '../../../src/ui/io.js';
import { type Answer, inProcess, refused } from '../../helpers/in-process.js';

const TOKEN = 'sandbox-token-0123456789';
const BASE = 'https://api.example.com';
const { run, dir } = inProcess();

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
      /^unknown profile 'work': .*config\.json holds no profiles; create it with plantstore --profile work auth login$/,
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
