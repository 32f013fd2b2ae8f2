// The config file as something to protect, through runCli and the real config code on a
// temporary folder: bad tokens never reach it, a corrupt or foreign file is never
// overwritten, permissions are fixed and warned about, an unwritable folder is a clear error
// (and no obstacle with env credentials), and partial updates lose nothing. Logins racing in
// separate processes are in test/e2e/config-integrity.e2e.test.ts.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { inProcess } from '../../../helpers/in-process.js';
import { normalize } from '../normalize.js';

const STORED = 'stored-Token-0a1b2c3d4e';
/** Nothing is sent in-process; a base URL a run may use. */
const BASE = 'http://127.0.0.1:9';

const { run, dir, file } = inProcess();

const login = (token: string, args: string[] = []) => run([...args, 'auth', 'login', '--with-token'], { stdin: [`${token}\n`] });
const readConfig = () => JSON.parse(readFileSync(file(), 'utf8')) as { profiles: Record<string, Record<string, string>> };

describe('a token that is not a bearer token is refused (exit 2) and nothing is stored', () => {
  const tokens = [
    { name: 'an inner space', token: 'abcd efgh1234' },
    { name: 'a control character', token: 'abcd\u0001efgh1234' },
    { name: 'a CR LF header injection', token: 'abcdefgh1234\r\nX-Injected: yes' },
    { name: 'non-ASCII', token: 'abcdéfgh1234' },
    { name: 'more than 4 KiB', token: 'a'.repeat(4097) },
  ];

  it.each(tokens)('$name, with no config file yet', async ({ token }) => {
    const refused = await login(token);
    expect(refused).toMatchObject({ exit: 2, stdout: '', stderr: '' });
    expect(refused.error).toMatchSnapshot();
    expect(refused.error).not.toContain('\n');
    expect(existsSync(file())).toBe(false);
  });

  it.each(tokens)('$name, over an existing config file: unchanged byte for byte', async ({ token }) => {
    expect((await login(STORED, ['--base-url', 'https://plants.example.com/v1'])).exit).toBe(0);
    const before = readFileSync(file());
    expect((await login(token)).exit).toBe(2);
    expect(readFileSync(file()).equals(before)).toBe(true);
  });
});

describe('where the token comes from: --token-file, then PLANTSTORE_TOKEN, then PLANTSTORE_TOKEN_FILE, then the profile', () => {
  const ENV = 'env-Token-5f6e7d8c9b';
  const FROM_FLAG = 'flagfile-Token-11aa22bb';
  const FROM_ENV_FILE = 'envfile-Token-33cc44dd';
  let flagFile: string;
  let envFile: string;

  beforeEach(async () => {
    expect((await login(STORED)).exit).toBe(0);
    flagFile = path.join(dir(), 'flag-token');
    envFile = path.join(dir(), 'env-token');
    writeFileSync(flagFile, `${FROM_FLAG}\n`); // a trailing newline, as `echo` and secret mounts leave
    writeFileSync(envFile, `  ${FROM_ENV_FILE}  \n`);
  });

  const cases = [
    {
      name: '--token-file over PLANTSTORE_TOKEN: a flag outranks every variable',
      args: () => ['--token-file', flagFile],
      env: () => ({ PLANTSTORE_TOKEN: ENV, PLANTSTORE_TOKEN_FILE: envFile }),
      token: FROM_FLAG,
    },
    {
      name: 'PLANTSTORE_TOKEN over PLANTSTORE_TOKEN_FILE and the profile',
      args: () => [],
      env: () => ({ PLANTSTORE_TOKEN: ENV, PLANTSTORE_TOKEN_FILE: envFile }),
      token: ENV,
    },
    {
      name: '--token-file over PLANTSTORE_TOKEN_FILE and the profile',
      args: () => ['--token-file', flagFile],
      env: () => ({ PLANTSTORE_TOKEN_FILE: envFile }),
      token: FROM_FLAG,
    },
    {
      name: 'PLANTSTORE_TOKEN_FILE over the profile',
      args: () => [],
      env: () => ({ PLANTSTORE_TOKEN_FILE: envFile }),
      token: FROM_ENV_FILE,
    },
    {
      name: 'the profile when nothing else is set',
      args: () => [],
      env: () => ({}),
      token: STORED,
    },
  ];

  it.each(cases)('$name: auth status names the source, delete sends with that token', async ({ args, env, token }) => {
    const status = await run([...args(), 'auth', 'status'], { env: env() });
    expect(status.exit).toBe(0);
    expect(normalize(status.stdout, { '<dir>': dir() })).toMatchSnapshot();
    const sent = await run([...args(), '--base-url', BASE, 'delete', '42'], { env: env() });
    expect(sent).toMatchObject({ exit: 0, sent: ['42'] });
    expect(sent.built.map((request) => request.endpoint.token)).toEqual([token]);
  });

  it.each([
    { name: 'a missing token file', write: () => undefined },
    { name: 'a token file holding no valid token', write: (f: string) => writeFileSync(f, 'two words\n') },
  ])('$name is a configuration error naming the file (exit 3), not a fall-back to the profile', async ({ write }) => {
    const tokenFile = path.join(dir(), 'ci-secret');
    write(tokenFile);
    const refused = await run(['--token-file', tokenFile, '--base-url', BASE, 'delete', '42']);
    expect(refused.exit).toBe(3);
    expect(refused.error).toContain(tokenFile);
    expect(normalize(refused.error ?? '', { '<dir>': dir() })).toMatchSnapshot();
    expect(refused.built).toEqual([]);
  });
});

