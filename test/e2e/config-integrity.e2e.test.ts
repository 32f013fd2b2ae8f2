// The config file as something to protect: bad tokens never reach it, a corrupt or
// foreign file is never overwritten, permissions are fixed and warned about, an
// unwritable folder is a clear error (and no obstacle with env credentials), and
// concurrent or partial writes leave a valid file with nothing else lost.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { finished, type RunOptions, startPlantstore, tempConfigDir } from '../helpers/cli.js';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';
import { runTimed, type TimedResult } from '../helpers/timed.js';

const STORED = 'stored-Token-0a1b2c3d4e';

let config: ReturnType<typeof tempConfigDir>;
let file: string;
beforeEach(() => {
  config = tempConfigDir();
  file = path.join(config.dir, 'config.json');
});
afterEach(() => config.cleanup());

/** The CLI with this test's config folder; the run must end well within the hang guard. */
async function plantstore(args: string[], options: RunOptions = {}): Promise<TimedResult> {
  const run = await runTimed(args, { ...options, env: { PLANTSTORE_CONFIG_DIR: config.dir, ...options.env } });
  return run;
}

const login = (token: string, args: string[] = []) => plantstore([...args, 'auth', 'login', '--with-token'], { input: `${token}\n` });

async function plantServer(): Promise<ScriptedServer> {
  const server = await startScriptedServer((_req, res) => res.writeHead(204).end());
  onTestFinished(() => server.close());
  return server;
}

const readConfig = () => JSON.parse(readFileSync(file, 'utf8')) as { profiles: Record<string, Record<string, string>> };

describe('a token that is not a bearer token is refused (exit 2) and nothing is stored', () => {
  const tokens = [
    { name: 'an inner space', token: 'abcd efgh1234' },
    { name: 'a control character', token: 'abcd\u0001efgh1234' },
    { name: 'a CR LF header injection', token: 'abcdefgh1234\r\nX-Injected: yes' },
    { name: 'non-ASCII', token: 'abcdéfgh1234' },
    { name: 'more than 4 KiB', token: 'a'.repeat(4097) },
  ];

  it.each(tokens)('$name, with no config file yet', async ({ token }) => {
    const run = await login(token);
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')).toHaveLength(2);
    expect(run.stderr).toMatch(/^plantstore: the token in standard input /);
    expect(existsSync(file)).toBe(false);
  });

  it.each(tokens)('$name, over an existing config file: unchanged byte for byte', async ({ token }) => {
    expect((await login(STORED, ['--base-url', 'https://plants.example.com/v1'])).code).toBe(0);
    const before = readFileSync(file);
    const run = await login(token);
    expect(run.code).toBe(2);
    expect(readFileSync(file).equals(before)).toBe(true);
  });
});

describe('where the token comes from: PLANTSTORE_TOKEN, then a token file, then the profile', () => {
  const ENV = 'env-Token-5f6e7d8c9b';
  const FROM_FLAG = 'flagfile-Token-11aa22bb';
  const FROM_ENV_FILE = 'envfile-Token-33cc44dd';
  let flagFile: string;
  let envFile: string;

  beforeEach(async () => {
    expect((await login(STORED)).code).toBe(0);
    flagFile = path.join(config.dir, 'flag-token');
    envFile = path.join(config.dir, 'env-token');
    writeFileSync(flagFile, `${FROM_FLAG}\n`); // a trailing newline, as `echo` and secret mounts leave
    writeFileSync(envFile, `  ${FROM_ENV_FILE}  \n`);
  });

  const cases = [
    {
      name: 'PLANTSTORE_TOKEN over everything',
      args: () => ['--token-file', flagFile],
      env: () => ({ PLANTSTORE_TOKEN: ENV, PLANTSTORE_TOKEN_FILE: envFile }),
      token: ENV,
      source: () => 'PLANTSTORE_TOKEN',
    },
    {
      name: '--token-file over PLANTSTORE_TOKEN_FILE and the profile',
      args: () => ['--token-file', flagFile],
      env: () => ({ PLANTSTORE_TOKEN_FILE: envFile }),
      token: FROM_FLAG,
      source: () => `token file ${flagFile}`,
    },
    {
      name: 'PLANTSTORE_TOKEN_FILE over the profile',
      args: () => [],
      env: () => ({ PLANTSTORE_TOKEN_FILE: envFile }),
      token: FROM_ENV_FILE,
      source: () => `token file ${envFile}`,
    },
    {
      name: 'the profile when nothing else is set',
      args: () => [],
      env: () => ({}),
      token: STORED,
      source: () => `profile 'default' in ${file}`,
    },
  ];

  it.each(cases)('$name: auth status names the source, delete sends that token', async ({ args, env, token, source }) => {
    const status = await plantstore([...args(), 'auth', 'status'], { env: env() });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`Token:    ${token.slice(0, 4)}… (from ${source()})`);
    const server = await plantServer();
    const run = await plantstore([...args(), '--base-url', server.url, 'delete', '42'], { env: env() });
    expect(run.code).toBe(0);
    expect(server.requests[0]?.headers['authorization']).toBe(`Bearer ${token}`);
  });

  it.each([
    { name: 'a missing token file', write: () => undefined, message: 'cannot read token file' },
    {
      name: 'a token file holding no valid token',
      write: (f: string) => writeFileSync(f, 'two words\n'),
      message: 'has characters a bearer token cannot hold',
    },
  ])('$name is a configuration error naming the file (exit 3), not a fall-back to the profile', async ({ write, message }) => {
    const tokenFile = path.join(config.dir, 'ci-secret');
    write(tokenFile);
    const server = await plantServer();
    const run = await plantstore(['--token-file', tokenFile, '--base-url', server.url, 'delete', '42']);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(tokenFile);
    expect(run.stderr).toContain(message);
    expect(server.requests).toHaveLength(0);
  });
});

