// The main job as a user meets it: the built binary against `plantstore sandbox`.
import { copyFileSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunOptions, type RunResult, runPlantstore, tempConfigDir } from '../helpers/cli.js';
import { type SandboxProcess, startSandboxProcess } from '../helpers/sandbox-process.js';

const TOKEN = 'e2e-Secret-Token-5f3a9c';
const outputs: string[] = [];
let sandbox: SandboxProcess;
let config: ReturnType<typeof tempConfigDir>;

beforeAll(async () => {
  sandbox = await startSandboxProcess(['--token', TOKEN, '--plants', '50']);
});
afterAll(async () => {
  const stopped = await sandbox.stop();
  outputs.push(stopped.stdout, stopped.stderr);
  expect(stopped.code).toBe(0);
  // The token is given to the CLI in every test here; it must never come back out.
  for (const output of outputs) expect(output).not.toContain(TOKEN);
});
beforeEach(() => {
  config = tempConfigDir();
});
afterEach(() => config.cleanup());

async function plantstore(args: string[], options: RunOptions = {}, dir = config.dir): Promise<RunResult> {
  const result = await runPlantstore(args, { ...options, env: { PLANTSTORE_CONFIG_DIR: dir, ...options.env } });
  outputs.push(result.stdout, result.stderr);
  return result;
}