describe('a config file that is not a plantstore config is never overwritten (exit 3 naming it)', () => {
  const contents = [
    { name: 'invalid JSON', text: '{"profiles": {"default": {"token": "abc' },
    { name: 'profiles as an array', text: '{"profiles": []}' },
  ];
  const commands = [
    { name: 'delete', args: ['--base-url', BASE, 'delete', '42'] },
    { name: 'auth status', args: ['auth', 'status'] },
    { name: 'auth login', args: ['auth', 'login', '--with-token'], stdin: [`${STORED}\n`] },
    { name: 'auth logout', args: ['auth', 'logout'] },
    { name: 'config set', args: ['config', 'set', 'base-url', 'https://plants.example.com'] },
  ];

  describe.each(contents)('$name', ({ text }) => {
    it.each(commands)('$name', async ({ args, stdin }) => {
      writeFileSync(file(), text, { mode: 0o600 });
      const refused = await run(args, stdin === undefined ? {} : { stdin });
      expect(refused.exit).toBe(3);
      expect(normalize(refused.error ?? '', { '<dir>': dir() })).toMatchSnapshot();
      expect(refused.sent).toEqual([]);
      expect(readFileSync(file(), 'utf8')).toBe(text);
      expect(readdirSync(dir())).toEqual(['config.json']);
    });
  });
});

describe('file permissions', () => {
  it('warns about a config file others can read, and auth login makes it 0600', async () => {
    expect((await login(STORED)).exit).toBe(0);
    chmodSync(file(), 0o644);
    const status = await run(['auth', 'status']);
    expect(status.exit).toBe(0);
    expect(normalize(status.stderr, { '<dir>': dir() })).toMatchInlineSnapshot(`
      "warning: config file <dir>/config.json is readable by others (mode 644); run chmod 600 on it
      "
    `);
    expect((await login('second-Token-9a8b7c6d')).exit).toBe(0);
    expect(statSync(file()).mode & 0o777).toBe(0o600);
    expect(statSync(dir()).mode & 0o777).toBe(0o700);
    expect(readConfig().profiles['default']?.['token']).toBe('second-Token-9a8b7c6d');
    expect((await run(['auth', 'status'])).stderr).not.toContain('readable by others');
  });
});

describe('the config folder a user chose keeps its mode', () => {
  // PLANTSTORE_CONFIG_DIR=$PWD/shared on a sticky 1777 folder, or PLANTSTORE_CONFIG_DIR=. on a workspace.
  it.runIf(process.platform !== 'win32').each([
    { octal: '1777', mode: 0o1777, warns: true },
    { octal: '0755', mode: 0o755, warns: false },
  ])('an existing $octal folder: login and config set leave it $octal', async ({ mode, warns }) => {
    const chosen = path.join(dir(), 'shared');
    mkdirSync(chosen);
    chmodSync(chosen, mode);
    const env = { PLANTSTORE_CONFIG_DIR: chosen };
    const runs = [
      await run(['auth', 'login', '--with-token'], { env, stdin: [`${STORED}\n`] }),
      await run(['config', 'set', 'base-url', 'https://plants.example.com'], { env }),
    ];
    for (const done of runs) {
      expect(done.exit).toBe(0);
      const warning = `warning: config folder ${chosen} is writable by others (mode ${mode.toString(8)})`;
      // Once per run, however many times the folder is used in it.
      expect(done.stderr.split(warning).length - 1).toBe(warns ? 1 : 0);
    }
    expect(statSync(chosen).mode & 0o7777).toBe(mode);
    expect(statSync(path.join(chosen, 'config.json')).mode & 0o777).toBe(0o600);
  });

  // Without the sticky bit, others could replace the file: the token is not written there (issue 34).
  it.runIf(process.platform !== 'win32')(
    'an existing 0775 folder: login and config set are refused (exit 3), nothing written',
    async () => {
      const chosen = path.join(dir(), 'shared');
      mkdirSync(chosen);
      chmodSync(chosen, 0o775);
      const env = { PLANTSTORE_CONFIG_DIR: chosen };
      const login = await run(['auth', 'login', '--with-token'], { env, stdin: [`${STORED}\n`] });
      const set = await run(['config', 'set', 'base-url', 'https://plants.example.com'], { env });
      for (const done of [login, set]) {
        expect(done.exit).toBe(3);
        expect(done.error).toContain(`folder ${chosen}, which is writable by others (mode 775)`);
        expect(done.error).toContain(`chmod go-w ${chosen}`);
        expect(done.stderr).not.toContain(STORED);
      }
      expect(existsSync(path.join(chosen, 'config.json'))).toBe(false);
      expect(statSync(chosen).mode & 0o7777).toBe(0o775);
    },
  );

  it.runIf(process.platform !== 'win32')('a folder that does not exist yet is created 0700', async () => {
    const fresh = path.join(dir(), 'fresh', 'plantstore');
    expect((await run(['auth', 'login', '--with-token'], { env: { PLANTSTORE_CONFIG_DIR: fresh }, stdin: [`${STORED}\n`] })).exit).toBe(0);
    expect(statSync(fresh).mode & 0o7777).toBe(0o700);
  });
});

