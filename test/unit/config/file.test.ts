// The config file (config/file.ts): where it is, what it holds, how it is read and written.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configDir, configPath, openConfig } from '../../../src/config/file.js';
import { ConfigError } from '../../../src/errors.js';
import { settingsFixture, TOKEN } from '../../helpers/settings-fixture.js';
import { rejection, thrown } from '../../helpers/thrown.js';

const { envWith, writeConfig, writeConfigText, dir, warnings } = settingsFixture();

describe('config file', () => {
  const file = (): string => path.join(dir(), 'config.json');

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
    const config = openConfig(envWith(), (line) => warnings().push(line));

    const readError = thrown(() => config.profile('default'));
    expect(readError).toBeInstanceOf(ConfigError);
    expect((readError as ConfigError).exit).toBe(3);
    expect((readError as ConfigError).message).toContain(file());
    expect((readError as ConfigError).message).toMatch(problem);

    const writeError = await rejection(config.updateProfile('default', (p) => ({ ...p, token: TOKEN })));
    expect(writeError).toBeInstanceOf(ConfigError);
    expect((writeError as ConfigError).message).toContain(file());
    expect(fs.readFileSync(file()).equals(before)).toBe(true);
    expect(fs.readdirSync(dir())).toEqual(['config.json']);
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
    const nested = path.join(dir(), 'deeper', 'plantstore');
    const config = openConfig({ PLANTSTORE_CONFIG_DIR: nested }, () => {});
    await config.updateProfile('default', () => ({ token: TOKEN }));
    expect(fs.statSync(path.join(nested, 'config.json')).mode & 0o777).toBe(0o600);
    expect(fs.statSync(nested).mode & 0o777).toBe(0o700);
  });

  // The folder may be one the user chose and shares (PLANTSTORE_CONFIG_DIR=., a sticky 1777 one):
  // a write never changes its mode. A sticky one others can write draws one warning per run, as ssh's would.
  it.runIf(process.platform !== 'win32').each([
    { octal: '700', mode: 0o700, warning: undefined },
    { octal: '755', mode: 0o755, warning: undefined },
    { octal: '750', mode: 0o750, warning: undefined },
    { octal: '1777', mode: 0o1777, warning: 'is writable by others (mode 1777): others could plant a config file or its lock there' },
  ])('an existing folder of mode $octal keeps it through a read and two writes', async ({ mode, warning }) => {
    fs.chmodSync(dir(), mode);
    writeConfig({ profiles: { default: { token: TOKEN } } });
    const config = openConfig(envWith(), (line) => warnings().push(line));
    expect(config.profile('default').token).toBe(TOKEN);
    await config.updateProfile('default', (p) => ({ ...p, 'base-url': 'https://api.example.com' }));
    await config.updateProfile('other', () => ({ token: TOKEN }));
    expect(fs.statSync(dir()).mode & 0o7777).toBe(mode);
    expect(fs.statSync(file()).mode & 0o777).toBe(0o600);
    expect(config.distrust()).toBeUndefined();
    if (warning === undefined) {
      expect(warnings()).toEqual([]);
    } else {
      expect(warnings()).toEqual([`warning: config folder ${dir()} ${warning}; use a folder only you can write`]);
    }
  });

  // Without the sticky bit, others can replace the file: nothing in it is theirs to trust (issue 34).
  it.runIf(process.platform !== 'win32').each([
    { octal: '770', mode: 0o770 },
    { octal: '777', mode: 0o777 },
    { octal: '720', mode: 0o720 },
  ])('a folder of mode $octal: one warning, nothing used, never written (exit 3, mode kept)', async ({ mode, octal }) => {
    fs.chmodSync(dir(), mode);
    writeConfig({ profiles: { default: { token: TOKEN } } });
    const before = fs.readFileSync(file());
    const config = openConfig(envWith(), (line) => warnings().push(line));
    config.profile('default');
    const distrust = config.distrust();
    expect(distrust).toEqual({
      what: `config file ${file()} is reached through folder ${dir()}, which is writable by others (mode ${octal})`,
      fix: `check the file, then run chmod go-w ${dir()}`,
    });
    expect(warnings()).toEqual([
      `warning: ${distrust?.what}: nothing in it is used (token, base-url, missing-error, token-command, max-deletes), and it is not rewritten; to use it, check the file, then run chmod go-w ${dir()}`,
    ]);
    const error = await rejection(config.updateProfile('default', (p) => ({ ...p, 'base-url': 'https://api.example.com' })));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exit).toBe(3);
    expect((error as ConfigError).message).toBe(`refusing to write config file ${file()}: ${distrust?.what}; ${distrust?.fix}`);
    expect(fs.readFileSync(file()).equals(before)).toBe(true);
    expect(fs.statSync(dir()).mode & 0o7777).toBe(mode);
  });

  it.runIf(process.platform !== 'win32')('a first write into a folder others can write is refused: no file, no lock left', async () => {
    fs.chmodSync(dir(), 0o777);
    const config = openConfig(envWith(), (line) => warnings().push(line));
    expect(config.profile('default')).toEqual({});
    const error = await rejection(config.updateProfile('default', () => ({ token: TOKEN })));
    expect((error as ConfigError).exit).toBe(3);
    expect((error as ConfigError).message).toContain(`chmod go-w ${dir()}`);
    expect(fs.readdirSync(dir())).toEqual([]);
    expect(fs.statSync(dir()).mode & 0o7777).toBe(0o777);
  });

  it.runIf(process.platform !== 'win32')('creates missing parents and the folder, the folder 0700 whatever the umask', async () => {
    const nested = path.join(dir(), 'a', 'b', 'plantstore');
    const previous = process.umask(0o002);
    try {
      await openConfig({ PLANTSTORE_CONFIG_DIR: nested }, (line) => warnings().push(line)).updateProfile('default', () => ({
        token: TOKEN,
      }));
    } finally {
      process.umask(previous);
    }
    expect(fs.statSync(nested).mode & 0o7777).toBe(0o700);
    expect(fs.statSync(path.join(dir(), 'a')).mode & 0o077).toBe(0);
    expect(warnings()).toEqual([]);
  });

  it.runIf(process.platform !== 'win32')('warns when the file is readable by others', () => {
    writeConfig({ profiles: { default: { token: TOKEN } } }, 0o640);
    const config = openConfig(envWith(), (line) => warnings().push(line));
    expect(config.profile('default').token).toBe(TOKEN);
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toContain(file());
    expect(warnings()[0]).toMatch(/readable by others.*chmod 600/);
  });

  // Writable is the worse problem: what the file says may be someone else's (resolve.test.ts shows what is refused).
  it.runIf(process.platform !== 'win32').each([
    { octal: '666', mode: 0o666 },
    { octal: '646', mode: 0o646 },
    { octal: '660', mode: 0o660 },
  ])('a file of mode $octal is named writable by others, and never rewritten (exit 3, file untouched)', async ({ mode, octal }) => {
    writeConfig({ profiles: { default: { token: TOKEN, 'token-command': 'pass show plantstore' } } }, mode);
    const before = fs.readFileSync(file());
    const config = openConfig(envWith(), (line) => warnings().push(line));
    expect(config.profile('default').token).toBe(TOKEN);
    expect(warnings()).toEqual([
      `warning: config file ${file()} is writable by others (mode ${octal}): nothing in it is used (token, base-url, missing-error, token-command, max-deletes), and it is not rewritten; to use it, check it, then run chmod 600 ${file()}`,
    ]);
    // A rewrite would give the file mode 0600 and keep the token-command: it would look like yours.
    const error = await rejection(config.updateProfile('default', (p) => ({ ...p, 'missing-error': '5' })));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exit).toBe(3);
    expect((error as ConfigError).message).toBe(
      `config file ${file()} is writable by others (mode ${octal}): plantstore does not rewrite it, since the new file would keep what someone else may have written there as if it were yours; check it, then run chmod 600 ${file()}`,
    );
    expect(fs.readFileSync(file()).equals(before)).toBe(true);
    expect(fs.statSync(file()).mode & 0o777).toBe(mode);
  });

  it.runIf(process.platform !== 'win32')('does not warn for a 0600 file', () => {
    writeConfig({ profiles: { default: { token: TOKEN } } }, 0o600);
    openConfig(envWith(), (line) => warnings().push(line)).profile('default');
    expect(warnings()).toEqual([]);
  });

  it('configDir honours PLANTSTORE_CONFIG_DIR, resolved to an absolute path', () => {
    expect(configDir({ PLANTSTORE_CONFIG_DIR: dir() })).toBe(dir());
    expect(configDir({ PLANTSTORE_CONFIG_DIR: 'rel/dir' })).toBe(path.resolve('rel/dir'));
    expect(configPath({ PLANTSTORE_CONFIG_DIR: dir(), XDG_CONFIG_HOME: '/elsewhere' })).toBe(path.join(dir(), 'config.json'));
  });

  it.runIf(process.platform === 'linux')('configDir honours XDG_CONFIG_HOME, else ~/.config', () => {
    expect(configDir({ XDG_CONFIG_HOME: '/xdg/home' })).toBe(path.join('/xdg/home', 'plantstore'));
    expect(configDir({})).toBe(path.join(os.homedir(), '.config', 'plantstore'));
    expect(configDir({ XDG_CONFIG_HOME: '' })).toBe(path.join(os.homedir(), '.config', 'plantstore'));
  });
});
