import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ConfigFile, configDir, configPath, openConfig } from '../../src/config/file.js';
import { resolveTarget, resolveToken, type Target, type TargetSettings } from '../../src/config/resolve.js';
import { AuthError, ConfigError, Exit, UsageError } from '../../src/errors.js';
import type { AnyFlag } from '../../src/flags/flag.js';
import { BASE_URL, PROFILE, TIMEOUT, TOKEN_FILE } from '../../src/flags/global.js';
import { flagReader } from '../../src/flags/read.js';
import type { Env } from '../../src/platform/env.js';
import { colorLevel } from '../../src/ui/io.js';
import { rejection, thrown } from '../helpers/thrown.js';

const TOKEN = 'stored-token-0123456789';
const ENV_TOKEN = 'env-token-abcdefghijkl';

let dir: string;
let warnings: string[];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plantstore-settings-'));
  warnings = [];
});

afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The environment of a test: always an isolated config folder. */
function envWith(extra: Record<string, string> = {}): Env {
  return { PLANTSTORE_CONFIG_DIR: dir, ...extra };
}

function writeConfigText(text: string, mode = 0o600): string {
  const file = path.join(dir, 'config.json');
  fs.writeFileSync(file, text, { mode });
  fs.chmodSync(file, mode); // the umask may have narrowed it
  return file;
}

function writeConfig(data: unknown, mode = 0o600): string {
  return writeConfigText(JSON.stringify(data), mode);
}

function configFor(env: Env): () => ConfigFile {
  const file = openConfig(env, (line) => warnings.push(line));
  return () => file;
}

type GlobalFlags = Record<string, string>;

/** The flags as commander would hand them over, read as a command reads them. */
function flagsFrom(parsed: GlobalFlags, env: Env, config: () => ConfigFile = configFor(env)) {
  return flagReader<AnyFlag>(parsed, { env, config });
}

/** What a command reads for its target, as delete's flags.ts reads it. */
function targetFrom(parsed: GlobalFlags, env: Env): TargetSettings {
  const flags = flagsFrom(parsed, env);
  return { profile: flags.value(PROFILE), baseUrl: flags.sourced(BASE_URL), tokenFile: flags.sourced(TOKEN_FILE) };
}

async function targetOf(parsed: GlobalFlags, env: Env): Promise<Target> {
  const target = await resolveTarget(targetFrom(parsed, env), env, configFor(env));
  if ('missing' in target) throw new Error(`missing ${target.missing}`);
  return target;
}

describe('--profile, PLANTSTORE_PROFILE', () => {
  it.each<[string, GlobalFlags, Record<string, string>, string]>([
    ['default when nothing is set', {}, {}, 'default'],
    ['PLANTSTORE_PROFILE', {}, { PLANTSTORE_PROFILE: 'staging' }, 'staging'],
    ['--profile over PLANTSTORE_PROFILE', { profile: 'prod' }, { PLANTSTORE_PROFILE: 'staging' }, 'prod'],
    ['empty PLANTSTORE_PROFILE is ignored', {}, { PLANTSTORE_PROFILE: '' }, 'default'],
    ['digits, - and _', { profile: 'a1_b-2' }, {}, 'a1_b-2'],
  ])('%s', (_name, flags, env, expected) => {
    expect(flagsFrom(flags, envWith(env)).value(PROFILE)).toBe(expected);
  });

  // Typed on the command line, a bad name is a usage error like any option's; from the environment, configuration.
  it.each<[GlobalFlags, Record<string, string>, string, typeof UsageError | typeof ConfigError, number]>([
    [{ profile: '../etc' }, {}, '--profile', UsageError, Exit.usage],
    [{ profile: '' }, {}, '--profile', UsageError, Exit.usage],
    [{ profile: '-x' }, {}, '--profile', UsageError, Exit.usage],
    [{ profile: 'a'.repeat(65) }, {}, '--profile', UsageError, Exit.usage],
    [{ profile: 'has space' }, {}, '--profile', UsageError, Exit.usage],
    [{}, { PLANTSTORE_PROFILE: 'bad/name' }, 'PLANTSTORE_PROFILE', ConfigError, Exit.config],
    [{}, { PLANTSTORE_PROFILE: '__proto__' }, 'PLANTSTORE_PROFILE', ConfigError, Exit.config],
  ])('invalid name %j / %j naming %s', (flags, env, source, kind, exit) => {
    const error = thrown(() => flagsFrom(flags, envWith(env)).value(PROFILE));
    expect(error).toBeInstanceOf(kind);
    expect((error as ConfigError).exit).toBe(exit);
    expect((error as ConfigError).message).toContain(source);
  });
});

