// Issue 36: each setting from the first place that has it (flag, then environment, then the
// profile, then the default), for every key, whatever else came from the environment; and a
// config file the run cannot use never stops a run whose token and base URL come from outside it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MISSING_ERROR } from '../../../src/commands/plants/shared/missing.js';
import { openConfig } from '../../../src/config/file.js';
import { resolveToken } from '../../../src/config/resolve.js';
import type { AnyFlag } from '../../../src/flags/flag.js';
import { BASE_URL } from '../../../src/flags/global.js';
import { flagReader } from '../../../src/flags/read.js';
import type { Env } from '../../../src/platform/env.js';

const STORED_TOKEN = 'stored-token-0123456789';
const ENV_TOKEN = 'env-token-abcdefghijkl';
const FILE_TOKEN = 'file-token-abcdefghijkl';
const PROFILE = { token: STORED_TOKEN, 'base-url': 'https://profile.example.com', 'missing-error': '7', 'token-command': 'echo stored' };
const FROM_OUTSIDE = { PLANTSTORE_TOKEN: ENV_TOKEN, PLANTSTORE_BASE_URL: 'https://env.example.com' };
const isRoot = process.getuid?.() === 0;

let dir: string;
let file: string;
let warnings: string[];
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plantstore-matrix-'));
  file = path.join(dir, 'config.json');
  warnings = [];
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

type FileState = 'ours' | 'absent' | 'unreadable' | 'not JSON' | 'foreign' | 'writable by others';

/** The config file as the case has it, holding PROFILE as `default` and `staging`. */
function place(state: FileState): void {
  const text = JSON.stringify({ profiles: { default: PROFILE, staging: PROFILE } });
  if (state === 'absent') return;
  // Tests run as root, who reads any file: a folder at the path is what no one can read as a file.
  if (state === 'unreadable') return void fs.mkdirSync(file);
  fs.writeFileSync(file, state === 'not JSON' ? '{ not json' : text, { mode: 0o600 });
  if (state === 'foreign') fs.chownSync(file, 65534, 65534);
  if (state === 'writable by others') fs.chmodSync(file, 0o666);
}

function reader(parsed: Record<string, string>, extra: Env) {
  const env: Env = { PLANTSTORE_CONFIG_DIR: dir, ...extra };
  const config = openConfig(env, (line) => warnings.push(line));
  const flags = flagReader<AnyFlag>(parsed, { env, config: () => config, io: { err: (line) => warnings.push(line) } });
  return { env, config, flags };
}

describe('missing-error: flag, then variable, then profile, then none, with the token and base URL from the environment', () => {
  it.each([
    { given: 'flag', parsed: { missingError: '3' }, env: { PLANTSTORE_MISSING_ERROR: '5' }, value: [3], source: '--missing-error' },
    { given: 'variable', parsed: {}, env: { PLANTSTORE_MISSING_ERROR: '5' }, value: [5], source: 'PLANTSTORE_MISSING_ERROR' },
    { given: 'profile (default)', parsed: {}, env: {}, value: [7], source: `profile 'default' in` },
    { given: 'profile (named)', parsed: { profile: 'staging' }, env: {}, value: [7], source: `profile 'staging' in` },
    {
      given: 'profile (from PLANTSTORE_PROFILE)',
      parsed: {},
      env: { PLANTSTORE_PROFILE: 'staging' },
      value: [7],
      source: `profile 'staging' in`,
    },
  ])('from the $given', ({ parsed, env, value, source }) => {
    place('ours');
    const { flags } = reader(parsed, { ...FROM_OUTSIDE, ...env });
    const found = flags.sourced(MISSING_ERROR);
    expect(found?.value).toEqual(value);
    expect(found?.source).toContain(source);
    expect(warnings).toEqual([]);
  });

  it('none anywhere: the default (no code), the file opened and nothing said', () => {
    fs.writeFileSync(file, JSON.stringify({ profiles: { default: { token: STORED_TOKEN } } }), { mode: 0o600 });
    const { flags } = reader({}, FROM_OUTSIDE);
    expect(flags.sourced(MISSING_ERROR)).toBeUndefined();
    expect(warnings).toEqual([]);
  });
});