describe('with a stored token', () => {
  // One real login for the group; each test starts from a copy of the file it wrote.
  let loggedIn: ReturnType<typeof tempConfigDir>;
  beforeAll(async () => {
    loggedIn = tempConfigDir();
    const result = await plantstore(['auth', 'login', '--with-token', '--base-url', sandbox.url], { input: `  ${TOKEN}\n` }, loggedIn.dir);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("Token stored for profile 'default'");
  });
  afterAll(() => loggedIn.cleanup());
  beforeEach(() => {
    copyFileSync(path.join(loggedIn.dir, 'config.json'), path.join(config.dir, 'config.json'));
  });

  it('stores the config file with mode 0600 in a 0700 folder', () => {
    const file = path.join(loggedIn.dir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(loggedIn.dir).mode & 0o777).toBe(0o700);
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect(stored.profiles.default).toEqual({ token: TOKEN, 'base-url': sandbox.url });
  });

  it('reports where the token and base URL come from, token masked', async () => {
    const result = await plantstore(['auth', 'status']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Profile:  default');
    expect(result.stdout).toContain(`Token:    e2e-… (from profile 'default' in ${path.join(config.dir, 'config.json')})`);
    expect(result.stdout).toContain(`Base URL: ${sandbox.url} (from profile 'default'`);
  });

  it('deletes a plant, then refuses the second delete with the API error (exit 1)', async () => {
    const first = await plantstore(['delete', '7']);
    expect(first).toMatchObject({ code: 0, stdout: 'Deleted plant 7\n', stderr: '' });
    const second = await plantstore(['delete', '7']);
    expect(second.code).toBe(1);
    expect(second.stdout).toBe('');
    expect(second.stderr).toMatch(/^✗ plant 7: error \d+: .*7.* \(HTTP 400\)\n$/);
  });

  it('deletes several plants in order; the exit code is the first failure', async () => {
    const result = await plantstore(['delete', '10', '999', '011', '10']);
    expect(result.code).toBe(1);
    // 011 is 11, and the repeated 10 is sent once.
    expect(result.stdout).toBe('Deleted plant 10\nDeleted plant 11\n');
    expect(result.stderr).toMatch(/✗ plant 999: error \d+: /);
  });

  it('sends nothing when any id is invalid (exit 2)', async () => {
    const before = sandbox.requestLog().length;
    const result = await plantstore(['delete', '20', '21', '1.5', '22']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe("plantstore: invalid plant id '1.5': an id is a whole number such as 42\n");
    expect(sandbox.requestLog().length).toBe(before);
    // ...and plant 20 is still there to delete.
    expect((await plantstore(['delete', '20'])).code).toBe(0);
  });

  it('writes one JSON object per id with --json, ids as exact numbers', async () => {
    const result = await plantstore(['--json', 'delete', '30', '9007199254740993']);
    expect(result.code).toBe(1);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!)).toEqual({ id: 30, deleted: true, status: 204 });
    expect(lines[1]).toMatch(
      /^\{"id":9007199254740993,"deleted":false,"status":400,"error":\d+,"message":".*9007199254740993.*","exit":1\}$/,
    );
    expect(result.stderr).toContain('✗ plant 9007199254740993');
  });

  it('prints nothing on success with --quiet', async () => {
    const result = await plantstore(['-q', 'delete', '31']);
    expect(result).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('exits 4 when the server rejects the token', async () => {
    const result = await plantstore(['delete', '32'], { env: { PLANTSTORE_TOKEN: 'not-the-right-token' } });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/✗ plant 32: error 401: .* \(HTTP 401\)/);
  });

  it('prints the token only through auth token', async () => {
    const result = await runPlantstore(['auth', 'token'], { env: { PLANTSTORE_CONFIG_DIR: config.dir } });
    expect(result).toMatchObject({ code: 0, stdout: `${TOKEN}\n` });
  });

  it('logout removes the token and keeps the base URL', async () => {
    expect((await plantstore(['auth', 'logout'])).code).toBe(0);
    const status = await plantstore(['auth', 'status']);
    expect(status.code).toBe(4);
    expect(status.stdout).toContain('Token:    none');
    expect(status.stdout).toContain(`Base URL: ${sandbox.url}`);
  });
});

describe('without stored settings', () => {
  it('exits 4 with no token anywhere', async () => {
    const result = await plantstore(['delete', '40'], { env: { PLANTSTORE_BASE_URL: sandbox.url } });
    expect(result.code).toBe(4);
    expect(result.stderr).toBe("plantstore: no token for profile 'default': run plantstore auth login, or set PLANTSTORE_TOKEN\n");
  });

  it('exits 3 with no base URL, as JSON too', async () => {
    const result = await plantstore(['--json', 'delete', '40'], { env: { PLANTSTORE_TOKEN: TOKEN } });
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout)).toEqual({ deleted: false, exit: 3, message: expect.stringContaining('no base URL') });
  });

  it('works from the environment alone, writing no config file', async () => {
    const result = await plantstore(['delete', '41'], { env: { PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: sandbox.url } });
    expect(result).toMatchObject({ code: 0, stdout: 'Deleted plant 41\n' });
    expect(() => statSync(path.join(config.dir, 'config.json'))).toThrow();
  });

  it('keeps a base URL with config set, get, list, path and unset', async () => {
    const file = path.join(config.dir, 'config.json');
    expect(await plantstore(['config', 'set', 'base-url', sandbox.url])).toMatchObject({
      code: 0,
      stdout: '',
      stderr: `✓ Set base-url for profile 'default' to ${sandbox.url}\n`,
    });
    expect(await plantstore(['config', 'get', 'base-url'])).toMatchObject({ code: 0, stdout: `${sandbox.url}\n`, stderr: '' });
    const list = await plantstore(['--json', 'config', 'list']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual({
      profile: 'default',
      'base-url': sandbox.url,
      token: null,
      inForce: { 'base-url': { value: sandbox.url, source: `profile 'default' in ${file}` } },
    });
    expect(await plantstore(['config', 'path'])).toMatchObject({ code: 0, stdout: `${file}\n`, stderr: '' });
    // The stored base URL is the one a delete uses.
    expect(await plantstore(['delete', '45'], { env: { PLANTSTORE_TOKEN: TOKEN } })).toMatchObject({
      code: 0,
      stdout: 'Deleted plant 45\n',
    });
    expect((await plantstore(['config', 'unset', 'base-url'])).code).toBe(0);
    expect(await plantstore(['config', 'get', 'base-url'])).toMatchObject({ code: 3, stdout: '' });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ profiles: {} });
  });

  it('refuses login when stdin is not a terminal and --with-token is missing', async () => {
    const result = await plantstore(['auth', 'login'], { input: TOKEN });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--with-token');
  });
});

