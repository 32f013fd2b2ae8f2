// What every command that calls the service reads and resolves before a request leaves
// (src/service/): the flags of the target and the network, the missing-setting errors, the CA
// bundle, and the first token, a token command's included, with its --verbose lines.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { joinWords } from '../../../src/config/command-words.js';
import type { TokenLeases } from '../../../src/config/token-lease.js';
import { createContext } from '../../../src/context.js';
import { AuthError, ConfigError, Exit } from '../../../src/errors.js';
import type { Env } from '../../../src/platform/env.js';
import type { Stdin } from '../../../src/platform/stdin.js';
import { firstToken, found, resolveService } from '../../../src/service/connect.js';
import { serviceSettings } from '../../../src/service/settings.js';
import { tokenRefusedLine } from '../../../src/service/token-refused.js';
import { createTestIO } from '../../../src/ui/io.js';
import { describeTokenEvent } from '../../../src/ui/token-words.js';
import { settingsFixture } from '../../helpers/settings-fixture.js';
import { rejection, thrown } from '../../helpers/thrown.js';

const { envWith, writeConfig, flagsFrom, dir, configFor } = settingsFixture();
const TOKEN = 'service-token-0123456789';

function context(env: Env) {
  const io = createTestIO({ env });
  return { io, ctx: createContext({ io, env, stdin: [] as unknown as Stdin, version: '0.0.0', signal: new AbortController().signal }) };
}

const settingsOf = (parsed: Record<string, string>, env: Env) => serviceSettings(flagsFrom(parsed, env));

describe('serviceSettings: the target and the network, from flags, variables and the profile', () => {
  it('reads each from where it is set, with the defaults of the rest', () => {
    writeConfig({ profiles: { work: { 'base-url': 'https://work.example.com' } } });
    const env = envWith({ PLANTSTORE_PROFILE: 'work', PLANTSTORE_RETRIES: '1' });
    const settings = settingsOf({ timeout: '5', cacert: 'ca.pem', tokenFile: 't.txt' }, env);
    expect(settings).toEqual({
      target: {
        profile: 'work',
        profileSource: 'PLANTSTORE_PROFILE',
        baseUrl: { value: 'https://work.example.com', source: expect.stringContaining("profile 'work'") },
        tokenFile: { value: 't.txt', source: '--token-file' },
      },
      network: { timeoutMs: 5000, retries: 1, maxRetryWaitMs: 30_000, caFile: { value: 'ca.pem', source: '--cacert' } },
    });
  });

  it('reads the target before the network: a bad base URL is reported before a bad timeout', () => {
    const error = thrown(() => settingsOf({ baseUrl: 'not a url', timeout: 'soon' }, envWith()));
    expect((error as Error).message).toMatch(/^invalid base URL 'not a url'/);
  });
});

describe('found: the target, or the setting that is missing and how to supply it', () => {
  it.each([
    [
      'base-url',
      ConfigError,
      Exit.config,
      /^no base URL for profile 'work': pass --base-url, set PLANTSTORE_BASE_URL, or run plantstore --profile work config set base-url <url>$/,
    ],
    ['token', AuthError, Exit.auth, /^no token for profile 'work': run plantstore --profile work auth login, or set PLANTSTORE_TOKEN$/],
  ] as const)('missing %s', (missing, kind, exit, message) => {
    writeConfig({ profiles: { work: {} } });
    const error = thrown(() => found({ missing, profile: 'work' }, configFor(envWith())));
    expect(error).toBeInstanceOf(kind);
    expect([(error as ConfigError).exit, (error as ConfigError).message]).toEqual([exit, expect.stringMatching(message)]);
  });

  it('a profile that does not exist is named first: a typo in its name is the likelier cause', () => {
    writeConfig({ profiles: { work: {} } });
    const error = thrown(() => found({ missing: 'token', profile: 'wrok' }, configFor(envWith())));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^unknown profile 'wrok' \(did you mean work\?\)/);
  });
});