describe('--base-url, PLANTSTORE_BASE_URL, the profile', () => {
  beforeEach(() => {
    writeConfig({ profiles: { default: { 'base-url': 'https://file.example.com/' }, other: { 'base-url': 'https://other.example.com' } } });
  });

  it.each<[string, GlobalFlags, Record<string, string>, string, string | RegExp]>([
    [
      '--base-url wins',
      { baseUrl: 'https://flag.example.com' },
      { PLANTSTORE_BASE_URL: 'https://env.example.com' },
      'https://flag.example.com',
      '--base-url',
    ],
    ['env over the file', {}, { PLANTSTORE_BASE_URL: 'https://env.example.com' }, 'https://env.example.com', 'PLANTSTORE_BASE_URL'],
    ['the profile file last', {}, {}, 'https://file.example.com', /profile 'default' in .*config\.json/],
    ['the selected profile', { profile: 'other' }, {}, 'https://other.example.com', /profile 'other'/],
    ['trailing slashes dropped', { baseUrl: 'https://flag.example.com/v1///' }, {}, 'https://flag.example.com/v1', '--base-url'],
    [
      'path prefix kept',
      {},
      { PLANTSTORE_BASE_URL: 'https://env.example.com/api/v2' },
      'https://env.example.com/api/v2',
      'PLANTSTORE_BASE_URL',
    ],
    ['port kept', { baseUrl: 'http://127.0.0.1:8080/' }, {}, 'http://127.0.0.1:8080', '--base-url'],
  ])('%s', (_name, flags, env, value, source) => {
    const e = envWith(env);
    const result = flagsFrom(flags, e).sourced(BASE_URL);
    expect(result?.value).toBe(value);
    if (typeof source === 'string') expect(result?.source).toBe(source);
    else expect(result?.source).toMatch(source);
  });

  it('is undefined when no source has one', () => {
    const e = envWith();
    expect(flagsFrom({ profile: 'nobody' }, e).sourced(BASE_URL)).toBeUndefined();
  });

  it.each([
    ['ftp://files.example.com', /only http and https/],
    ['not a url', /invalid base URL/],
    ['https://user:pw@api.example.com', /must not hold credentials/],
  ])('refuses %j with a ConfigError', (raw, message) => {
    const e = envWith();
    const error = thrown(() => flagsFrom({ baseUrl: raw }, e).sourced(BASE_URL));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exit).toBe(3);
    expect((error as ConfigError).message).toMatch(message);
  });
});

describe('a base URL with a query or fragment, even an empty one, is refused (exit 3), shown without it', () => {
  // WHATWG URL reports an empty query or fragment as '' in search and hash, yet keeps and sends it.
  it.each([
    ['https://api.example.com/?x=1', "'https://api.example.com/?…'", 'a query'],
    ['https://api.example.com/v1?', "'https://api.example.com/v1?…'", 'a query'],
    ['https://api.example.com/?', "'https://api.example.com/?…'", 'a query'],
    ['https://api.example.com/#top', "'https://api.example.com/#…'", 'a fragment'],
    ['https://api.example.com/v1#', "'https://api.example.com/v1#…'", 'a fragment'],
    ['https://api.example.com#', "'https://api.example.com/#…'", 'a fragment'],
    ['https://api.example.com/v1#a?b', "'https://api.example.com/v1#…'", 'a fragment'],
    ['https://api.example.com/v1?#', "'https://api.example.com/v1?…'", 'a query or fragment'],
    ['https://api.example.com/v1?token=abc#x', "'https://api.example.com/v1?…'", 'a query or fragment'],
  ])('%j', (raw, shown, part) => {
    const e = envWith();
    const error = thrown(() => flagsFrom({ baseUrl: raw }, e).sourced(BASE_URL));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exit).toBe(3);
    expect((error as ConfigError).message).toBe(`invalid base URL ${shown} (from --base-url): it must not have ${part}`);
  });

  it.each(['https://api.example.com/v%3F1', 'https://api.example.com/a%23b'])('an encoded ? or # in the path is fine: %j', (raw) => {
    const e = envWith();
    expect(flagsFrom({ baseUrl: raw }, e).sourced(BASE_URL)?.value).toBe(raw);
  });
});