describe('a config file that is not a plantstore config is never overwritten (exit 3 naming it)', () => {
  const contents = [
    { name: 'invalid JSON', text: '{"profiles": {"default": {"token": "abc' },
    { name: 'profiles as an array', text: '{"profiles": []}' },
  ];
  const commands = [
    { name: 'delete', args: ['--base-url', 'http://127.0.0.1:9', 'delete', '42'] },
    { name: 'auth status', args: ['auth', 'status'] },
    { name: 'auth login', args: ['auth', 'login', '--with-token'], input: `${STORED}\n` },
    { name: 'auth logout', args: ['auth', 'logout'] },
    { name: 'config set', args: ['config', 'set', 'base-url', 'https://plants.example.com'] },
  ];

  describe.each(contents)('$name', ({ text }) => {
    it.each(commands)('$name', async ({ args, input }) => {
      writeFileSync(file, text, { mode: 0o600 });
      const run = await plantstore(args, input === undefined ? {} : { input });
      expect(run.code).toBe(3);
      expect(run.stderr).toContain(`config file ${file} is not`);
      expect(run.stderr).toContain('fix it by hand');
      expect(readFileSync(file, 'utf8')).toBe(text);
      expect(readdirSync(config.dir)).toEqual(['config.json']);
    });
  });
});

describe('file permissions', () => {
  it('warns about a config file others can read, and auth login makes it 0600', async () => {
    expect((await login(STORED)).code).toBe(0);
    chmodSync(file, 0o644);
    const status = await plantstore(['auth', 'status']);
    expect(status.code).toBe(0);
    expect(status.stderr).toContain(`config file ${file} is readable by others (mode 644); run chmod 600 on it`);
    const again = await login('second-Token-9a8b7c6d');
    expect(again.code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(config.dir).mode & 0o777).toBe(0o700);
    expect(readConfig().profiles['default']?.['token']).toBe('second-Token-9a8b7c6d');
    const quiet = await plantstore(['auth', 'status']);
    expect(quiet.stderr).not.toContain('readable by others');
  });
});

describe('the config folder a user chose keeps its mode', () => {
  // PLANTSTORE_CONFIG_DIR=$PWD/shared on a sticky 1777 folder, or PLANTSTORE_CONFIG_DIR=. on a workspace.
  it.runIf(process.platform !== 'win32').each([
    { octal: '1777', mode: 0o1777, warns: true },
    { octal: '0775', mode: 0o775, warns: true },
    { octal: '0755', mode: 0o755, warns: false },
  ])('an existing $octal folder: login and config set leave it $octal', async ({ mode, warns }) => {
    const chosen = path.join(config.dir, 'shared');
    mkdirSync(chosen);
    chmodSync(chosen, mode);
    const env = { PLANTSTORE_CONFIG_DIR: chosen };
    const runs = [
      await plantstore(['auth', 'login', '--with-token'], { env, input: `${STORED}\n` }),
      await plantstore(['config', 'set', 'base-url', 'https://plants.example.com'], { env }),
    ];
    for (const run of runs) {
      expect(run.code).toBe(0);
      const warning = `warning: config folder ${chosen} is writable by others (mode ${mode.toString(8)})`;
      // Once per run, however many times the folder is used in it.
      expect(run.stderr.split(warning).length - 1).toBe(warns ? 1 : 0);
    }
    expect(statSync(chosen).mode & 0o7777).toBe(mode);
    expect(statSync(path.join(chosen, 'config.json')).mode & 0o777).toBe(0o600);
  });

  it.runIf(process.platform !== 'win32')('a folder that does not exist yet is created 0700', async () => {
    const fresh = path.join(config.dir, 'fresh', 'plantstore');
    expect(
      (await plantstore(['auth', 'login', '--with-token'], { env: { PLANTSTORE_CONFIG_DIR: fresh }, input: `${STORED}\n` })).code,
    ).toBe(0);
    expect(statSync(fresh).mode & 0o7777).toBe(0o700);
  });
});