describe('resolveService', () => {
  it('resolves the target and the network options, the CA bundle read', async () => {
    const ca = path.join(dir(), 'ca.pem');
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const env = envWith({ PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: 'https://api.example.com' });
    const { ctx } = context(env);
    const service = await resolveService(settingsOf({ cacert: ca }, env), ctx);
    expect(service).toEqual({
      target: { profile: 'default', baseUrl: 'https://api.example.com', token: { value: TOKEN, source: 'PLANTSTORE_TOKEN' } },
      network: { timeoutMs: 30_000, retries: 2, maxRetryWaitMs: 30_000, caPem: expect.stringContaining('BEGIN CERTIFICATE'), caFile: ca },
    });
  });

  it('names a missing base URL before it reads a CA bundle that is not one', async () => {
    const env = envWith({ PLANTSTORE_TOKEN: TOKEN });
    const error = await rejection(resolveService(settingsOf({ cacert: path.join(dir(), 'absent.pem') }, env), context(env).ctx));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^no base URL/);
  });

  it('refuses a CA bundle with no certificate in it, naming where it came from', async () => {
    const ca = path.join(dir(), 'empty.pem');
    writeFileSync(ca, 'nothing here\n');
    const env = envWith({ PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: 'https://api.example.com', PLANTSTORE_CA_CERT: ca });
    const error = await rejection(resolveService(settingsOf({}, env), context(env).ctx));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      `${ca} (from PLANTSTORE_CA_CERT) holds no PEM certificate (-----BEGIN CERTIFICATE-----); point PLANTSTORE_CA_CERT at the CA's certificates in PEM form`,
    );
  });
});

describe('firstToken', () => {
  const network = { timeoutMs: 20_000, retries: 0, maxRetryWaitMs: 0 };

  it('a stored token is the token itself: nothing is run', async () => {
    const env = envWith({ PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: 'https://api.example.com' });
    const { ctx } = context(env);
    const { target } = await resolveService(settingsOf({}, env), ctx);
    expect(await firstToken(target, network, true, ctx)).toBe(TOKEN);
  });

  it.each([
    [false, ''],
    [true, '* token 1 obtained from the token command\n'],
  ])('a token command is run before anything is sent (verbose %s: its event said, never the token)', async (verbose, said) => {
    const script = path.join(dir(), 'token.mjs');
    writeFileSync(script, `console.log('${TOKEN}');`);
    const env = envWith({
      PLANTSTORE_TOKEN_COMMAND: joinWords([process.execPath, script]),
      PLANTSTORE_BASE_URL: 'https://api.example.com',
    });
    const { io, ctx } = context(env);
    const { target } = await resolveService(settingsOf({}, env), ctx);
    const leases = (await firstToken(target, network, verbose, ctx)) as TokenLeases;
    expect((await leases.current()).token).toBe(TOKEN);
    expect(io.stderr()).toBe(said);
  });
});

describe('describeTokenEvent', () => {
  it.each([
    [{ kind: 'obtained', generation: 2 } as const, 'token 2 obtained from the token command'],
    [{ kind: 'renewing', generation: 1, reason: 'refused' } as const, 'renewing token 1: the server answered 401'],
  ])('%j', (event, line) => {
    expect(describeTokenEvent(event)).toBe(line);
  });
});

describe('tokenRefusedLine: where a refused token came from, and how to replace it there', () => {
  const REFUSED = 'the server refused the token (401/403); it came from';
  const noFile = { profile: 'work', baseUrl: undefined, tokenFile: undefined };
  it.each([
    [
      'a token command',
      { command: 'vault read', source: 'PLANTSTORE_TOKEN_COMMAND' },
      noFile,
      `${REFUSED} the token command of PLANTSTORE_TOKEN_COMMAND: check that the command prints a valid token for this service (plantstore auth token runs it)`,
    ],
    [
      'PLANTSTORE_TOKEN',
      { value: TOKEN, source: 'PLANTSTORE_TOKEN' },
      noFile,
      `${REFUSED} PLANTSTORE_TOKEN: set it to a valid token, or unset it and store one with plantstore auth login`,
    ],
    [
      'a token file',
      { value: TOKEN, source: 'token file t.txt' },
      { ...noFile, tokenFile: { value: 't.txt', source: '--token-file' } },
      `${REFUSED} the file t.txt (from --token-file): put a valid token in it, or drop --token-file and store one with plantstore auth login`,
    ],
    [
      'a profile',
      { value: TOKEN, source: "profile 'work' in /c.json" },
      noFile,
      `${REFUSED} profile 'work' in /c.json: replace it with plantstore --profile work auth login`,
    ],
  ])('%s', (_name, token, target, line) => {
    expect(tokenRefusedLine(token, target)).toBe(line);
  });
});
