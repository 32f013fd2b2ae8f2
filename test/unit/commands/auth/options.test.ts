// argv to the options each auth command runs with, captured at the run seam: nothing is stored,
// read or printed. Which flag, variable or profile setting each option comes from, and which
// bad value is reported first.
import { describe, expect, it } from 'vitest';
import type { LoginOptions, LogoutOptions, StatusOptions, TokenOptions } from '../../../../src/commands/auth/flags.js';
import { CliError, Exit } from '../../../../src/errors.js';
import { type OptionsOfRun, optionsOf } from '../../../helpers/options-of.js';

const BASE = 'https://api.example.com/v1';
const FROM_PROFILE = expect.stringMatching(/^profile 'default' in .*config\.json$/);

const login = (argv: string[], run?: OptionsOfRun) => optionsOf('login', argv, run);
const logout = (argv: string[], run?: OptionsOfRun) => optionsOf('logout', argv, run);
const status = (argv: string[], run?: OptionsOfRun) => optionsOf('status', argv, run);
const token = (argv: string[], run?: OptionsOfRun) => optionsOf('token', argv, run);

describe('auth login: argv to options', () => {
  it.each<[string, string[], OptionsOfRun, LoginOptions]>([
    ['defaults', ['auth', 'login'], {}, { profile: 'default', baseUrl: undefined, withToken: false, json: false, quiet: false }],
    [
      '--with-token',
      ['auth', 'login', '--with-token'],
      {},
      { profile: 'default', baseUrl: undefined, withToken: true, json: false, quiet: false },
    ],
    [
      '--profile before the command, --json -q after',
      ['--profile', 'staging', 'auth', 'login', '--json', '-q'],
      {},
      { profile: 'staging', baseUrl: undefined, withToken: false, json: true, quiet: true },
    ],
    ['-q alone', ['auth', 'login', '-q'], {}, { profile: 'default', baseUrl: undefined, withToken: false, json: false, quiet: true }],
    [
      'PLANTSTORE_PROFILE',
      ['auth', 'login'],
      { env: { PLANTSTORE_PROFILE: 'ci' } },
      { profile: 'ci', baseUrl: undefined, withToken: false, json: false, quiet: false },
    ],
    [
      'a typed --base-url, without its trailing slash',
      ['auth', 'login', '--base-url', `${BASE}/`],
      {},
      { profile: 'default', baseUrl: BASE, withToken: false, json: false, quiet: false },
    ],
    [
      'a base URL from the environment is not stored again',
      ['auth', 'login'],
      { env: { PLANTSTORE_BASE_URL: BASE } },
      { profile: 'default', baseUrl: undefined, withToken: false, json: false, quiet: false },
    ],
    [
      'nor one from the profile',
      ['auth', 'login'],
      { profiles: { default: { 'base-url': BASE } } },
      { profile: 'default', baseUrl: undefined, withToken: false, json: false, quiet: false },
    ],
  ])('%s', async (_name, argv, run, expected) => {
    expect(await login(argv, run)).toEqual(expected);
  });

  it('reports a bad --profile before a bad --base-url', async () => {
    const error = await login(['auth', 'login', '--profile', 'a b', '--base-url', 'ftp://x']).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exit).toBe(Exit.usage);
    expect((error as CliError).message).toMatch(/--profile/);
  });
});

describe('auth logout: argv to options', () => {
  it.each<[string, string[], OptionsOfRun, LogoutOptions]>([
    ['defaults', ['auth', 'logout'], {}, { profile: 'default', quiet: false }],
    ['--profile -q', ['auth', 'logout', '--profile', 'work', '-q'], {}, { profile: 'work', quiet: true }],
    [
      'PLANTSTORE_PROFILE',
      ['auth', 'logout'],
      { env: { PLANTSTORE_PROFILE: 'ci' } },
      { profile: 'ci', profileVariable: 'PLANTSTORE_PROFILE', quiet: false },
    ],
  ])('%s', async (_name, argv, run, expected) => {
    expect(await logout(argv, run)).toEqual(expected);
  });
});

describe('auth status: argv to options', () => {
  it.each<[string, string[], OptionsOfRun, StatusOptions]>([
    [
      'defaults',
      ['auth', 'status'],
      {},
      {
        profile: 'default',
        profileSource: undefined,
        tokenFile: undefined,
        baseUrl: undefined,
        missingError: undefined,
        json: false,
        timeoutMs: 30_000,
      },
    ],
    [
      '--token-file, --base-url, --json',
      ['auth', 'status', '--token-file', 'tok.txt', '--base-url', BASE, '--json', '--timeout', '5'],
      {},
      {
        profile: 'default',
        profileSource: undefined,
        tokenFile: { value: 'tok.txt', source: '--token-file' },
        baseUrl: { value: BASE, source: '--base-url' },
        missingError: undefined,
        json: true,
        timeoutMs: 5_000,
      },
    ],
    [
      'the variables',
      ['auth', 'status'],
      { env: { PLANTSTORE_TOKEN_FILE: 't', PLANTSTORE_BASE_URL: BASE, PLANTSTORE_PROFILE: 'ci', PLANTSTORE_MISSING_ERROR: '1' } },
      {
        profile: 'ci',
        profileSource: 'PLANTSTORE_PROFILE',
        profileVariable: 'PLANTSTORE_PROFILE',
        tokenFile: { value: 't', source: 'PLANTSTORE_TOKEN_FILE' },
        baseUrl: { value: BASE, source: 'PLANTSTORE_BASE_URL' },
        missingError: { value: [1], source: 'PLANTSTORE_MISSING_ERROR' },
        json: false,
        timeoutMs: 30_000,
      },
    ],
    [
      'the base URL and missing-error of the profile',
      ['auth', 'status'],
      { profiles: { default: { 'base-url': BASE, 'missing-error': '1' } } },
      {
        profile: 'default',
        profileSource: undefined,
        tokenFile: undefined,
        baseUrl: { value: BASE, source: FROM_PROFILE },
        missingError: { value: [1], source: FROM_PROFILE },
        json: false,
        timeoutMs: 30_000,
      },
    ],
  ])('%s', async (_name, argv, run, expected) => {
    expect(await status(argv, run)).toEqual(expected);
  });

  it('stops at a bad base URL before the run looks for a token', async () => {
    // The token is resolved by the run, after every flag is read: with a bad PLANTSTORE_TOKEN too,
    // the base URL's error is the one reported.
    const error = await status(['auth', 'status'], { env: { PLANTSTORE_BASE_URL: 'not a url', PLANTSTORE_TOKEN: 'x' } }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).message).toMatch(/PLANTSTORE_BASE_URL/);
  });
});

describe('auth token: argv to options', () => {
  it.each<[string, string[], OptionsOfRun, TokenOptions]>([
    ['defaults', ['auth', 'token'], {}, { profile: 'default', tokenFile: undefined, timeoutMs: 30_000 }],
    [
      '--profile --token-file',
      ['--profile', 'work', 'auth', 'token', '--token-file', '/run/secrets/t', '--timeout', '2'],
      {},
      { profile: 'work', tokenFile: { value: '/run/secrets/t', source: '--token-file' }, timeoutMs: 2_000 },
    ],
    [
      'PLANTSTORE_TOKEN_FILE',
      ['auth', 'token'],
      { env: { PLANTSTORE_TOKEN_FILE: 't' } },
      { profile: 'default', tokenFile: { value: 't', source: 'PLANTSTORE_TOKEN_FILE' }, timeoutMs: 30_000 },
    ],
  ])('%s', async (_name, argv, run, expected) => {
    expect(await token(argv, run)).toEqual(expected);
  });
});