describe('a base URL the token may not travel to is never stored', () => {
  it('config set base-url over plain http to a remote host: exit 3, as auth login --base-url', async () => {
    const set = await plantstore(['config', 'set', 'base-url', 'http://evil.example.com']);
    expect(set.code).toBe(3);
    expect(set.stderr).toBe(
      'plantstore: refusing to send the token over plain http to evil.example.com (base URL from the command line); use https, or http only for loopback\n',
    );
    const login = await plantstore(['--base-url', 'http://evil.example.com', 'auth', 'login', '--with-token'], { input: `${STORED}\n` });
    expect(login.code).toBe(3);
    expect(existsSync(file)).toBe(false);
  });

  it('config set base-url over plain http to loopback is stored', async () => {
    expect((await plantstore(['config', 'set', 'base-url', 'http://127.0.0.1:8080'])).code).toBe(0);
    expect(readConfig().profiles['default']?.['base-url']).toBe('http://127.0.0.1:8080');
  });

  // An empty query or fragment is dropped from URL.search and URL.hash, yet `$URL/?` sent `DELETE /?/plants/42`.
  it.each([
    { suffix: '/?', shown: '/?…', part: 'a query' },
    { suffix: '?', shown: '/?…', part: 'a query' },
    { suffix: '#', shown: '/#…', part: 'a fragment' },
    { suffix: '/v1#', shown: '/v1#…', part: 'a fragment' },
  ])('$suffix after the URL: exit 3 before anything is sent or stored', async ({ suffix, shown, part }) => {
    const server = await plantServer();
    const env = { PLANTSTORE_TOKEN: STORED };
    const expected = (source: string) =>
      `plantstore: invalid base URL '${server.url}${shown}' (from ${source}): it must not have ${part}\n`;
    const runs = [
      { run: await plantstore(['--base-url', `${server.url}${suffix}`, 'delete', '42'], { env }), source: '--base-url' },
      {
        run: await plantstore(['delete', '42'], { env: { ...env, PLANTSTORE_BASE_URL: `${server.url}${suffix}` } }),
        source: 'PLANTSTORE_BASE_URL',
      },
      { run: await plantstore(['config', 'set', 'base-url', `${server.url}${suffix}`]), source: 'the command line' },
      { run: await login(STORED, ['--base-url', `${server.url}${suffix}`]), source: '--base-url' },
    ];
    for (const { run, source } of runs) {
      expect(run.code).toBe(3);
      expect(run.stderr).toBe(expected(source));
    }
    expect(server.requests).toEqual([]);
    expect(existsSync(file)).toBe(false);
  });
});

describe('-q / --quiet silences the success lines of auth and config; warnings stay', () => {
  it.each(['-q', '--quiet'])('%s: login, config set, config unset, logout print nothing', async (quiet) => {
    const runs = [
      await plantstore([quiet, 'auth', 'login', '--with-token'], { input: `${STORED}\n` }),
      await plantstore([quiet, 'config', 'set', 'base-url', 'https://plants.example.com']),
      await plantstore(['config', 'unset', 'base-url', quiet]),
      await plantstore(['auth', 'logout', quiet]),
      await plantstore(['auth', 'logout', quiet]), // nothing left to remove: still nothing to say
    ];
    for (const run of runs) expect(run).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(readConfig().profiles).toEqual({});
  });

  it('without it, each says what it did', async () => {
    expect((await login(STORED)).stderr).toBe(`✓ Token stored for profile 'default' in ${file}\n`);
    expect((await plantstore(['config', 'set', 'base-url', 'https://plants.example.com'])).stderr).toBe(
      "✓ Set base-url for profile 'default' to https://plants.example.com\n",
    );
    expect((await plantstore(['config', 'unset', 'base-url'])).stderr).toBe("✓ Unset base-url for profile 'default'\n");
    expect((await plantstore(['auth', 'logout'])).stderr).toBe("✓ Token removed from profile 'default'\n");
  });

  it('the PLANTSTORE_TOKEN notes are warnings: printed even with -q', async () => {
    const env = { PLANTSTORE_TOKEN: 'env-Token-5f6e7d8c9b' };
    const stored = await plantstore(['-q', 'auth', 'login', '--with-token'], { env, input: `${STORED}\n` });
    expect(stored).toMatchObject({ code: 0, stdout: '' });
    expect(stored.stderr).toBe('note: PLANTSTORE_TOKEN is set and takes precedence over the stored token\n');
    const removed = await plantstore(['-q', 'auth', 'logout'], { env });
    expect(removed).toMatchObject({ code: 0, stdout: '' });
    expect(removed.stderr).toBe('note: PLANTSTORE_TOKEN is still set in this environment\n');
  });
});

