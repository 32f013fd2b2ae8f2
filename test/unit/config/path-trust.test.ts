// The path to the config folder, checked as ssh checks a key's (config/path-trust.ts): every folder
// up to home (or /) the user's or root's and not writable by others unless sticky, and no link on
// the way owned by another user. "Another user" is uid 65534: these tests chown, so they run as root.
import { chmodSync, chownSync, lchownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openConfig } from '../../../src/config/file.js';
import { pathProblem } from '../../../src/config/path-trust.js';
import { resolveToken } from '../../../src/config/resolve.js';
import { ConfigError } from '../../../src/errors.js';
import { rejection } from '../../helpers/thrown.js';

const OTHER = 65534;
const asRoot = process.platform !== 'win32' && process.getuid?.() === 0;

let base: string;
beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), 'plantstore-path-'));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** A config folder of the victim's own, holding a token-command that leaves a mark when run. */
function victimConfig(folder: string): string {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const mark = path.join(base, 'ran');
  writeFileSync(
    path.join(folder, 'config.json'),
    JSON.stringify({ profiles: { default: { 'token-command': `touch ${mark}`, 'base-url': 'https://api.example.com' } } }),
    { mode: 0o600 },
  );
  return mark;
}

describe.runIf(asRoot)('the path to the config folder', () => {
  it("the issue's case: a link another user planted in a shared sticky folder, to a folder of yours: nothing used, the command never run (exit 3)", async () => {
    const shared = path.join(base, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const yours = path.join(base, 'yours', 'other-config');
    victimConfig(yours);
    const link = path.join(shared, 'plantstore');
    symlinkSync(yours, link);
    lchownSync(link, OTHER, OTHER);
    const warnings: string[] = [];
    const env = { PLANTSTORE_CONFIG_DIR: link };
    const config = openConfig(env, (line) => warnings.push(line));
    const error = await rejection(resolveToken(env, () => config, 'default', undefined));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exit).toBe(3);
    expect((error as ConfigError).message).toBe(
      `refusing to run the token-command of profile 'default': config file ${link}/config.json is reached through symbolic link ${link}, which belongs to another user (uid ${OTHER}), who can point it anywhere, so someone else could have put it there; check the file, then remove it, or set PLANTSTORE_CONFIG_DIR to a folder of your own`,
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('nothing in it is used');
  });

  it('the same link owned by you or by root is followed, and the folder it leads to is checked', () => {
    const yours = path.join(base, 'yours');
    victimConfig(yours);
    const link = path.join(base, 'link');
    symlinkSync(yours, link);
    expect(pathProblem(link, undefined)).toBeUndefined();
    chmodSync(yours, 0o777);
    expect(pathProblem(link, undefined)).toEqual({
      kind: 'writable',
      what: `folder ${yours}`,
      why: 'is writable by others (mode 777)',
      fix: `run chmod go-w ${yours}`,
    });
  });

  it('a link inside the target of a link is checked too (followed one part at a time)', () => {
    const real = path.join(base, 'real');
    mkdirSync(real);
    const inner = path.join(base, 'inner');
    symlinkSync(real, inner);
    lchownSync(inner, OTHER, OTHER);
    const outer = path.join(base, 'outer');
    symlinkSync('inner', outer);
    expect(pathProblem(path.join(outer), undefined)?.what).toBe(`symbolic link ${inner}`);
  });

  it.each([
    { octal: '777', mode: 0o777, bad: true },
    { octal: '770', mode: 0o770, bad: true },
    { octal: '1777', mode: 0o1777, bad: false },
    { octal: '755', mode: 0o755, bad: false },
  ])('a folder above the config folder of mode $octal: refused $bad', ({ mode, octal, bad }) => {
    const above = path.join(base, 'above');
    const folder = path.join(above, 'plantstore');
    victimConfig(folder);
    chmodSync(above, mode);
    const problem = pathProblem(folder, undefined);
    expect(problem).toEqual(
      bad
        ? { kind: 'writable', what: `folder ${above}`, why: `is writable by others (mode ${octal})`, fix: `run chmod go-w ${above}` }
        : undefined,
    );
  });

  it("a folder above it that is another user's is refused; root's is not", () => {
    const above = path.join(base, 'above');
    const folder = path.join(above, 'plantstore');
    victimConfig(folder);
    chownSync(above, OTHER, OTHER);
    expect(pathProblem(folder, undefined)).toEqual({
      kind: 'foreign',
      what: `folder ${above}`,
      why: `belongs to another user (uid ${OTHER})`,
      fix: 'use a folder of your own (set PLANTSTORE_CONFIG_DIR)',
    });
    chownSync(above, 0, 0);
    expect(pathProblem(folder, undefined)).toBeUndefined();
  });

  it('the walk stops at the stop folder (home): what is above it is not checked', () => {
    const above = path.join(base, 'above');
    const home = path.join(above, 'home');
    const folder = path.join(home, '.config', 'plantstore');
    victimConfig(folder);
    chmodSync(above, 0o777);
    expect(pathProblem(folder, home)).toBeUndefined();
    expect(pathProblem(folder, undefined)?.what).toBe(`folder ${above}`);
  });

  it('a config folder not created yet: the folders that exist are checked', () => {
    chmodSync(base, 0o777);
    expect(pathProblem(path.join(base, 'not', 'yet'), undefined)?.what).toBe(`folder ${base}`);
    chmodSync(base, 0o700);
    expect(pathProblem(path.join(base, 'not', 'yet'), undefined)).toBeUndefined();
  });

  it('a config file in a folder another user owns supplies nothing, and is never written', async () => {
    const folder = path.join(base, 'theirs');
    victimConfig(folder);
    chownSync(folder, OTHER, OTHER);
    const env = { PLANTSTORE_CONFIG_DIR: folder };
    const config = openConfig(env, () => {});
    expect(config.distrust()?.what).toBe(
      `config file ${folder}/config.json is reached through folder ${folder}, which belongs to another user (uid ${OTHER})`,
    );
    const error = await rejection(config.updateProfile('default', () => ({ token: 'x-Token-123456789' })));
    expect((error as ConfigError).exit).toBe(3);
  });
});