describe('resolveToken', () => {
  it('prefers PLANTSTORE_TOKEN over the stored token', async () => {
    writeConfig({ profiles: { default: { token: TOKEN } } });
    const e = envWith({ PLANTSTORE_TOKEN: ENV_TOKEN });
    expect(await resolveToken(e, configFor(e), 'default', undefined)).toEqual({ value: ENV_TOKEN, source: 'PLANTSTORE_TOKEN' });
  });

  it('falls back to the stored token of the profile', async () => {
    writeConfig({ profiles: { default: { token: TOKEN } } });
    const e = envWith();
    const result = await resolveToken(e, configFor(e), 'default', undefined);
    expect(result?.value).toBe(TOKEN);
    expect(result?.source).toContain(path.join(dir, 'config.json'));
  });

  it('does not read the config file when the env has a token', async () => {
    writeConfigText('{ corrupt');
    const e = envWith({ PLANTSTORE_TOKEN: ENV_TOKEN });
    expect((await resolveToken(e, configFor(e), 'default', undefined))?.value).toBe(ENV_TOKEN);
  });

  it('trims the env token', async () => {
    const e = envWith({ PLANTSTORE_TOKEN: `  ${ENV_TOKEN}\n` });
    expect((await resolveToken(e, configFor(e), 'default', undefined))?.value).toBe(ENV_TOKEN);
  });

  it.each(['has space', 'new\nline', 'bad"quote', 'é-accent', '  '])('an invalid env token %j is a ConfigError (exit 3)', async (raw) => {
    const e = envWith({ PLANTSTORE_TOKEN: raw });
    const error = await rejection(resolveToken(e, configFor(e), 'default', undefined));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exit).toBe(3);
    expect((error as ConfigError).message).toContain('PLANTSTORE_TOKEN');
    expect((error as ConfigError).message).not.toContain('nothing was stored');
  });

  it('an invalid stored token is a ConfigError naming the file', async () => {
    writeConfig({ profiles: { default: { token: 'two words' } } });
    const e = envWith();
    const error = await rejection(resolveToken(e, configFor(e), 'default', undefined));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain(path.join(dir, 'config.json'));
  });

  it('is undefined with no token anywhere', async () => {
    const e = envWith();
    expect(await resolveToken(e, configFor(e), 'default', undefined)).toBeUndefined();
  });
});

describe('resolveTarget', () => {
  it('combines profile, base URL and token', async () => {
    writeConfig({ profiles: { work: { token: TOKEN, 'base-url': 'https://api.example.com/v1/' } } });
    const e = envWith({ PLANTSTORE_PROFILE: 'work' });
    expect(await targetOf({}, e)).toEqual({
      profile: 'work',
      baseUrl: 'https://api.example.com/v1',
      token: TOKEN,
    });
  });

  it.each([
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
    ['http://localhost:3000', 'http://localhost:3000'],
    ['http://[::1]:9000', 'http://[::1]:9000'],
    ['http://127.1.2.3', 'http://127.1.2.3'],
    ['http://[::ffff:127.0.0.1]:81', 'http://[::ffff:7f00:1]:81'],
    ['http://127.1', 'http://127.0.0.1'],
  ])('allows plain http to loopback %s', async (baseUrl, normalized) => {
    const e = envWith({ PLANTSTORE_TOKEN: ENV_TOKEN });
    expect((await targetOf({ baseUrl }, e)).baseUrl).toBe(normalized);
  });

  it.each([
    'http://api.example.com',
    'http://10.0.0.1',
    'http://127.0.0.1.example.com',
    'http://[::2]',
    // A resolver may send these names to DNS, and DNS may answer with any address.
    'http://app.localhost',
    'http://localhost.',
    'http://localhost.example.com',
    'http://[::ffff:10.0.0.1]',
    'http://0.0.0.0',
  ])('refuses plain http to the remote host %s (exit 3)', async (baseUrl) => {
    const e = envWith({ PLANTSTORE_TOKEN: ENV_TOKEN });
    const error = await rejection(resolveTarget(targetFrom({ baseUrl }, e), e, configFor(e)));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exit).toBe(3);
    expect((error as ConfigError).message).toMatch(/refusing to send the token over plain http/);
    expect((error as ConfigError).message).not.toContain(ENV_TOKEN);
  });

  // The words (which flag or variable to set) are the command's: see delete.test.ts.
  it('a missing base URL is named, not worded', async () => {
    const e = envWith({ PLANTSTORE_TOKEN: ENV_TOKEN });
    expect(await resolveTarget(targetFrom({}, e), e, configFor(e))).toEqual({ missing: 'base-url', profile: 'default' });
  });

  it('a missing token is named, not worded', async () => {
    const e = envWith({ PLANTSTORE_BASE_URL: 'https://api.example.com' });
    expect(await resolveTarget(targetFrom({}, e), e, configFor(e))).toEqual({ missing: 'token', profile: 'default' });
  });
});

