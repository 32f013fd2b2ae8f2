// argv to the options each config command runs with, captured at the run seam: nothing is read
// or written. The key and value come as typed: the run checks them, after the flags.
import { describe, expect, it } from 'vitest';
import type { GetOptions, ListOptions, PathOptions, SetOptions, UnsetOptions } from '../../../../src/commands/config/flags.js';
import { CliError, Exit } from '../../../../src/errors.js';
import { type OptionsOfRun, optionsOf } from '../../../helpers/options-of.js';

const BASE = 'https://api.example.com/v1';

const get = (argv: string[], run?: OptionsOfRun) => optionsOf('configGet', argv, run);
const set = (argv: string[], run?: OptionsOfRun) => optionsOf('configSet', argv, run);
const unset = (argv: string[], run?: OptionsOfRun) => optionsOf('configUnset', argv, run);
const list = (argv: string[], run?: OptionsOfRun) => optionsOf('configList', argv, run);
const path = (argv: string[], run?: OptionsOfRun) => optionsOf('configPath', argv, run);

describe('config: argv to options', () => {
  it.each<[string, () => Promise<unknown>, GetOptions | SetOptions | UnsetOptions | ListOptions | PathOptions]>([
    ['get', () => get(['config', 'get', 'base-url']), { key: 'base-url', profile: 'default', json: false }],
    [
      'get --json, --profile before the command',
      () => get(['--profile', 'staging', 'config', 'get', 'base-url', '--json']),
      { key: 'base-url', profile: 'staging', json: true },
    ],
    ['get: an unknown key as typed', () => get(['config', 'get', 'token']), { key: 'token', profile: 'default', json: false }],
    [
      'get: PLANTSTORE_PROFILE',
      () => get(['config', 'get', 'missing-error'], { env: { PLANTSTORE_PROFILE: 'ci' } }),
      { key: 'missing-error', profile: 'ci', profileVariable: 'PLANTSTORE_PROFILE', json: false },
    ],
    [
      'set: the value as typed',
      () => set(['config', 'set', 'base-url', `${BASE}/`]),
      { key: 'base-url', value: `${BASE}/`, profile: 'default', quiet: false },
    ],
    [
      'set -q --profile',
      () => set(['config', 'set', '-q', '--profile', 'work', 'missing-error', '1,2']),
      { key: 'missing-error', value: '1,2', profile: 'work', quiet: true },
    ],
    ['unset', () => unset(['config', 'unset', 'base-url']), { key: 'base-url', profile: 'default', quiet: false }],
    [
      'unset -q, PLANTSTORE_PROFILE',
      () => unset(['config', 'unset', 'base-url', '--quiet'], { env: { PLANTSTORE_PROFILE: 'ci' } }),
      { key: 'base-url', profile: 'ci', profileVariable: 'PLANTSTORE_PROFILE', quiet: true },
    ],
    // What is in force is read when the run asks (in-force.test.ts): here, only that it can be asked.
    ['list', () => list(['config', 'list']), { profile: 'default', json: false, inForce: expect.any(Function) }],
    [
      'list --json --profile --base-url',
      () => list(['--json', 'config', 'list', '--profile', 'work', '--base-url', 'https://flag.example.com']),
      { profile: 'work', profileSource: '--profile', json: true, inForce: expect.any(Function) },
    ],
    ['path', () => path(['config', 'path']), { json: false }],
    ['path --json', () => path(['config', 'path', '--json']), { json: true }],
  ])('%s', async (_name, options, expected) => {
    expect(await options()).toEqual(expected);
  });

  it('reports a bad profile before the key is checked', async () => {
    const error = await get(['config', 'get', 'nope'], { env: { PLANTSTORE_PROFILE: 'a b' } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exit).toBe(Exit.config);
    expect((error as CliError).message).toMatch(/PLANTSTORE_PROFILE/);
  });
});
