// A token command against what round 4's attack found (issue 27): a server that refuses every
// token, a command that leaves a child holding its output, a command that traces itself on
// stderr, and signals while the command runs. The built CLI, real shell scripts, loopback servers.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { assertNoTokenLeak, BIN, cleanEnv, endsWithin, finished, type RunOptions, type RunResult, runPlantstore } from '../helpers/cli.js';
import { type ScriptedServer, startExpiringTokenServer, startScriptedServer } from '../helpers/scripted-server.js';

const tokenOf = (n: number): string => `hostile-token-${n}-0123456789`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'plantstore-token-hostile-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A token command: a sh script that counts its runs in a file and sets TOKEN to token n on its
 * n-th run, then runs `body` (which prints it, or not, in its own way).
 */
function tokenScript(body: string): { line: string; runs(): number } {
  const counter = path.join(dir, 'runs');
  const script = path.join(dir, 'token.sh');
  writeFileSync(
    script,
    `n=$(( $(cat ${JSON.stringify(counter)} 2>/dev/null || echo 0) + 1 ))
echo $n > ${JSON.stringify(counter)}
TOKEN=hostile-token-$n-0123456789
${body}
`,
  );
  return { line: `/bin/sh ${script}`, runs: () => (existsSync(counter) ? Number(readFileSync(counter, 'utf8')) : 0) };
}

/**
 * The CLI in a session of its own, as in CI or cron: no controlling terminal, whatever runs the
 * tests. (With one, a token command shares the CLI's process group, so that a prompt works.)
 */
function startDetached(args: string[], options: RunOptions) {
  const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(options.env), stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  child.stdin.end(options.input ?? '');
  return child;
}

async function runDetached(args: string[], options: RunOptions): Promise<RunResult> {
  const result = await finished(startDetached(args, options));
  assertNoTokenLeak(args, options, result);
  return result;
}

