// `plantstore sandbox` through the CLI wiring: where its token comes from, what it
// refuses, and what it prints when it listens beyond loopback. Binds loopback only:
// a wildcard or LAN bind is asked of a startSandbox that listens on 127.0.0.1 instead.
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../../../src/cli.js';
import { DEFAULT_SANDBOX_TOKEN, SANDBOX_TOKEN, SANDBOX_TOKEN_ENV, type SandboxToken } from '../../../../src/commands/sandbox/flags.js';
import { describeListening } from '../../../../src/commands/sandbox/run.js';
import type { ConfigFile } from '../../../../src/config/file.js';
import type { Context } from '../../../../src/context.js';
import { CliError, ConfigError, Exit, UsageError } from '../../../../src/errors.js';
import type { AnyFlag } from '../../../../src/flags/flag.js';
import { flagReader } from '../../../../src/flags/read.js';
import type { Env } from '../../../../src/platform/env.js';
import type { Stdin } from '../../../../src/platform/stdin.js';
import * as server from '../../../../src/sandbox/server.js';
import { createIO } from '../../../../src/ui/io.js';
import { thrown } from '../../../helpers/thrown.js';
import { withoutPorts as withoutPortNumbers } from '../normalize.js';

/** Ports and this process's id (the banner's `kill <pid> stops it`, when no terminal watches) as placeholders. */
const withoutPorts = (text: string): string => withoutPortNumbers(text).replaceAll(`kill ${process.pid} `, 'kill <pid> ');

vi.mock('../../../../src/sandbox/server.js', async (importOriginal) => {
  const real = await importOriginal<typeof server>();
  return { ...real, startSandbox: vi.fn(real.startSandbox) };
});

const startSandbox = vi.mocked(server.startSandbox);
const realStartSandbox = (await vi.importActual<typeof server>('../../../../src/sandbox/server.js')).startSandbox;

afterEach(() => {
  startSandbox.mockClear();
});

const ENV_TOKEN = 'from-the-env-0123';
const FLAG_TOKEN = 'from-the-flag-4567';

interface Running {
  url: string;
  stderr(): string;
  stop(): Promise<{ exit?: number; error?: unknown; stdout: string; stderr: string }>;
}

/** Runs `plantstore sandbox --port 0 ...` in process; resolves once the base URL line is out. */
async function sandbox(args: string[], env: Env = {}): Promise<Running> {
  let stdout = '';
  let stderr = '';
  let firstLine: (line: string) => void = () => {};
  const urlLine = new Promise<string>((resolve) => (firstLine = resolve));
  const io = createIO(
    {
      write: (text: string) => {
        stdout += text;
        if (stdout.includes('\n')) firstLine(stdout.slice(0, stdout.indexOf('\n')));
        return true;
      },
    },
    {
      write: (text: string) => {
        stderr += text;
        return true;
      },
    },
    false,
    env,
  );
  const interrupt = new AbortController();
  const ctx: Context = {
    io,
    env,
    stdin: Readable.from([]) as unknown as Stdin,
    version: '0.0.0',
    signal: interrupt.signal,
    config: () => {
      throw new Error('the sandbox must not open the config file');
    },
    transport: () => {
      throw new Error('the sandbox sends no requests');
    },
  };
  const done = runCli(['sandbox', '--port', '0', ...args], ctx).then(
    (exit) => ({ exit }),
    (error: unknown) => ({ error }),
  );
  const url = await Promise.race([
    urlLine,
    // Ended before listening: the error it stopped with.
    done.then((ended) => {
      throw 'error' in ended ? ended.error : new Error(`the sandbox ended with ${ended.exit} before listening: ${stderr}`);
    }),
  ]);
  return {
    url,
    stderr: () => stderr,
    async stop() {
      interrupt.abort('SIGTERM');
      return { ...(await done), stdout, stderr };
    },
  };
}

