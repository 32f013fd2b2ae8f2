// The config folder and the folders above it are stat'ed once per run (config/file.ts,
// config/path-trust.ts): the path check, the shared-folder warning and the token-command's
// folder rule all read the one stat the walk took. Counted on the fs module file.ts calls.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openConfig } from '../../../src/config/file.js';
import { resolveToken } from '../../../src/config/resolve.js';
import { settingsFixture } from '../../helpers/settings-fixture.js';

const { envWith, writeConfig, dir, warnings } = settingsFixture();

afterEach(() => vi.restoreAllMocks());

/** How many times each folder from the config folder up to / was stat'ed or lstat'ed while `run` ran. */
async function statsOfPath(run: () => Promise<unknown>): Promise<Map<string, number>> {
  const above = new Set<string>();
  for (let folder = fs.realpathSync(dir()); ; folder = path.dirname(folder)) {
    above.add(folder);
    if (path.dirname(folder) === folder) break;
  }
  const counts = new Map<string, number>();
  const count = (target: fs.PathLike) => {
    const key = String(target);
    if (above.has(key)) counts.set(key, (counts.get(key) ?? 0) + 1);
  };
  const stat = fs.statSync;
  const lstat = fs.lstatSync;
  vi.spyOn(fs, 'statSync').mockImplementation(((target: fs.PathLike, options?: fs.StatSyncOptions) => {
    count(target);
    return stat(target, options);
  }) as typeof fs.statSync);
  vi.spyOn(fs, 'lstatSync').mockImplementation(((target: fs.PathLike, options?: fs.StatSyncOptions) => {
    count(target);
    return lstat(target, options);
  }) as typeof fs.lstatSync);
  await run();
  return counts;
}

describe.runIf(process.platform !== 'win32')('a run that reads the config file', () => {
  it.each([
    ['a stored token', { token: 'stored-Token-0123456789' }],
    ['a token-command (the folder rule of trust.ts asks for the folder mode too)', { 'token-command': 'print-token' }],
  ])('%s: each folder on the path is stat’ed once, and its rules all still hold', async (_name, profile) => {
    fs.chmodSync(dir(), 0o1777);
    writeConfig({ profiles: { default: { ...profile, 'base-url': 'https://api.example.com' } } });
    const env = envWith();
    const config = openConfig(env, (line) => warnings().push(line));
    let outcome: unknown;
    const counts = await statsOfPath(async () => {
      outcome = await resolveToken(env, () => config, 'default', undefined).catch((error: Error) => error.message);
      config.distrust();
      config.folderWritableByOthers();
    });
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(counts.get(fs.realpathSync(dir()))).toBe(1);
    // The rules the one stat feeds: the sticky shared folder is warned of, and refuses a token-command.
    expect(warnings()).toEqual([
      `warning: config folder ${dir()} is writable by others (mode 1777): others could plant a config file or its lock there; use a folder only you can write`,
    ]);
    if ('token-command' in profile)
      expect(outcome).toMatch(/^refusing to run the token-command of profile 'default': its config folder .* \(mode 1777\)/);
    else expect(outcome).toEqual({ value: profile.token, source: `profile 'default' in ${path.join(dir(), 'config.json')}` });
  });
});