describe('config file', () => {
  const file = (): string => path.join(dir, 'config.json');

  it.each([
    ['corrupt JSON', '{"profiles": {', /is not valid JSON/],
    ['a top-level array', '[]', /top level is not an object/],
    ['a top-level string', '"hello"', /top level is not an object/],
    ['profiles as an array', '{"profiles":[]}', /"profiles" is not an object/],
    ['a profile that is null', '{"profiles":{"default":null}}', /profile "default" is not an object/],
    ['a numeric token', '{"profiles":{"default":{"token":5}}}', /"token" of profile "default" is not a string/],
    ['a base-url object', '{"profiles":{"x":{"base-url":{}}}}', /"base-url" of profile "x" is not a string/],
  ])('%s: ConfigError naming the file, file left untouched by an update', async (_name, text, problem) => {
    writeConfigText(text);
    const before = fs.readFileSync(file());
    const config = openConfig(envWith(), (line) => warnings.push(line));

    const readError = thrown(() => config.profile('default'));
    expect(readError).toBeInstanceOf(ConfigError);
    expect((readError as ConfigError).exit).toBe(3);
    expect((readError as ConfigError).message).toContain(file());
    expect((readError as ConfigError).message).toMatch(problem);

    const writeError = await rejection(config.updateProfile('default', (p) => ({ ...p, token: TOKEN })));
    expect(writeError).toBeInstanceOf(ConfigError);
    expect((writeError as ConfigError).message).toContain(file());
    expect(fs.readFileSync(file()).equals(before)).toBe(true);
    expect(fs.readdirSync(dir)).toEqual(['config.json']);
  });

  it('accepts a UTF-8 byte order mark', () => {
    writeConfigText(`\uFEFF${JSON.stringify({ profiles: { default: { token: TOKEN } } })}`);
    expect(openConfig(envWith(), () => {}).profile('default').token).toBe(TOKEN);
  });

  it('reads a missing file as empty', () => {
    const config = openConfig(envWith(), () => {});
    expect(config.profile('default')).toEqual({});
    expect(config.path).toBe(file());
  });

  it('updateProfile keeps other profiles and unknown top-level keys', async () => {
    writeConfig({
      telemetry: false,
      extra: { nested: [1, 2] },
      profiles: { other: { token: 'other-token-1234567', 'base-url': 'https://o.example.com' } },
    });
    const config = openConfig(envWith(), () => {});
    await config.updateProfile('default', (p) => ({ ...p, token: TOKEN }));

    const data = JSON.parse(fs.readFileSync(file(), 'utf8')) as Record<string, unknown>;
    expect(data).toEqual({
      telemetry: false,
      extra: { nested: [1, 2] },
      profiles: {
        other: { token: 'other-token-1234567', 'base-url': 'https://o.example.com' },
        default: { token: TOKEN },
      },
    });
    expect(config.profile('default')).toEqual({ token: TOKEN });
  });

  it('updateProfile removes a profile that becomes empty', async () => {
    writeConfig({ profiles: { default: { token: TOKEN }, keep: { token: 'keep-token-123456' } } });
    const config = openConfig(envWith(), () => {});
    await config.updateProfile('default', ({ token: _gone, ...rest }) => rest);
    const data = JSON.parse(fs.readFileSync(file(), 'utf8')) as { profiles: Record<string, unknown> };
    expect(data.profiles).toEqual({ keep: { token: 'keep-token-123456' } });
  });

  it.runIf(process.platform !== 'win32')('writes the file 0600 in a folder 0700, creating the folder', async () => {
    const nested = path.join(dir, 'deeper', 'plantstore');
    const config = openConfig({ PLANTSTORE_CONFIG_DIR: nested }, () => {});
    await config.updateProfile('default', () => ({ token: TOKEN }));
    expect(fs.statSync(path.join(nested, 'config.json')).mode & 0o777).toBe(0o600);
    expect(fs.statSync(nested).mode & 0o777).toBe(0o700);
  });

  // The folder may be one the user chose and shares (PLANTSTORE_CONFIG_DIR=., a sticky 1777 one):
  // a write never changes its mode. One others can write draws one warning per run, as ssh's would.
  it.runIf(process.platform !== 'win32').each([
    { octal: '700', mode: 0o700, warning: undefined },
    { octal: '755', mode: 0o755, warning: undefined },
    { octal: '750', mode: 0o750, warning: undefined },
    { octal: '770', mode: 0o770, warning: 'is writable by others (mode 770): others could replace the config file' },
    { octal: '777', mode: 0o777, warning: 'is writable by others (mode 777): others could replace the config file' },
    { octal: '1777', mode: 0o1777, warning: 'is writable by others (mode 1777): others could plant a config file or its lock there' },
  ])('an existing folder of mode $octal keeps it through a read and two writes', async ({ mode, warning }) => {
    fs.chmodSync(dir, mode);
    writeConfig({ profiles: { default: { token: TOKEN } } });
    const config = openConfig(envWith(), (line) => warnings.push(line));
    expect(config.profile('default').token).toBe(TOKEN);
    await config.updateProfile('default', (p) => ({ ...p, 'base-url': 'https://api.example.com' }));
    await config.updateProfile('other', () => ({ token: TOKEN }));
    expect(fs.statSync(dir).mode & 0o7777).toBe(mode);
    expect(fs.statSync(file()).mode & 0o777).toBe(0o600);
    if (warning === undefined) {
      expect(warnings).toEqual([]);
    } else {
      expect(warnings).toEqual([`warning: config folder ${dir} ${warning}; use a folder only you can write`]);
    }
  });

  it.runIf(process.platform !== 'win32')(
    'warns about a folder others can write on the first write too, when there was no file',
    async () => {
      fs.chmodSync(dir, 0o777);
      const config = openConfig(envWith(), (line) => warnings.push(line));
      expect(config.profile('default')).toEqual({});
      await config.updateProfile('default', () => ({ token: TOKEN }));
      await config.updateProfile('default', (p) => ({ ...p, 'base-url': 'https://api.example.com' }));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(`config folder ${dir} is writable by others (mode 777)`);
      expect(fs.statSync(dir).mode & 0o7777).toBe(0o777);
    },
  );

  it.runIf(process.platform !== 'win32')('creates missing parents and the folder, the folder 0700 whatever the umask', async () => {
    const nested = path.join(dir, 'a', 'b', 'plantstore');
    const previous = process.umask(0o002);
    try {
      await openConfig({ PLANTSTORE_CONFIG_DIR: nested }, (line) => warnings.push(line)).updateProfile('default', () => ({ token: TOKEN }));
    } finally {
      process.umask(previous);
    }
    expect(fs.statSync(nested).mode & 0o7777).toBe(0o700);
    expect(fs.statSync(path.join(dir, 'a')).mode & 0o077).toBe(0);
    expect(warnings).toEqual([]);
  });

  it.runIf(process.platform !== 'win32')('warns when the file is readable by others', () => {
    writeConfig({ profiles: { default: { token: TOKEN } } }, 0o640);
    const config = openConfig(envWith(), (line) => warnings.push(line));
    expect(config.profile('default').token).toBe(TOKEN);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(file());
    expect(warnings[0]).toMatch(/readable by others.*chmod 600/);
  });

  it.runIf(process.platform !== 'win32')('does not warn for a 0600 file', () => {
    writeConfig({ profiles: { default: { token: TOKEN } } }, 0o600);
    openConfig(envWith(), (line) => warnings.push(line)).profile('default');
    expect(warnings).toEqual([]);
  });

  it('configDir honours PLANTSTORE_CONFIG_DIR, resolved to an absolute path', () => {
    expect(configDir({ PLANTSTORE_CONFIG_DIR: dir })).toBe(dir);
    expect(configDir({ PLANTSTORE_CONFIG_DIR: 'rel/dir' })).toBe(path.resolve('rel/dir'));
    expect(configPath({ PLANTSTORE_CONFIG_DIR: dir, XDG_CONFIG_HOME: '/elsewhere' })).toBe(path.join(dir, 'config.json'));
  });

  it.runIf(process.platform === 'linux')('configDir honours XDG_CONFIG_HOME, else ~/.config', () => {
    expect(configDir({ XDG_CONFIG_HOME: '/xdg/home' })).toBe(path.join('/xdg/home', 'plantstore'));
    expect(configDir({})).toBe(path.join(os.homedir(), '.config', 'plantstore'));
    expect(configDir({ XDG_CONFIG_HOME: '' })).toBe(path.join(os.homedir(), '.config', 'plantstore'));
  });
});