describe.each<FileState>(['absent', 'unreadable', 'not JSON', 'foreign', 'writable by others'])('a config file that is %s', (state) => {
  const skipForeign = state === 'foreign' && !isRoot;

  it.skipIf(skipForeign)('supplies nothing, stops nothing, and is said in at most one line naming it', () => {
    place(state);
    const { flags } = reader({}, FROM_OUTSIDE);
    expect(flags.sourced(MISSING_ERROR)).toBeUndefined();
    expect(flags.sourced(BASE_URL)).toEqual({ value: 'https://env.example.com', source: 'PLANTSTORE_BASE_URL' });
    expect(warnings.length).toBeLessThanOrEqual(1);
    if (state === 'absent') expect(warnings).toEqual([]);
    else expect(warnings[0]).toContain(file);
  });

  it.skipIf(skipForeign)('a flag or variable still sets missing-error, nothing said twice', () => {
    place(state);
    expect(reader({ missingError: '3' }, FROM_OUTSIDE).flags.value(MISSING_ERROR)).toEqual([3]);
    expect(reader({}, { ...FROM_OUTSIDE, PLANTSTORE_MISSING_ERROR: '5' }).flags.value(MISSING_ERROR)).toEqual([5]);
    expect(warnings).toEqual([]);
  });

  it.skipIf(skipForeign)('with a profile named, the same', () => {
    place(state);
    const { flags } = reader({ profile: 'staging' }, FROM_OUTSIDE);
    expect(flags.sourced(MISSING_ERROR)).toBeUndefined();
    expect(warnings.length).toBeLessThanOrEqual(1);
  });
});

describe('base-url: flag, then variable, then profile, then none', () => {
  it.each([
    {
      given: 'flag',
      parsed: { baseUrl: 'https://flag.example.com' },
      env: FROM_OUTSIDE,
      source: '--base-url',
      value: 'https://flag.example.com',
    },
    { given: 'variable', parsed: {}, env: FROM_OUTSIDE, source: 'PLANTSTORE_BASE_URL', value: 'https://env.example.com' },
    { given: 'profile', parsed: {}, env: { PLANTSTORE_TOKEN: ENV_TOKEN }, source: `profile 'default' in`, value: PROFILE['base-url'] },
  ])('from the $given', ({ parsed, env, value, source }) => {
    place('ours');
    const found = reader(parsed, env).flags.sourced(BASE_URL);
    expect(found?.value).toBe(value);
    expect(found?.source).toContain(source);
  });

  it('none anywhere: undefined', () => {
    expect(reader({}, { PLANTSTORE_TOKEN: ENV_TOKEN }).flags.sourced(BASE_URL)).toBeUndefined();
  });
});

describe('token and token-command: flag, then variables, then profile, then none', () => {
  const token = async (parsed: Record<string, string>, env: Env) => {
    const { config, flags } = reader(parsed, env);
    const { TOKEN_FILE } = await import('../../../src/flags/global.js');
    return resolveToken({ PLANTSTORE_CONFIG_DIR: dir, ...env }, () => config, 'default', flags.sourced(TOKEN_FILE));
  };

  it('--token-file outranks PLANTSTORE_TOKEN', async () => {
    place('ours');
    const tokenFile = path.join(dir, 'token');
    fs.writeFileSync(tokenFile, FILE_TOKEN);
    expect(await token({ tokenFile }, FROM_OUTSIDE)).toEqual({ value: FILE_TOKEN, source: `token file ${tokenFile}` });
  });

  it('PLANTSTORE_TOKEN outranks PLANTSTORE_TOKEN_FILE, PLANTSTORE_TOKEN_COMMAND and the profile', async () => {
    place('ours');
    const tokenFile = path.join(dir, 'token');
    fs.writeFileSync(tokenFile, FILE_TOKEN);
    const env = { ...FROM_OUTSIDE, PLANTSTORE_TOKEN_FILE: tokenFile, PLANTSTORE_TOKEN_COMMAND: 'echo env' };
    expect(await token({}, env)).toEqual({ value: ENV_TOKEN, source: 'PLANTSTORE_TOKEN' });
  });

  it('PLANTSTORE_TOKEN_COMMAND outranks the profile', async () => {
    place('ours');
    expect(await token({}, { PLANTSTORE_TOKEN_COMMAND: 'echo env' })).toEqual({ command: 'echo env', source: 'PLANTSTORE_TOKEN_COMMAND' });
  });

  it("the profile's token-command, then its stored token", async () => {
    place('ours');
    expect(await token({}, {})).toMatchObject({ command: 'echo stored', source: `profile 'default' in ${file}` });
    fs.writeFileSync(file, JSON.stringify({ profiles: { default: { token: STORED_TOKEN } } }), { mode: 0o600 });
    expect(await token({}, {})).toMatchObject({ value: STORED_TOKEN, source: `profile 'default' in ${file}` });
  });

  it('none anywhere: undefined', async () => {
    expect(await token({}, {})).toBeUndefined();
  });
});
