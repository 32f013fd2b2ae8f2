import { beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, Exit, UsageError } from '../../../src/errors.js';
import { BASE_URL, PROFILE, TIMEOUT } from '../../../src/flags/global.js';
import { type GlobalFlags, settingsFixture } from '../../helpers/settings-fixture.js';
import { thrown } from '../../helpers/thrown.js';

const { envWith, writeConfig, flagsFrom } = settingsFixture();

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
    expect((error as ConfigError).message).toBe(
      `invalid base URL ${shown} (from --base-url): it must not have ${part}; drop everything from the ${shown.at(-3)} on`,
    );
  });

  it.each(['https://api.example.com/v%3F1', 'https://api.example.com/a%23b'])('an encoded ? or # in the path is fine: %j', (raw) => {
    const e = envWith();
    expect(flagsFrom({ baseUrl: raw }, e).sourced(BASE_URL)?.value).toBe(raw);
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
    // One grammar for every time (issue 41): a unit, or a bare number of seconds.
    ['--timeout with s', '5s', {}, 5_000],
    ['--timeout with ms', '500ms', {}, 500],
    ['--timeout with m', '2m', {}, 120_000],
    ['--timeout with h', '1h', {}, 3_600_000],
    ['--timeout fraction with a unit', '1.5s', {}, 1_500],
    ['env with a unit', undefined, { PLANTSTORE_TIMEOUT: '250ms' }, 250],
  ])('%s', (_name, timeout, env, ms) => {
    const options = timeout === undefined ? {} : { timeout };
    expect(flagsFrom(options, env).value(TIMEOUT)).toBe(ms);
  });

  it.each(['0', '-1', 'abc', '1e3', '', '86401', 'Infinity', 'NaN', '0x10', '5 s', '5sec', '9ms', '25h', '1d', '-5s'])(
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