describe('colorLevel', () => {
  it.each<[string, boolean, Record<string, string>, boolean, number]>([
    ['tty, nothing set', true, {}, false, 1],
    ['not a tty, nothing set', false, {}, false, 0],
    ['--no-color beats a tty', true, {}, true, 0],
    ['--no-color beats FORCE_COLOR', true, { FORCE_COLOR: '3' }, true, 0],
    ['FORCE_COLOR=0 on a tty', true, { FORCE_COLOR: '0' }, false, 0],
    ['FORCE_COLOR=false', true, { FORCE_COLOR: 'false' }, false, 0],
    ['FORCE_COLOR=1 without a tty', false, { FORCE_COLOR: '1' }, false, 1],
    ['FORCE_COLOR=2', false, { FORCE_COLOR: '2' }, false, 2],
    ['FORCE_COLOR=3', false, { FORCE_COLOR: '3' }, false, 3],
    ['FORCE_COLOR empty means on', false, { FORCE_COLOR: '' }, false, 1],
    ['FORCE_COLOR beats NO_COLOR', false, { FORCE_COLOR: '1', NO_COLOR: '1' }, false, 1],
    ['NO_COLOR on a tty', true, { NO_COLOR: '1' }, false, 0],
    ['empty NO_COLOR is ignored', true, { NO_COLOR: '' }, false, 1],
    ['TERM=dumb on a tty', true, { TERM: 'dumb' }, false, 0],
    ['FORCE_COLOR beats TERM=dumb', false, { TERM: 'dumb', FORCE_COLOR: '1' }, false, 1],
    ['TERM=xterm on a tty', true, { TERM: 'xterm-256color' }, false, 1],
  ])('%s -> %i', (_name, isTTY, env, noColorFlag, level) => {
    expect(colorLevel(isTTY, env, noColorFlag)).toBe(level);
  });
});