/** Whether the process whose pid is in `file` is alive: a zombie waiting to be reaped is not. */
function alive(file: string): boolean {
  const pid = Number(readFileSync(file, 'utf8'));
  try {
    // Linux: the state after the command name; elsewhere, whether a signal could reach it.
    if (existsSync('/proc/self/stat')) return !/\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the process whose pid is in `file` still runs a moment after the CLI ended: a
 * signal sent to it is delivered at once, but it takes its turn to die. (A hang guard of a
 * few seconds; a child left behind runs for 100.)
 */
async function stillRunning(file: string): Promise<boolean> {
  for (let tries = 0; tries < 100 && alive(file); tries++) await new Promise((resolve) => setTimeout(resolve, 50));
  return alive(file);
}

/** Resolves once `file` exists: a readiness poll, not a timing assertion. */
async function created(file: string): Promise<void> {
  while (!existsSync(file) || readFileSync(file, 'utf8').trim() === '') await new Promise((resolve) => setTimeout(resolve, 20));
}

function ids(count: number): string {
  return Array.from({ length: count }, (_, i) => String(i + 1)).join('\n');
}

function jsonLines(result: RunResult): Array<{ id: number; deleted: boolean; attempted?: boolean; exit?: number; message?: string }> {
  return result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

function expectNoCommandToken(result: RunResult, runs: number): void {
  for (let n = 1; n <= runs; n++) {
    expect(result.stdout).not.toContain(tokenOf(n));
    expect(result.stderr).not.toContain(tokenOf(n));
  }
}

describe('a server that refuses every token', () => {
  let server: ScriptedServer;
  beforeEach(async () => {
    server = await startScriptedServer((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":401,"message":"invalid token"}');
    });
  });
  afterEach(() => server.close());

  it('ends the run once a fresh token is refused too: exit 4, two command runs, the rest not sent', async () => {
    const command = tokenScript('echo "$TOKEN"');
    const result = await runPlantstore(['delete', '--stdin', '--json', '--concurrency', '4'], {
      env: cleanEnv({ PLANTSTORE_BASE_URL: server.url, PLANTSTORE_TOKEN_COMMAND: command.line, PLANTSTORE_CONFIG_DIR: dir }),
      input: ids(500),
    });
    expect(result.code).toBe(4);
    // The first token, refused; a second, refused as well: nothing more is asked of the command.
    expect(command.runs()).toBe(2);
    const sentWith = (n: number) => server.requests.filter((request) => request.headers.authorization === `Bearer ${tokenOf(n)}`);
    // The first four ids with token 1; with token 2, those waiting for it when it came (each id
    // started before its refusal), at most one each: never a third wave.
    expect(sentWith(1).map((request) => request.url)).toEqual(['/plants/1', '/plants/2', '/plants/3', '/plants/4']);
    expect(sentWith(2).length).toBeGreaterThanOrEqual(1);
    expect(sentWith(2).length).toBeLessThanOrEqual(8);
    expect(server.requests).toHaveLength(sentWith(1).length + sentWith(2).length);
    const lines = jsonLines(result);
    expect(lines).toHaveLength(500);
    const attempted = lines.filter((line) => line.attempted !== false);
    expect(attempted.length).toBeLessThanOrEqual(8);
    expect(attempted.every((line) => line.exit === 4)).toBe(true);
    const notSent = lines.filter((line) => line.attempted === false);
    expect(notSent).toHaveLength(500 - attempted.length);
    expect(notSent.every((line) => line.exit === 4)).toBe(true);
    expect(notSent[0]?.message).toMatch(/^not sent: the server refused token 2 .* as well/);
    expectNoCommandToken(result, 2);
  });
});

describe('a token command that leaves a child holding its output', () => {
  it('is used once it has exited and its output is read: exit 0, no wait for --timeout, and the child is ended', async () => {
    const server = await startScriptedServer((_req, res) => res.writeHead(204).end());
    onTestFinished(() => server.close());
    const leftover = path.join(dir, 'leftover.pid');
    const command = tokenScript(`echo "$TOKEN"; sleep 100 & echo $! > ${JSON.stringify(leftover)}`);
    // --timeout 20: were the command's output waited for until its pipe closes, the run would say "gave no token" after it.
    const result = await runDetached(['delete', '1', '--timeout', '20'], {
      env: cleanEnv({ PLANTSTORE_BASE_URL: server.url, PLANTSTORE_TOKEN_COMMAND: command.line, PLANTSTORE_CONFIG_DIR: dir }),
    });
    expect(result.stderr).not.toMatch(/gave no token/);
    expect(result.code).toBe(0);
    expect(server.requests.map((request) => request.headers.authorization)).toEqual([`Bearer ${tokenOf(1)}`]);
    expect(await stillRunning(leftover)).toBe(false);
  });
});

describe("a token command's own stderr", () => {
  it('is held until its output is read, then passed on with the token masked (a `set -x` script in a CI log)', async () => {
    const server = await startScriptedServer((_req, res) => res.writeHead(204).end());
    onTestFinished(() => server.close());
    const command = tokenScript('set -x\necho "$TOKEN"');
    const result = await runDetached(['delete', '1'], {
      env: cleanEnv({ PLANTSTORE_BASE_URL: server.url, PLANTSTORE_TOKEN_COMMAND: command.line, PLANTSTORE_CONFIG_DIR: dir }),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('+ echo ***');
    expectNoCommandToken(result, 1);
  });

  it('quoted in a failure message is masked too: a token printed as a JSON string, traced by `set -x`', async () => {
    const command = tokenScript(`set -x\nprintf '"%s"\\n' "$TOKEN"`);
    const result = await runDetached(['delete', '1'], {
      env: cleanEnv({ PLANTSTORE_BASE_URL: 'http://127.0.0.1:9', PLANTSTORE_TOKEN_COMMAND: command.line, PLANTSTORE_CONFIG_DIR: dir }),
    });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/its stderr ended: \+ printf .*\*\*\*/);
    expectNoCommandToken(result, 1);
  });
});

describe('a signal while a token command runs mid-batch', () => {
  it.each<[NodeJS.Signals, number]>([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ])('%s ends the command and its child; the ids not sent say exit %i, as the process does', async (signal, code) => {
    // Token 1 is taken for 10 requests, then refused: the run renews, and the second run hangs.
    const server = await startExpiringTokenServer(tokenOf(1), 10);
    onTestFinished(() => server.close());
    const leftover = path.join(dir, 'leftover.pid');
    const command = tokenScript(`[ $n -eq 1 ] && { echo "$TOKEN"; exit 0; }\nsleep 100 & echo $! > ${JSON.stringify(leftover)}\nwait`);
    const child = startDetached(['delete', '--stdin', '--json', '--concurrency', '2'], {
      env: cleanEnv({ PLANTSTORE_BASE_URL: server.url, PLANTSTORE_TOKEN_COMMAND: command.line, PLANTSTORE_CONFIG_DIR: dir }),
      input: ids(100),
    });
    const ending = endsWithin(child, 20_000);
    await created(leftover);
    child.kill(signal);
    const result = await ending;
    expect(result.code).toBe(code);
    expect(await stillRunning(leftover)).toBe(false);
    const lines = jsonLines(result);
    expect(lines).toHaveLength(100);
    expect(lines.filter((line) => line.deleted)).toHaveLength(10);
    const notSent = lines.filter((line) => line.attempted === false);
    expect(notSent.length).toBeGreaterThan(80);
    expect(new Set(notSent.map((line) => line.exit))).toEqual(new Set([code]));
    expectNoCommandToken(result, 2);
  });
});