describe('a config folder that cannot be written', () => {
  const setups = [
    {
      name: 'under a folder without write permission',
      make: () => {
        const locked = path.join(config.dir, 'locked');
        mkdirSync(locked);
        chmodSync(locked, 0o500);
        onTestFinished(() => chmodSync(locked, 0o700));
        return path.join(locked, 'plantstore');
      },
      // root writes through permission bits; the probe tells whether this setup means anything here.
      writable: (dir: string) => canWrite(path.join(path.dirname(dir), 'probe')),
    },
    {
      // Unwritable for root too: a regular file where a folder should be.
      name: 'under a regular file',
      make: () => {
        const blocker = path.join(config.dir, 'not-a-folder');
        writeFileSync(blocker, '');
        return path.join(blocker, 'plantstore');
      },
      writable: () => false,
    },
  ];

  it.for(setups)(
    '$name: auth login exits 3 naming it; env credentials still delete and write nothing',
    async ({ make, writable, name }, ctx) => {
      const dir = make();
      if (writable(dir)) ctx.skip(`this user can write ${name} anyway (root)`);
      const before = listTree(config.dir);
      const env = { PLANTSTORE_CONFIG_DIR: dir };
      const run = await plantstore(['auth', 'login', '--with-token'], { env, input: `${STORED}\n` });
      expect(run.code).toBe(3);
      expect(run.stderr).toContain(dir);
      expect(run.stderr.split('\n')).toHaveLength(2);

      const server = await plantServer();
      const deleted = await plantstore(['delete', '42'], { env: { ...env, PLANTSTORE_TOKEN: STORED, PLANTSTORE_BASE_URL: server.url } });
      expect(deleted).toMatchObject({ code: 0, stdout: 'Deleted plant 42\n', stderr: '' });
      expect(listTree(config.dir)).toEqual(before);
    },
  );
});

describe('concurrent and partial updates', () => {
  it('two logins at once: both exit 0, the file is valid JSON holding one of the two tokens', async () => {
    const tokens = ['racer-Token-aaaa1111', 'racer-Token-bbbb2222'];
    const runs = await Promise.all(tokens.map((token) => startedTogether(['auth', 'login', '--with-token'], `${token}\n`)));
    for (const run of runs) expect(run.code).toBe(0);
    const stored = readConfig();
    expect(Object.keys(stored.profiles)).toEqual(['default']);
    expect(tokens).toContain(stored.profiles['default']?.['token']);
    expect(readdirSync(config.dir)).toEqual(['config.json']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  // Each racer reports "Token stored"; one whose write another silently undid is a lost login.
  // A race shows only when the processes overlap, so a few rounds of four make that likely.
  it('four logins at once to different profiles, three rounds: all exit 0, and every token is kept', async () => {
    const expected: Record<string, { token: string }> = {};
    for (const round of [1, 2, 3]) {
      const profiles = ['a', 'b', 'c', 'd'].map((letter) => `${letter}${round}`);
      const runs = await Promise.all(
        profiles.map((profile) =>
          startedTogether(['--profile', profile, 'auth', 'login', '--with-token'], `racer-Token-${profile}-1234\n`),
        ),
      );
      for (const run of runs) expect(run.code).toBe(0);
      for (const profile of profiles) expected[profile] = { token: `racer-Token-${profile}-1234` };
      expect(readConfig().profiles).toEqual(expected);
    }
  });

  it('auth logout --profile a removes only its token: its base-url and profile b stay', async () => {
    expect((await login('alpha-Token-1234abcd', ['--profile', 'a', '--base-url', 'https://a.example.com/v1'])).code).toBe(0);
    expect((await login('bravo-Token-5678efgh', ['--profile', 'b', '--base-url', 'https://b.example.com'])).code).toBe(0);
    const run = await plantstore(['--profile', 'a', 'auth', 'logout']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("Token removed from profile 'a'");
    expect(readConfig().profiles).toEqual({
      a: { 'base-url': 'https://a.example.com/v1' },
      b: { token: 'bravo-Token-5678efgh', 'base-url': 'https://b.example.com' },
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});

/** Starts the CLI with this test's config folder; both racers are spawned in the same tick. */
function startedTogether(args: string[], input: string) {
  return finished(startPlantstore(args, { env: { PLANTSTORE_CONFIG_DIR: config.dir }, input }));
}

function canWrite(probe: string): boolean {
  try {
    writeFileSync(probe, '');
    return true;
  } catch {
    return false;
  }
}

/** Every path under `dir` with its size: what a run must leave untouched. */
function listTree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((entry) => {
      const full = path.join(dir, entry);
      return `${entry}:${statSync(full).isDirectory() ? 'dir' : statSync(full).size}`;
    })
    .sort();
}