describe('--timeout, PLANTSTORE_TIMEOUT', () => {
  it.each<[string, string | undefined, Record<string, string>, number]>([
    ['default 30 s', undefined, {}, 30_000],
    ['--timeout seconds', '10', {}, 10_000],
    ['--timeout fraction', '2.5', {}, 2_500],
    ['--timeout small fraction', '0.05', {}, 50],
    ['--timeout beats the env', '1', { PLANTSTORE_TIMEOUT: '99' }, 1_000],
    ['--timeout upper bound', '86400', {}, 86_400_000],
    ['env', undefined, { PLANTSTORE_TIMEOUT: '5' }, 5_000],
    ['empty env ignored', undefined, { PLANTSTORE_TIMEOUT: '' }, 30_000],
  ])('%s', (_name, timeout, env, ms) => {
    const options = timeout === undefined ? {} : { timeout };
    expect(flagsFrom(options, env).value(TIMEOUT)).toBe(ms);
  });

  it.each(['0', '-1', 'abc', '1e3', '', '86401', 'Infinity', 'NaN', '0x10', '5s'])(
    'invalid --timeout %j is a usage error (exit 2)',
    (timeout) => {
      const error = thrown(() => flagsFrom({ timeout }, {}).value(TIMEOUT));
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).exit).toBe(2);
      expect((error as UsageError).message).toContain('--timeout');
    },
  );

  it.each(['0', '-1', 'abc', '1e3', '86401', 'soon'])('invalid PLANTSTORE_TIMEOUT %j is a config error (exit 3)', (value) => {
    const error = thrown(() => flagsFrom({}, { PLANTSTORE_TIMEOUT: value }).value(TIMEOUT));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exit).toBe(3);
    expect((error as ConfigError).message).toContain('PLANTSTORE_TIMEOUT');
  });
});