describe('a base URL the token may not travel to is never stored', () => {
  it('config set base-url over plain http to a remote host: exit 3, as auth login --base-url', async () => {
    const set = await run(['config', 'set', 'base-url', 'http://evil.example.com']);
    expect({ exit: set.exit, error: set.error }).toMatchInlineSnapshot(`
      {
        "error": "refusing to send the token over plain http to evil.example.com (base URL from the command line); use https, or http only for loopback",
        "exit": 3,
      }
    `);
    expect((await login(STORED, ['--base-url', 'http://evil.example.com'])).exit).toBe(3);
    expect(existsSync(file())).toBe(false);
  });

  it('delete to a remote host over plain http: exit 3 before anything is built', async () => {
    const refused = await run(['delete', '42'], { env: { PLANTSTORE_TOKEN: STORED, PLANTSTORE_BASE_URL: 'http://plants.example.com' } });
    expect(refused.exit).toBe(3);
    expect(refused.error).toMatchInlineSnapshot(
      `"refusing to send the token over plain http to plants.example.com (base URL from PLANTSTORE_BASE_URL); use https, or http only for loopback"`,
    );
    expect(refused.built).toEqual([]);
  });

  it('config set base-url over plain http to loopback is stored', async () => {
    expect((await run(['config', 'set', 'base-url', 'http://127.0.0.1:8080'])).exit).toBe(0);
    expect(readConfig().profiles['default']?.['base-url']).toBe('http://127.0.0.1:8080');
  });

  // An empty query or fragment is dropped from URL.search and URL.hash, yet `$URL/?` sent `DELETE /?/plants/42`.
  it.each([{ suffix: '/?' }, { suffix: '?' }, { suffix: '#' }, { suffix: '/v1#' }])(
    '$suffix after the URL: exit 3 before anything is sent or stored',
    async ({ suffix }) => {
      const env = { PLANTSTORE_TOKEN: STORED };
      const runs = [
        await run(['--base-url', `${BASE}${suffix}`, 'delete', '42'], { env }),
        await run(['delete', '42'], { env: { ...env, PLANTSTORE_BASE_URL: `${BASE}${suffix}` } }),
        await run(['config', 'set', 'base-url', `${BASE}${suffix}`]),
        await login(STORED, ['--base-url', `${BASE}${suffix}`]),
      ];
      for (const done of runs) expect(done.built).toEqual([]);
      // The four runs' refusals, word for word: each names the URL shown, where it came from, and the part it must not have.
      expect(runs.map((done) => ({ exit: done.exit, error: done.error }))).toMatchSnapshot();
      expect(existsSync(file())).toBe(false);
    },
  );
});