async function status(url: string, token: string): Promise<number> {
  const response = await fetch(`${url}/plants/1`, { method: 'DELETE', headers: { Authorization: `Bearer ${token}` } });
  await response.arrayBuffer();
  return response.status;
}

/** Runs a sandbox that must refuse to start; returns what it threw. */
async function refused(args: string[], env: Env = {}): Promise<CliError> {
  const error = await sandbox(args, env).then(
    async (running) => {
      await running.stop();
      return new Error('the sandbox started');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CliError);
  expect(startSandbox).not.toHaveBeenCalled();
  return error as CliError;
}

describe('the sandbox token: --token, else PLANTSTORE_SANDBOX_TOKEN, else sandbox-token', () => {
  it.each<[string, string[], Env, string, string]>([
    ['the public default', [], {}, DEFAULT_SANDBOX_TOKEN, ENV_TOKEN],
    ['PLANTSTORE_SANDBOX_TOKEN', [], { [SANDBOX_TOKEN_ENV]: ENV_TOKEN }, ENV_TOKEN, DEFAULT_SANDBOX_TOKEN],
    ['--token over PLANTSTORE_SANDBOX_TOKEN', ['--token', FLAG_TOKEN], { [SANDBOX_TOKEN_ENV]: ENV_TOKEN }, FLAG_TOKEN, ENV_TOKEN],
    ['surrounding whitespace forgiven', [], { [SANDBOX_TOKEN_ENV]: ` ${ENV_TOKEN}\n` }, ENV_TOKEN, DEFAULT_SANDBOX_TOKEN],
  ])('%s', async (_name, args, env, accepted, rejected) => {
    const running = await sandbox(args, env);
    try {
      expect(await status(running.url, accepted)).toBe(204);
      expect(await status(running.url, rejected)).toBe(401);
    } finally {
      const stopped = await running.stop();
      expect(stopped.exit).toBe(Exit.ok);
      expect(stopped.stderr).toContain('sandbox stopped');
    }
  });

  it.each<[string, string[], Env]>([
    ['the default', [], {}],
    ['PLANTSTORE_SANDBOX_TOKEN, by name', [], { [SANDBOX_TOKEN_ENV]: ENV_TOKEN }],
    ['--token, by a placeholder', ['--token', FLAG_TOKEN], {}],
  ])('the login hint shows %s, never a chosen token', async (_name, args, env) => {
    const running = await sandbox(args, env);
    const { stdout, stderr } = await running.stop();
    expect(withoutPorts(stderr)).toMatchSnapshot();
    for (const token of [ENV_TOKEN, FLAG_TOKEN]) expect(stdout + stderr).not.toContain(token);
  });

  it.each<[string, string[], Env, typeof UsageError]>([
    ['an empty --token (exit 2)', ['--token', ''], {}, UsageError],
    ['a blank --token (exit 2)', ['--token', '  '], {}, UsageError],
    ['an empty PLANTSTORE_SANDBOX_TOKEN, not a silent fallback to the public token (exit 3)', [], { [SANDBOX_TOKEN_ENV]: '' }, ConfigError],
    ['a --token with a space inside (exit 2)', ['--token', 'two words here'], {}, UsageError],
    ['a PLANTSTORE_SANDBOX_TOKEN with a control character (exit 3)', [], { [SANDBOX_TOKEN_ENV]: 'sandbox-\u0007token' }, ConfigError],
    ['an empty --host (exit 2)', ['--host', ''], {}, UsageError],
  ])('refuses %s before listening', async (_name, args, env, Problem) => {
    const error = await refused(args, env);
    expect(error).toBeInstanceOf(Problem);
    expect(error.message).toMatchSnapshot();
    // Not the login prompt's words: nothing is pasted and nothing is stored here.
    expect(error.message).not.toMatch(/paste the token|nothing was stored/);
  });

  it('the token names where it came from; the default is no source', () => {
    const noConfig = (): ConfigFile => {
      throw new Error('the sandbox reads no config file');
    };
    const token = (parsed: Record<string, string>, env: Env) =>
      flagReader<AnyFlag>(parsed, { env, config: noConfig }).sourced(SANDBOX_TOKEN);
    expect(token({}, {})).toBeUndefined();
    expect(token({}, { [SANDBOX_TOKEN_ENV]: ENV_TOKEN })).toEqual({ value: ENV_TOKEN, source: SANDBOX_TOKEN_ENV });
    expect(token({ token: FLAG_TOKEN }, { [SANDBOX_TOKEN_ENV]: ENV_TOKEN })).toEqual({ value: FLAG_TOKEN, source: '--token' });
    expect(thrown(() => token({ token: '' }, { [SANDBOX_TOKEN_ENV]: ENV_TOKEN }))).toBeInstanceOf(UsageError);
  });
});

describe('--plants', () => {
  async function started(plants: string): Promise<{ stderr: string; first: number; last?: number }> {
    const running = await sandbox(['--plants', plants, '--log']);
    const first = await status(running.url, DEFAULT_SANDBOX_TOKEN);
    let last: number | undefined;
    if (Number(plants) > 1) {
      const response = await fetch(`${running.url}/plants/${plants}`, {
        method: 'DELETE',
        headers: { Authorization: `Bearer ${DEFAULT_SANDBOX_TOKEN}` },
      });
      await response.arrayBuffer();
      last = response.status;
    }
    const { stderr, exit } = await running.stop();
    expect(exit).toBe(Exit.ok);
    return { stderr, first, ...(last === undefined ? {} : { last }) };
  }

  it('0: no plants, said so; every delete is a 400', async () => {
    const { stderr, first } = await started('0');
    expect(first).toBe(400);
    expect(withoutPorts(stderr)).toMatchInlineSnapshot(`
      "Plant Store sandbox: no plants, so every DELETE of a valid id answers 400 (error 1). kill <pid> stops it. To use it:
        echo sandbox-token | plantstore auth login --with-token --base-url http://127.0.0.1:<port>
        plantstore config set missing-error 1   # its "no such plant": resumed journals count those done
      DELETE /plants/1 400 <t>ms
      sandbox stopped
      "
    `);
    expect(stderr).not.toContain('1..0');
  });

  it('1: plant 1', async () => {
    const { stderr, first } = await started('1');
    expect(first).toBe(204);
    expect(withoutPorts(stderr)).toMatchInlineSnapshot(`
      "Plant Store sandbox: plant 1. kill <pid> stops it. To use it:
        echo sandbox-token | plantstore auth login --with-token --base-url http://127.0.0.1:<port>
        plantstore config set missing-error 1   # its "no such plant": resumed journals count those done
      DELETE /plants/1 204 <t>ms
      sandbox stopped
      "
    `);
  });

  it.each(['100', '10000001', '9007199254740991'])('%s: plants 1..n, the last one there from the start', async (plants) => {
    const { stderr, first, last } = await started(plants);
    expect([first, last]).toEqual([204, 204]);
    expect(withoutPorts(stderr)).toMatchSnapshot();
  });

  it.each(['-1', '1.5', 'many', '9007199254740992', '99999999999999999999'])('refuses %j (exit 2)', async (plants) => {
    const error = await refused(['--plants', plants]);
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toMatchSnapshot();
  });
});

describe('listening beyond loopback', () => {
  const DEFAULT: SandboxToken = { value: DEFAULT_SANDBOX_TOKEN, source: 'default' };
  const CHOSEN: SandboxToken = { value: ENV_TOKEN, source: SANDBOX_TOKEN_ENV };

  it.each([
    ['127.0.0.1', 'http://127.0.0.1:8080'],
    ['127.0.0.2', 'http://127.0.0.2:8080'],
    ['localhost', 'http://localhost:8080'],
    ['::1', 'http://[::1]:8080'],
  ])('%s: its own URL, no warning', (host, url) => {
    expect(describeListening(host, url, DEFAULT)).toEqual({ baseUrl: url, usableByPlantstore: true, warnings: [] });
  });

  it.each([
    ['0.0.0.0', 'http://0.0.0.0:8080', 'http://127.0.0.1:8080'],
    ['0', 'http://0:8080', 'http://127.0.0.1:8080'],
    ['::', 'http://[::]:8080', 'http://[::1]:8080'],
    ['0:0::0', 'http://[0:0::0]:8080', 'http://[::1]:8080'],
    ['0.0.0.0', 'http://0.0.0.0:80', 'http://127.0.0.1:80'],
  ])('%s (every interface): the loopback URL, and a warning', (host, url, baseUrl) => {
    const listening = describeListening(host, url, CHOSEN);
    expect(listening.baseUrl).toBe(baseUrl);
    expect(listening.usableByPlantstore).toBe(true);
    expect(listening.warnings).toHaveLength(2);
    expect(listening.warnings).toMatchSnapshot();
  });

  it.each([
    ['192.0.2.7', 'http://192.0.2.7:8080'],
    ['2001:db8::7', 'http://[2001:db8::7]:8080'],
    ['sandbox.example', 'http://sandbox.example:8080'],
  ])('%s (one address, not loopback): its own URL, a warning, and why plantstore refuses it', (host, url) => {
    const listening = describeListening(host, url, CHOSEN);
    expect(listening).toMatchObject({ baseUrl: url, usableByPlantstore: false });
    expect(listening.warnings).toMatchSnapshot();
  });

  it('says so when the open sandbox takes the public token', () => {
    const firsts = ['http://0.0.0.0:8080', 'http://192.0.2.7:8080'].map(
      (url) => describeListening(new URL(url).hostname, url, DEFAULT).warnings[0],
    );
    expect(firsts).toMatchInlineSnapshot(`
      [
        "warning: the sandbox listens on every interface (0.0.0.0): anyone who can reach this machine on port 8080 and knows the token can delete its plants; its token is the public default sandbox-token (choose another with PLANTSTORE_SANDBOX_TOKEN)",
        "warning: the sandbox listens on 192.0.2.7, which is not a loopback address: anyone who can reach it on port 8080 and knows the token can delete its plants; its token is the public default sandbox-token (choose another with PLANTSTORE_SANDBOX_TOKEN)",
      ]
    `);
  });

  /** Asks for `host`, listens on 127.0.0.1, and reports the URL a bind on `host` would have. */
  function pretendToListenOn(host: string): void {
    startSandbox.mockImplementationOnce(async (options) => {
      const real = await realStartSandbox({ ...options, host: '127.0.0.1' });
      const port = /:(\d+)$/.exec(real.url)?.[1];
      return {
        url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
        close: () => real.close(),
        get plantCount() {
          return real.plantCount;
        },
        get requestCount() {
          return real.requestCount;
        },
        get queued() {
          return real.queued;
        },
      };
    });
  }

  it('--host 0.0.0.0 prints the loopback URL first, then the warnings, and the URL works with plantstore', async () => {
    pretendToListenOn('0.0.0.0');
    const running = await sandbox(['--host', '0.0.0.0']);
    const { stdout, stderr } = await running.stop();
    expect(startSandbox).toHaveBeenCalledWith(expect.objectContaining({ host: '0.0.0.0' }));
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(stdout).toBe(`${running.url}\n`);
    expect(stderr).toContain(`  echo sandbox-token | plantstore auth login --with-token --base-url ${running.url}`);
    expect(withoutPorts(stderr)).toMatchInlineSnapshot(`
      "warning: the sandbox listens on every interface (0.0.0.0): anyone who can reach this machine on port <port> and knows the token can delete its plants; its token is the public default sandbox-token (choose another with PLANTSTORE_SANDBOX_TOKEN)
      warning: from this machine use http://127.0.0.1:<port> (the URL printed): plantstore sends a token over plain http only to loopback (127.0.0.1, ::1, localhost)
      Plant Store sandbox: plants 1..100. kill <pid> stops it. To use it:
        echo sandbox-token | plantstore auth login --with-token --base-url http://127.0.0.1:<port>
        plantstore config set missing-error 1   # its "no such plant": resumed journals count those done
      sandbox stopped
      "
    `);
  });

  it('--host on a LAN address prints its URL with the warnings and no login hint', async () => {
    pretendToListenOn('192.0.2.7');
    const running = await sandbox(['--host', '192.0.2.7'], { [SANDBOX_TOKEN_ENV]: ENV_TOKEN });
    const { stdout, stderr } = await running.stop();
    expect(stdout).toMatch(/^http:\/\/192\.0\.2\.7:\d+\n$/);
    expect(withoutPorts(stderr)).toMatchInlineSnapshot(`
      "warning: the sandbox listens on 192.0.2.7, which is not a loopback address: anyone who can reach it on port <port> and knows the token can delete its plants
      warning: plantstore sends a token over plain http only to loopback, so it will refuse http://192.0.2.7:<port>; to use the sandbox from plantstore on this machine, run it with --host 127.0.0.1 (the default), or --host 0.0.0.0 and the base URL http://127.0.0.1:<port>
      Plant Store sandbox: plants 1..100. kill <pid> stops it.
      sandbox stopped
      "
    `);
    expect(stderr).not.toContain('auth login');
    expect(stderr).not.toContain('public default');
  });
});

describe('--quiet and --log', () => {
  it('-q: the URL on stdout, the warnings on stderr, and nothing else: no banner, no log, no "sandbox stopped"', async () => {
    // Listens on 127.0.0.1, and says it listens on every interface, as --host 0.0.0.0 would.
    startSandbox.mockImplementationOnce(async (options) => {
      const real = await realStartSandbox({ ...options, host: '127.0.0.1' });
      return Object.defineProperty(Object.create(real) as typeof real, 'url', { value: real.url.replace('127.0.0.1', '0.0.0.0') });
    });
    const running = await sandbox(['-q', '--host', '0.0.0.0']);
    expect(await status(running.url, DEFAULT_SANDBOX_TOKEN)).toBe(204);
    const { stdout, stderr, exit } = await running.stop();
    expect(exit).toBe(Exit.ok);
    expect(stdout).toBe(`${running.url}\n`);
    const lines = stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(2);
    expect(lines.every((line) => line.startsWith('warning: '))).toBe(true);
  });

  it('--log: the request log even where no terminal watches (stderr here is not one); without it, none', async () => {
    for (const [args, logged] of [
      [['--log'], true],
      [[], false],
    ] as const) {
      const running = await sandbox([...args]);
      expect(await status(running.url, DEFAULT_SANDBOX_TOKEN)).toBe(204);
      const { stderr } = await running.stop();
      expect(/^DELETE \/plants\/1 204 [\d.]+ms$/m.test(stderr)).toBe(logged);
    }
  });

  it('the banner names the pressure in force, and -q --log logs with no banner', async () => {
    const running = await sandbox(['--latency', '1ms', '--fail', '0', '--rate', '1000/s', '--capacity', '3', '-q', '--log']);
    expect(await status(running.url, DEFAULT_SANDBOX_TOKEN)).toBe(204);
    const { stderr } = await running.stop();
    expect(stderr).toMatch(/^DELETE \/plants\/1 204 [\d.]+ms\n$/);
    const loud = await sandbox(['--latency', '50ms', '--jitter', '20ms', '--fail', '10%', '--rate', '1000/s', '--capacity', '3']);
    expect((await loud.stop()).stderr).toContain(
      'Plant Store sandbox: plants 1..100; 429 past 1000/s; 3 served at once, the rest queued; each answer after 30-70 ms; 10% answered 503 (Retry-After: 1); seed 0.',
    );
  });
});
