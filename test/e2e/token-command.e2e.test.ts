// Tokens from a command, end to end: the built CLI, a real token command (a small script that
// prints the next token each time it runs) and a loopback server whose tokens expire after K
// requests. The batch must finish with the command run about once per expiry, never once per
// 401, and no token the command printed may reach any output.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, type RunResult, runPlantstore } from '../helpers/cli.js';

const tokenOf = (n: number): string => `cmd-token-${n}-0123456789`;

/**
 * Accepts token n for its first `perToken` requests, then answers 401 to it for good and
 * waits for n+1: a short-lived token as an identity provider hands them out.
 */
async function expiringTokenServer(perToken: number) {
  let valid = 1;
  let used = 0;
  let unauthorized = 0;
  const deleted = new Set<string>();
  const server = http.createServer((req, res) => {
    const n = Number(/^Bearer cmd-token-(\d+)-0123456789$/.exec(req.headers.authorization ?? '')?.[1] ?? 0);
    if (n > valid) {
      valid = n;
      used = 0;
    }
    if (n === valid && used >= perToken) {
      valid++;
      used = 0;
    }
    if (n !== valid) {
      unauthorized++;
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":401,"message":"token expired"}');
      return;
    }
    used++;
    deleted.add(req.url ?? '');
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    deleted,
    unauthorized: () => unauthorized,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'plantstore-token-command-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A token command: prints token n on its n-th run (counted in a file), or fails from run
 * `failFrom` on, with a last stderr line to be quoted.
 */
function tokenCommand(options: { failFrom?: number } = {}): { line: string; runs(): number } {
  const counter = path.join(dir, 'runs');
  const script = path.join(dir, 'token.mjs');
  writeFileSync(
    script,
    `import fs from 'node:fs';
const file = ${JSON.stringify(counter)};
const n = (fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8')) : 0) + 1;
fs.writeFileSync(file, String(n));
if (n >= ${options.failFrom ?? Number.MAX_SAFE_INTEGER}) { console.error('vault: permission denied'); process.exit(3); }
console.error('fetching token ' + n);
console.log(JSON.stringify({ token: 'cmd-token-' + n + '-0123456789' }));
`,
  );
  return {
    line: `${process.execPath} ${script}`,
    runs: () => (existsSync(counter) ? Number(readFileSync(counter, 'utf8')) : 0),
  };
}

function ids(count: number): string {
  return Array.from({ length: count }, (_, i) => String(i + 1)).join('\n');
}

/** No token the command printed (up to `runs`) appears in what the run printed. */
function expectNoCommandToken(result: RunResult, runs: number): void {
  for (let n = 1; n <= runs; n++) {
    expect(result.stdout).not.toContain(tokenOf(n));
    expect(result.stderr).not.toContain(tokenOf(n));
  }
}

describe('a token command', () => {
  it('renews the token once per expiry, not once per 401: 5,000 ids at --concurrency 32 all deleted, exit 0', async () => {
    const perToken = 500;
    const server = await expiringTokenServer(perToken);
    const command = tokenCommand();
    try {
      const result = await runPlantstore(['delete', '--stdin', '--concurrency', '32', '--json'], {
        env: cleanEnv({ PLANTSTORE_BASE_URL: server.url, PLANTSTORE_TOKEN_COMMAND: command.line, PLANTSTORE_CONFIG_DIR: dir }),
        input: ids(5000),
      });
      expect(result.stderr).not.toMatch(/✗/);
      expect(result.code).toBe(0);
      expect(server.deleted.size).toBe(5000);
      // 5000 / 500 = 10 tokens; a renewal per 401 would be hundreds (32 in flight meet each expiry).
      expect(command.runs()).toBeGreaterThanOrEqual(10);
      expect(command.runs()).toBeLessThanOrEqual(12);
      expect(server.unauthorized()).toBeGreaterThan(0);
      // Its stderr is passed on: the user sees its prompts and warnings.
      expect(result.stderr).toContain('fetching token 1');
      expectNoCommandToken(result, command.runs());
    } finally {
      await server.close();
    }
  });

  it('is not run by --dry-run', async () => {
    const command = tokenCommand();
    const result = await runPlantstore(['delete', '--dry-run', '1', '2'], {
      env: cleanEnv({ PLANTSTORE_BASE_URL: 'http://127.0.0.1:9', PLANTSTORE_TOKEN_COMMAND: command.line, PLANTSTORE_CONFIG_DIR: dir }),
    });
    expect(result.code).toBe(0);
    expect(command.runs()).toBe(0);
  });

  it('that fails at the start is exit 4, naming the command, its exit status and its last stderr line; nothing is sent', async () => {
    const server = await expiringTokenServer(10);
    const command = tokenCommand({ failFrom: 1 });
    try {
      const result = await runPlantstore(['delete', '1', '2', '3'], {
        env: cleanEnv({ PLANTSTORE_BASE_URL: server.url, PLANTSTORE_TOKEN_COMMAND: command.line, PLANTSTORE_CONFIG_DIR: dir }),
      });
      expect(result.code).toBe(4);
      expect(result.stderr).toMatch(
        /token command '.*token\.mjs' \(from PLANTSTORE_TOKEN_COMMAND\) failed with exit status 3 \(its stderr ended: vault: permission denied\); run it by itself to see why\n/,
      );
      expect(server.deleted.size).toBe(0);
      expect(server.unauthorized()).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('whose renewal fails ends the run: the ids not yet done are not sent, exit 4', async () => {
    const server = await expiringTokenServer(50);
    const command = tokenCommand({ failFrom: 2 });
    try {
      const result = await runPlantstore(['delete', '--stdin', '--json', '--concurrency', '4'], {
        env: cleanEnv({ PLANTSTORE_BASE_URL: server.url, PLANTSTORE_TOKEN_COMMAND: command.line, PLANTSTORE_CONFIG_DIR: dir }),
        input: ids(200),
      });
      expect(result.code).toBe(4);
      expect(command.runs()).toBe(2);
      const lines = result.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { deleted: boolean; attempted?: boolean; exit?: number });
      expect(lines).toHaveLength(200);
      expect(lines.filter((line) => line.deleted)).toHaveLength(server.deleted.size);
      expect(server.deleted.size).toBe(50);
      const notSent = lines.filter((line) => line.attempted === false);
      expect(notSent.length).toBeGreaterThan(100);
      expect(notSent.every((line) => line.exit === 4)).toBe(true);
      expectNoCommandToken(result, 1);
    } finally {
      await server.close();
    }
  });

  it('is run once by auth status, which names it and masks its token, and by auth token, which prints it', async () => {
    const command = tokenCommand();
    const env = cleanEnv({ PLANTSTORE_TOKEN_COMMAND: command.line, PLANTSTORE_CONFIG_DIR: dir });
    const status = await runPlantstore(['auth', 'status'], { env });
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/Token: {4}cmd-… \(from token command '.*token\.mjs' \(from PLANTSTORE_TOKEN_COMMAND\)\)/);
    expectNoCommandToken(status, 1);
    const token = await runPlantstore(['auth', 'token'], { env });
    expect(token.stdout).toBe(`${tokenOf(2)}\n`);
    expect(command.runs()).toBe(2);
  });

  it("never prints a command's token that a server echoes back, in a failure line, the --verbose trace or --json", async () => {
    const echo = http.createServer((req, res) => {
      const auth = req.headers.authorization ?? '';
      res
        .writeHead(400, { 'content-type': 'application/json', 'x-echo': auth })
        .end(JSON.stringify({ error: 7, message: `refused ${auth} (${encodeURIComponent(auth)})` }));
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    const command = tokenCommand();
    try {
      const url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
      const result = await runPlantstore(['--verbose', '--json', 'delete', '1', '2'], {
        env: cleanEnv({ PLANTSTORE_BASE_URL: url, PLANTSTORE_TOKEN_COMMAND: command.line, PLANTSTORE_CONFIG_DIR: dir }),
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('refused Bearer ***');
      expect(result.stderr).toContain('x-echo: Bearer ***');
      expectNoCommandToken(result, command.runs());
    } finally {
      await new Promise<void>((resolve) => echo.close(() => resolve()));
    }
  });
});