describe('-q / --quiet silences the success lines of auth and config; warnings stay', () => {
  it.each(['-q', '--quiet'])('%s: login, config set, config unset, logout print nothing', async (quiet) => {
    const runs = [
      await login(STORED, [quiet]),
      await run([quiet, 'config', 'set', 'base-url', 'https://plants.example.com']),
      await run(['config', 'unset', 'base-url', quiet]),
      await run(['auth', 'logout', quiet]),
      await run(['auth', 'logout', quiet]), // nothing left to remove: still nothing to say
    ];
    for (const done of runs) expect(done).toMatchObject({ exit: 0, error: undefined, stdout: '', stderr: '' });
    expect(readConfig().profiles).toEqual({});
  });

  it('without it, each says what it did', async () => {
    const said = [
      await login(STORED),
      await run(['config', 'set', 'base-url', 'https://plants.example.com']),
      await run(['config', 'unset', 'base-url']),
      await run(['auth', 'logout']),
    ].map((done) => normalize(done.stderr, { '<dir>': dir() }));
    expect(said).toMatchInlineSnapshot(`
      [
        "✓ Token stored for profile 'default' in <dir>/config.json
      ",
        "✓ Set base-url for profile 'default' to https://plants.example.com
      ",
        "✓ Unset base-url for profile 'default'
      ",
        "✓ Token removed from profile 'default'
      ",
      ]
    `);
  });

  it('the PLANTSTORE_TOKEN notes are warnings: printed even with -q', async () => {
    const env = { PLANTSTORE_TOKEN: 'env-Token-5f6e7d8c9b' };
    const stored = await run(['-q', 'auth', 'login', '--with-token'], { env, stdin: [`${STORED}\n`] });
    expect({ exit: stored.exit, stdout: stored.stdout, stderr: stored.stderr }).toMatchInlineSnapshot(`
      {
        "exit": 0,
        "stderr": "note: PLANTSTORE_TOKEN is set and takes precedence over the stored token
      ",
        "stdout": "",
      }
    `);
    const removed = await run(['-q', 'auth', 'logout'], { env });
    expect({ exit: removed.exit, stdout: removed.stdout, stderr: removed.stderr }).toMatchInlineSnapshot(`
      {
        "exit": 0,
        "stderr": "note: PLANTSTORE_TOKEN is still set in this environment
      ",
        "stdout": "",
      }
    `);
  });
});

describe('a config folder that cannot be written', () => {
  const setups = [
    {
      name: 'under a folder without write permission',
      make: () => {
        const locked = path.join(dir(), 'locked');
        mkdirSync(locked);
        chmodSync(locked, 0o500);
        onTestFinished(() => chmodSync(locked, 0o700));
        return path.join(locked, 'plantstore');
      },
      // root writes through permission bits; the probe tells whether this setup means anything here.
      writable: (folder: string) => canWrite(path.join(path.dirname(folder), 'probe')),
    },
    {
      // Unwritable for root too: a regular file where a folder should be.
      name: 'under a regular file',
      make: () => {
        const blocker = path.join(dir(), 'not-a-folder');
        writeFileSync(blocker, '');
        return path.join(blocker, 'plantstore');
      },
      writable: () => false,
    },
  ];

  it.for(setups)(
    '$name: auth login exits 3 naming it; env credentials still delete and write nothing',
    async ({ make, writable, name }, ctx) => {
      const folder = make();
      if (writable(folder)) ctx.skip(`this user can write ${name} anyway (root)`);
      const before = listTree(dir());
      const env = { PLANTSTORE_CONFIG_DIR: folder };
      const refused = await run(['auth', 'login', '--with-token'], { env, stdin: [`${STORED}\n`] });
      expect(refused.exit).toBe(3);
      expect(refused.error).toContain(folder);
      expect(refused.error).not.toContain('\n');

      const done = await run(['delete', '42'], { env: { ...env, PLANTSTORE_TOKEN: STORED, PLANTSTORE_BASE_URL: BASE } });
      expect(done).toMatchObject({ exit: 0, stdout: 'Deleted plant 42\n', stderr: '', sent: ['42'] });
      expect(listTree(dir())).toEqual(before);
    },
  );
});

describe('partial updates', () => {
  it('auth logout --profile a removes only its token: its base-url and profile b stay', async () => {
    expect((await login('alpha-Token-1234abcd', ['--profile', 'a', '--base-url', 'https://a.example.com/v1'])).exit).toBe(0);
    expect((await login('bravo-Token-5678efgh', ['--profile', 'b', '--base-url', 'https://b.example.com'])).exit).toBe(0);
    const logout = await run(['--profile', 'a', 'auth', 'logout']);
    expect(logout.exit).toBe(0);
    expect(logout.stderr).toMatchInlineSnapshot(`
      "✓ Token removed from profile 'a'
      "
    `);
    expect(readConfig().profiles).toEqual({
      a: { 'base-url': 'https://a.example.com/v1' },
      b: { token: 'bravo-Token-5678efgh', 'base-url': 'https://b.example.com' },
    });
    expect(statSync(file()).mode & 0o777).toBe(0o600);
  });
});

function canWrite(probe: string): boolean {
  try {
    writeFileSync(probe, '');
    return true;
  } catch {
    return false;
  }
}

/** Every path under `folder` with its size: what a run must leave untouched. */
function listTree(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .map((entry) => {
      const full = path.join(folder, entry);
      return `${entry}:${statSync(full).isDirectory() ? 'dir' : statSync(full).size}`;
    })
    .sort();
}
