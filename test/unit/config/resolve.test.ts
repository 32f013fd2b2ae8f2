import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MISSING_ERROR } from '../../../src/commands/plants/shared/missing.js';
import { resolveTarget, resolveToken } from '../../../src/config/resolve.js';
import { ConfigError } from '../../../src/errors.js';
import { ENV_TOKEN, settingsFixture, TOKEN } from '../../helpers/settings-fixture.js';
import { rejection, thrown } from '../../helpers/thrown.js';

const { envWith, writeConfig, writeConfigText, configFor, flagsFrom, targetFrom, targetOf, dir, warnings } = settingsFixture();

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
    expect(result).toMatchObject({ value: TOKEN });
    expect(result?.source).toContain(path.join(dir(), 'config.json'));
  });

  it('does not read the config file when the env has a token', async () => {
    writeConfigText('{ corrupt');
    const e = envWith({ PLANTSTORE_TOKEN: ENV_TOKEN });
    expect(await resolveToken(e, configFor(e), 'default', undefined)).toMatchObject({ value: ENV_TOKEN });
  });

  it('trims the env token', async () => {
    const e = envWith({ PLANTSTORE_TOKEN: `  ${ENV_TOKEN}\n` });
    expect(await resolveToken(e, configFor(e), 'default', undefined)).toMatchObject({ value: ENV_TOKEN });
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
    expect((error as ConfigError).message).toContain(path.join(dir(), 'config.json'));
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
      token: { value: TOKEN, source: expect.stringContaining("profile 'work'") },
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

describe('a token command among the sources, strongest first', () => {
  const CMD = 'pass show plantstore';
  it.each<[string, Record<string, string>, Record<string, string>, unknown]>([
    [
      'PLANTSTORE_TOKEN over everything',
      { PLANTSTORE_TOKEN: ENV_TOKEN, PLANTSTORE_TOKEN_COMMAND: 'env-cmd' },
      { 'token-command': CMD, token: TOKEN },
      { value: ENV_TOKEN, source: 'PLANTSTORE_TOKEN' },
    ],
    [
      'PLANTSTORE_TOKEN_COMMAND over the profile',
      { PLANTSTORE_TOKEN_COMMAND: ' env-cmd --x ' },
      { 'token-command': CMD, token: TOKEN },
      { command: 'env-cmd --x', source: 'PLANTSTORE_TOKEN_COMMAND' },
    ],
    [
      "the profile's token-command over its token",
      {},
      { 'token-command': CMD, token: TOKEN },
      { command: CMD, source: expect.stringContaining("profile 'default'") },
    ],
    ["the profile's token last", {}, { token: TOKEN }, { value: TOKEN, source: expect.stringContaining("profile 'default'") }],
    [
      'an empty PLANTSTORE_TOKEN_COMMAND is unset',
      { PLANTSTORE_TOKEN_COMMAND: '  ' },
      { token: TOKEN },
      { value: TOKEN, source: expect.any(String) },
    ],
  ])('%s', async (_name, env, profile, expected) => {
    writeConfig({ profiles: { default: profile } });
    const e = envWith(env);
    expect(await resolveToken(e, configFor(e), 'default', undefined)).toEqual(expected);
  });

  it('a token file comes before PLANTSTORE_TOKEN_COMMAND', async () => {
    const file = path.join(dir(), 'token.txt');
    fs.writeFileSync(file, `${TOKEN}\n`);
    const e = envWith({ PLANTSTORE_TOKEN_COMMAND: 'env-cmd' });
    expect(await resolveToken(e, configFor(e), 'default', { value: file, source: '--token-file' })).toMatchObject({ value: TOKEN });
  });

  it("refuses a profile's token-command from a config folder others can write (exit 3), never running it", async () => {
    writeConfig({ profiles: { default: { 'token-command': CMD } } });
    fs.chmodSync(dir(), 0o777);
    try {
      const e = envWith();
      const error = await rejection(resolveToken(e, configFor(e), 'default', undefined));
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message).toMatch(
        /refusing to run the token-command of profile 'default': its config folder .* is writable by others \(mode 777\)/,
      );
    } finally {
      fs.chmodSync(dir(), 0o700);
    }
  });

  // The file is ours (a foreign one is refused outright), but others can write it: what it says
  // could be theirs, and these two keys decide what runs as you and where your token goes.
  describe.runIf(process.platform !== 'win32')('from a config file others can write', () => {
    const fix = (): string => `check it, then run chmod 600 ${path.join(dir(), 'config.json')}`;
    const modes = (...list: number[]) => list.map((mode) => ({ mode, octal: mode.toString(8) }));
    const profile = { 'token-command': CMD, 'base-url': 'https://api.example.com', token: TOKEN };

    it.each(modes(0o666, 0o646, 0o660, 0o620, 0o602))('mode $octal: the token-command is refused (exit 3), never run', async ({ mode }) => {
      writeConfig({ profiles: { default: profile } }, mode);
      const e = envWith({ PLANTSTORE_BASE_URL: 'https://api.example.com' });
      const error = await rejection(resolveToken(e, configFor(e), 'default', undefined));
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).exit).toBe(3);
      expect((error as ConfigError).message).toBe(
        `refusing to run the token-command of profile 'default': config file ${path.join(dir(), 'config.json')} is writable by others (mode ${mode.toString(8)}), so someone else could have put it there; ${fix()}`,
      );
    });

    it.each(modes(0o666, 0o646, 0o660))('mode $octal: the base-url is refused (exit 3), so the token goes nowhere', async ({ mode }) => {
      writeConfig({ profiles: { default: { 'base-url': 'https://api.example.com', token: TOKEN } } }, mode);
      const e = envWith({ PLANTSTORE_TOKEN: ENV_TOKEN });
      const error = await rejection(Promise.resolve().then(() => resolveTarget(targetFrom({}, e), e, configFor(e))));
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).exit).toBe(3);
      expect((error as ConfigError).message).toBe(
        `refusing to use the base-url of profile 'default': config file ${path.join(dir(), 'config.json')} is writable by others (mode ${mode.toString(8)}), so someone else could have pointed your token at their server; ${fix()}`,
      );
      expect((error as ConfigError).message).not.toContain(ENV_TOKEN);
    });

    it.each(modes(0o600, 0o644, 0o640, 0o604))('mode $octal (only you can write it): both are used', async ({ mode }) => {
      writeConfig({ profiles: { default: { 'token-command': CMD, 'base-url': 'https://api.example.com' } } }, mode);
      const e = envWith();
      expect(await targetOf({}, e)).toMatchObject({ baseUrl: 'https://api.example.com', token: { command: CMD } });
    });

    // Issue 34: a token someone else put there would make your deletions theirs (and tell them nothing you did not send).
    it('a stored token is refused too (exit 3), with a base URL from elsewhere', async () => {
      writeConfig({ profiles: { default: { token: TOKEN } } }, 0o666);
      const e = envWith({ PLANTSTORE_BASE_URL: 'https://api.example.com' });
      const error = await rejection(resolveToken(e, configFor(e), 'default', undefined));
      expect((error as ConfigError).exit).toBe(3);
      expect((error as ConfigError).message).toBe(
        `refusing to use the stored token of profile 'default': config file ${path.join(dir(), 'config.json')} is writable by others (mode 666), so someone else could have put their own token there, so your deletions would be made as them; ${fix()}`,
      );
      expect((error as ConfigError).message).not.toContain(TOKEN);
    });

    it('a missing-error is refused too (exit 3) where the run needs the file: a planted one would turn failures into "already absent"', () => {
      writeConfig({ profiles: { default: { 'missing-error': '7' } } }, 0o646);
      const e = envWith({ PLANTSTORE_TOKEN: ENV_TOKEN });
      const flags = flagsFrom({ profile: 'default' }, e);
      const error = thrown(() => flags.value(MISSING_ERROR));
      expect((error as ConfigError).exit).toBe(3);
      expect((error as ConfigError).message).toBe(
        `refusing to use the missing-error of profile 'default': config file ${path.join(dir(), 'config.json')} is writable by others (mode 646), so someone else could have made failures read as plants already absent; ${fix()}`,
      );
    });

    it('with the token and base URL from the environment, its missing-error is simply not used: the run goes on', () => {
      writeConfig({ profiles: { default: { 'missing-error': '7' } } }, 0o646);
      const e = envWith({ PLANTSTORE_TOKEN: ENV_TOKEN, PLANTSTORE_BASE_URL: 'https://api.example.com' });
      expect(flagsFrom({ profile: 'default' }, e).sourced(MISSING_ERROR)).toBeUndefined();
    });

    it('a run that needs nothing from it is told once, and goes on', async () => {
      writeConfig({ profiles: { default: { token: TOKEN } } }, 0o666);
      const e = envWith({ PLANTSTORE_TOKEN: ENV_TOKEN, PLANTSTORE_BASE_URL: 'https://api.example.com' });
      const config = configFor(e);
      // --profile named: the file is opened for the missing-error it does not hold.
      expect(flagsFrom({ profile: 'default' }, e, config).value(MISSING_ERROR)).toBeUndefined();
      expect(await resolveToken(e, config, 'default', undefined)).toMatchObject({ value: ENV_TOKEN });
      expect(warnings()).toEqual([
        `warning: config file ${path.join(dir(), 'config.json')} is writable by others (mode 666): nothing in it is used (token, base-url, missing-error, token-command, max-deletes), and it is not rewritten; to use it, ${fix()}`,
      ]);
    });
  });

  it('a target with a token command carries the command, and redacts nothing yet', async () => {
    writeConfig({ profiles: { default: { 'token-command': CMD, 'base-url': 'https://api.example.com' } } });
    const e = envWith();
    const redacted: string[] = [];
    const target = await resolveTarget(targetFrom({}, e), e, configFor(e), (secret) => redacted.push(secret));
    expect(target).toMatchObject({ token: { command: CMD } });
    expect(redacted).toEqual([]);
  });
});