// Node reads a directory on stdin as an empty stream: without a check it passed for "no plant ids".
describe.skipIf(process.platform === 'win32')('a directory on standard input (delete --stdin < /)', () => {
  it('exit 2, saying it is a directory; nothing sent', async () => {
    const { spawn } = await import('node:child_process');
    const { closeSync, openSync } = await import('node:fs');
    const { BIN, cleanEnv, finished } = await import('../helpers/cli.js');
    const root = openSync('/', 'r');
    const child = spawn(process.execPath, [BIN, 'delete', '--stdin'], {
      env: cleanEnv({ PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: sandbox.url }),
      stdio: [root, 'pipe', 'pipe'],
    });
    closeSync(root);
    const result = await finished(child);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'plantstore: standard input is a directory, not a list of plant ids: redirect a file, as in plantstore delete --stdin < ids.txt\n',
    );
  });
});

describe('start-up', () => {
  // What scripts/bundle-plugins.ts keeps out of a plain run: node:http2, node:tls and node:zlib come
  // with an https origin or a compressed body; node:http, node:child_process, node:crypto, node:assert,
  // node:tty and node:dns have stand-ins (the sandbox is at 127.0.0.1, so no name to look up);
  // worker_threads, parse_args and fs/promises came with ES module facades of built-ins.
  const notLoaded = [
    'http2',
    'tls',
    '_tls_wrap',
    'zlib',
    'http',
    '_http_client',
    'child_process',
    'crypto',
    'assert',
    'tty',
    'dns',
    'worker_threads',
  ];
  const notLoadedInternals = ['internal/util/parse_args/parse_args', 'internal/fs/promises', 'internal/crypto/webcrypto'];

  it(`a delete over plain http loads none of ${notLoaded.join(', ')}`, async () => {
    // Node's own list of the built-ins loaded, written as the process exits (encoded: NODE_OPTIONS splits at spaces).
    const hook = `process.on('exit', () => process.stderr.write('loaded: ' + process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13)).join(' ') + '\\n'))`;
    const report = `data:text/javascript,${encodeURIComponent(hook)}`;
    const result = await plantstore(['delete', '48'], {
      env: { PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: sandbox.url, NODE_OPTIONS: `--import=${report}` },
    });
    expect([result.stdout, result.stderr]).toEqual(['Deleted plant 48\n', expect.stringContaining('loaded: ')]);
    const loaded = /^loaded: (.*)$/m.exec(result.stderr)?.[1]?.split(' ') ?? [];
    expect(loaded).toContain('net'); // the list is there, and is Node's
    expect(loaded.filter((name) => [...notLoaded, ...notLoadedInternals].includes(name))).toEqual([]);
  });
});

describe('nothing to delete is not an error', () => {
  // A nightly job whose export came out empty: no config, no token and no server are needed.
  it.each([
    ['empty standard input', ''],
    ['only comments and blank lines', '# nothing today\n\n  \n'],
  ])('%s: exit 0, one line on stderr, nothing on stdout, with or without --json', async (_name, input) => {
    const config = tempConfigDir();
    try {
      for (const json of [[], ['--json']]) {
        const result = await runPlantstore([...json, 'delete', '--stdin'], { env: { PLANTSTORE_CONFIG_DIR: config.dir }, input });
        expect(result).toMatchObject({ code: 0, stdout: '', stderr: 'no plant ids: nothing to delete\n' });
      }
    } finally {
      config.cleanup();
    }
  });
});

describe('run with npx plantstore (npm sets npm_command=exec)', () => {
  it('the hints name npx plantstore, which the user can paste; the error prefix stays', async () => {
    const config = tempConfigDir();
    try {
      const env = { PLANTSTORE_CONFIG_DIR: config.dir, PLANTSTORE_TOKEN: 'npx-Token-4c2a9e1f7b' };
      const viaNpx = await runPlantstore(['delete', '42'], { env: { ...env, npm_command: 'exec' } });
      expect(viaNpx.code).toBe(3);
      expect(viaNpx.stderr).toMatch(/^plantstore: no base URL .* or run npx plantstore config set base-url <url>\n$/);
      const installed = await runPlantstore(['delete', '42'], { env });
      expect(installed.stderr).toMatch(/ or run plantstore config set base-url <url>\n$/);
    } finally {
      config.cleanup();
    }
  });
});
