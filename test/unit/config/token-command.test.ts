// A token command, run for real: small scripts written to a temporary folder and run with the
// project's node. Each failure is an AuthError (exit 4) that names the command and never quotes
// what it printed on stdout, since that may be the token. No test waits on a clock: a hung
// command is stopped by its own timeout, or by an abort sent when it says on stderr that it runs.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { joinWords } from '../../../src/config/command-words.js';
import { MAX_TOKEN_COMMAND_OUTPUT, runTokenCommand, type TokenCommandOptions } from '../../../src/config/token-command.js';
import { AuthError, Exit, InterruptedError } from '../../../src/errors.js';
import { rejection } from '../../helpers/thrown.js';

// Printed on stdout by every failing script: no message may ever contain it.
const SECRET = 'Zq7xK9mPw2Lr';
// Long enough for node to start on a loaded machine; a command that hangs never answers anyway.
const TIMEOUT_MS = 20_000;

let dir: string;
let pids: number[] = [];
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'plantstore-token-command-'));
});
afterEach(() => {
  vi.useRealTimers();
  for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  pids = [];
  rmSync(dir, { recursive: true, force: true });
});

/** A command line that runs `source` with this node, followed by `args` (already quoted). */
function script(source: string, args = ''): string {
  const file = path.join(dir, `s${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, source);
  return [joinWords([process.execPath, file]), args].filter(Boolean).join(' ');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

interface Run {
  stderr: string;
  result: Promise<Awaited<ReturnType<typeof runTokenCommand>>>;
}

function run(commandLine: string, options: Partial<TokenCommandOptions> = {}): Run {
  const seen: Run = { stderr: '', result: Promise.resolve({ token: '' }) };
  seen.result = runTokenCommand(commandLine, {
    timeoutMs: TIMEOUT_MS,
    onStderr: (text) => {
      seen.stderr += text;
    },
    ...options,
  });
  return seen;
}

async function authFailure(commandLine: string, options: Partial<TokenCommandOptions> = {}): Promise<string> {
  const error = await rejection(run(commandLine, options).result);
  expect(error).toBeInstanceOf(AuthError);
  expect((error as AuthError).exit).toBe(Exit.auth);
  const message = (error as Error).message;
  expect(message).not.toContain(SECRET);
  expect(message).not.toContain('\n');
  return message;
}

/** The lines a command writes on stderr, awaited one by one. */
function lines(): { add: (text: string) => void; next: () => Promise<string> } {
  const queue: string[] = [];
  let waiting: ((line: string) => void) | undefined;
  let partial = '';
  return {
    add: (text) => {
      const parts = (partial + text).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) {
        if (waiting) {
          const wake = waiting;
          waiting = undefined;
          wake(line);
        } else queue.push(line);
      }
    },
    next: () => {
      const line = queue.shift();
      return line === undefined ? new Promise((resolve) => (waiting = resolve)) : Promise.resolve(line);
    },
  };
}

// A script that says its pid on stderr once it runs, then hangs: `onStderr` learns the pid.
const HANG = "process.stderr.write('pid ' + process.pid + '\\n'); setInterval(() => {}, 1 << 30);";

describe('runTokenCommand answers', () => {
  it('the token alone, whitespace trimmed', async () => {
    expect(await run(script(`process.stdout.write('  ${SECRET}\\n\\n');`)).result).toEqual({ token: SECRET });
  });

  it('the JSON form, with expiresAt in epoch ms', async () => {
    const json = JSON.stringify({ token: SECRET, expiresAt: '2030-01-02T15:04:05Z' });
    const got = await run(script(`console.log(${JSON.stringify(json)});`)).result;
    expect(got).toEqual({ token: SECRET, expiresAt: Date.UTC(2030, 0, 2, 15, 4, 5) });
  });

  it('passes the words as they are: no variable, glob or tilde expansion, quotes removed', async () => {
    const seen = run(
      script(`console.error(JSON.stringify(process.argv.slice(2))); console.log('${SECRET}');`, `'$HOME' "a b" '*' '~' "it's" ''`),
    );
    expect(await seen.result).toEqual({ token: SECRET });
    expect(JSON.parse(seen.stderr)).toEqual(['$HOME', 'a b', '*', '~', "it's", '']);
  });

  it('gives the command an empty stdin, not the CLI own, where ids may be arriving', async () => {
    const source = `let n = 0; process.stdin.on('data', (c) => { n += c.length; });
      process.stdin.on('end', () => console.log('stdin-bytes-' + n));`;
    expect(await run(script(source)).result).toEqual({ token: 'stdin-bytes-0' });
  });

  it('forwards every chunk of its stderr as it comes (a prompt, a warning)', async () => {
    const seen = run(script(`process.stderr.write('Passphrase for key: '); process.stderr.write('ok\\n'); console.log('${SECRET}');`));
    await seen.result;
    expect(seen.stderr).toBe('Passphrase for key: ok\n');
  });

  it('never cuts a character of its stderr in two', async () => {
    // The bytes of each é are written in two halves, with a pause for the pipe to deliver the first.
    const source = `const bytes = Buffer.from('é'.repeat(3));
      let i = 0;
      const next = () => { if (i === bytes.length) return console.log('${SECRET}'); process.stderr.write(bytes.subarray(i, i + 1), () => setImmediate(next)); i += 1; };
      next();`;
    const pieces: string[] = [];
    await runTokenCommand(script(source), { timeoutMs: TIMEOUT_MS, onStderr: (text) => pieces.push(text) });
    expect(pieces.join('')).toBe('ééé');
    expect(pieces.every((piece) => !piece.includes('\ufffd'))).toBe(true);
  });

  it('runs it with the environment given', async () => {
    const got = run(script('console.log(process.env.PLANT_TOKEN_TEST);'), { env: { PLANT_TOKEN_TEST: 'from-env-1234' } });
    expect(await got.result).toEqual({ token: 'from-env-1234' });
  });
});

describe('runTokenCommand fails with exit 4, naming the command, never quoting its stdout', () => {
  it('on a non-zero exit, with the last line of its stderr', async () => {
    const command = script(
      `console.log('${SECRET}'); console.error('gpg: starting'); console.error('gpg: decryption failed: No secret key\\n\\n'); process.exit(3);`,
    );
    const message = await authFailure(command);
    expect(message).toBe(
      `token command '${command}' failed with exit status 3 (its stderr ended: gpg: decryption failed: No secret key); run it by itself to see why`,
    );
  });

  it('on a non-zero exit with nothing on stderr', async () => {
    expect(await authFailure(script(`console.log('${SECRET}'); process.exit(1);`))).toMatch(
      /failed with exit status 1; run it by itself to see why$/,
    );
  });

  it('when it is ended by a signal', async () => {
    const message = await authFailure(script(`console.log('${SECRET}'); process.kill(process.pid, 'SIGKILL');`));
    expect(message).toMatch(/ was ended by SIGKILL; run it by itself to see why$/);
  });

  it('when it prints nothing', async () => {
    expect(await authFailure(script('console.error("no entry for plantstore");'))).toMatch(
      /printed no token on stdout \(its stderr ended: no entry for plantstore\); it must print the token alone/,
    );
  });

  it('when the token breaks the token rules', async () => {
    expect(await authFailure(script(`console.log('${SECRET} ${SECRET}');`))).toMatch(/printed a token that has characters a bearer/);
    expect(await authFailure(script(`console.log('${SECRET.slice(0, 5)}');`))).toMatch(/printed a token that is shorter than 8/);
    // What `jq .token` prints, where `jq -r .token` was meant.
    expect(await authFailure(script(`console.log(JSON.stringify('${SECRET}'));`))).toMatch(
      / printed the token in double quotes, as a JSON string; print it bare \(jq -r, not jq\)$/,
    );
    expect(await authFailure(script(`console.log('{"token": "${SECRET}", "expiresAt": "tomorrow"}');`))).toMatch(
      /"expiresAt" that is not an RFC 3339 time/,
    );
  });

  it('when the token has expired already', async () => {
    const json = JSON.stringify({ token: SECRET, expiresAt: '2030-01-02T15:04:05Z' });
    const message = await authFailure(script(`console.log(${JSON.stringify(json)});`), {
      now: () => Date.UTC(2030, 0, 2, 15, 5, 5),
    });
    expect(message).toMatch(/printed a token whose expiresAt passed 60 s ago; check that command, and this machine's clock$/);
  });

  it('when it prints more than 64 KiB, and it is stopped', async () => {
    const source = `process.stderr.write('pid ' + process.pid + '\\n');
      const chunk = '${SECRET}'.repeat(1024);
      const more = () => { while (process.stdout.write(chunk)); process.stdout.once('drain', more); };
      more();`;
    const seen = run(script(source), { killGraceMs: 0 });
    const error = await rejection(seen.result);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as Error).message).toMatch(/printed more than 64 KiB on stdout, more than any token, and was stopped/);
    expect((error as Error).message).not.toContain(SECRET);
    const pid = Number(/pid (\d+)/.exec(seen.stderr)?.[1]);
    pids.push(pid);
    expect(alive(pid)).toBe(false);
    expect(MAX_TOKEN_COMMAND_OUTPUT).toBe(65_536);
  });

  it('when it gives no answer in time; one that ignores SIGTERM is killed after the grace', async () => {
    // The clock is faked and moved only once the command has said it runs, then once it has said
    // it ignored SIGTERM: a slow start on a loaded machine changes nothing.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const said = lines();
    const source = `process.on('SIGTERM', () => process.stderr.write('ignoring TERM\\n')); console.log('${SECRET}'); ${HANG}`;
    const result = runTokenCommand(script(source), { timeoutMs: 30_000, killGraceMs: 2000, onStderr: said.add });
    const pid = Number(/pid (\d+)/.exec(await said.next())?.[1]);
    pids.push(pid);
    vi.advanceTimersByTime(30_000);
    expect(await said.next()).toBe('ignoring TERM');
    expect(alive(pid)).toBe(true);
    vi.advanceTimersByTime(2000);
    const error = await rejection(result);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as Error).message).toMatch(
      /gave no token within 30 s, and was stopped \(its stderr ended: ignoring TERM\); run it by itself to see where it waits/,
    );
    expect((error as Error).message).not.toContain(SECRET);
    // The promise settles on 'close', once the process is gone.
    expect(alive(pid)).toBe(false);
  });

  it('when a process it left behind holds its stdout open: no hang, the timeout ends it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const said = lines();
    const source = `import { spawn } from 'node:child_process';
      const left = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'inherit' });
      process.stderr.write('left ' + left.pid + '\\n');
      console.log('${SECRET}');
      process.exit(0);`;
    const result = runTokenCommand(script(source), { timeoutMs: 30_000, killGraceMs: 2000, onStderr: said.add });
    pids.push(Number(/left (\d+)/.exec(await said.next())?.[1]));
    vi.advanceTimersByTime(30_000);
    vi.advanceTimersByTime(2000);
    expect(((await rejection(result)) as Error).message).toMatch(/gave no token within 30 s, and was stopped/);
  });

  it('when the line cannot be split, before anything runs', async () => {
    expect(await authFailure(`pass show 'plantstore`)).toBe(
      "cannot run token command 'pass show 'plantstore': a single quote is never closed; close it, or write \\' for a literal quote",
    );
    expect(await authFailure('pass show plantstore | head -n 1')).toMatch(/unquoted \| means nothing.*sh -c/);
  });

  it('when the program does not exist or cannot be run', async () => {
    expect(await authFailure('/nonexistent/get-token --now')).toBe(
      "token command '/nonexistent/get-token --now' could not start: no such file /nonexistent/get-token (or the interpreter on its #! line); check the path",
    );
    expect(await authFailure(joinWords([dir]))).toMatch(/could not start: permission denied/);
  });

  it('shows the words safe for a terminal', async () => {
    expect(await authFailure("'/nonexistent/\u001b]0;owned\u0007'")).toContain("'/nonexistent/\\x1b]0;owned\\x07'");
  });
});

describe('runTokenCommand on an abort (Ctrl-C)', () => {
  it('stops a hung command and ends as interrupted', async () => {
    const controller = new AbortController();
    let pid = 0;
    const result = runTokenCommand(script(`console.log('${SECRET}'); ${HANG}`), {
      timeoutMs: TIMEOUT_MS,
      signal: controller.signal,
      onStderr: (text) => {
        pid = Number(/pid (\d+)/.exec(text)?.[1]);
        pids.push(pid);
        controller.abort();
      },
    });
    const error = await rejection(result);
    expect(error).toBeInstanceOf(InterruptedError);
    expect((error as Error).message).toMatch(/^interrupted while waiting for token command '.*'$/);
    expect(alive(pid)).toBe(false);
  });

  it('runs nothing once aborted', async () => {
    const marker = path.join(dir, 'ran');
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(
      runTokenCommand(script(`import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(marker)}, '');`), {
        timeoutMs: TIMEOUT_MS,
        signal: controller.signal,
      }),
    );
    expect(error).toBeInstanceOf(InterruptedError);
    expect(existsSync(marker)).toBe(false);
  });
});

describe("a token command's stderr, held (plantstore's stderr is not a terminal)", () => {
  it('is passed on once the command has ended, with the token it printed masked', async () => {
    const seen = run(script(`console.error('+ TOKEN=${SECRET}'); console.error('working'); console.log('${SECRET}');`), {
      holdStderr: true,
    });
    expect(await seen.result).toEqual({ token: SECRET });
    expect(seen.stderr).toBe('+ TOKEN=***\nworking\n');
  });

  it('when no token could be read, whatever on stdout looks like one is masked, in it and in the message', async () => {
    const seen = run(script(`console.error('+ printf ${SECRET}'); console.log(JSON.stringify('${SECRET}'));`), { holdStderr: true });
    const error = await rejection(seen.result);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as Error).message).toMatch(/\(its stderr ended: \+ printf \*\*\*\); print it bare/);
    expect(seen.stderr).toBe('+ printf ***\n');
  });
});

describe('a token command that leaves a process holding its output', () => {
  it('is used once it has exited and its output is read; in a group of its own, what it left is ended', async () => {
    const source = `import { spawn } from 'node:child_process';
      const left = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'inherit' });
      console.error('left ' + left.pid);
      console.log('${SECRET}');
      process.exit(0);`;
    const seen = run(script(source), { ownGroup: true });
    expect(await seen.result).toEqual({ token: SECRET });
    const left = Number(/left (\d+)/.exec(seen.stderr)?.[1]);
    pids.push(left);
    // The SIGTERM is sent before the result; the process takes its turn to go.
    for (let tries = 0; tries < 100 && alive(left); tries++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(alive(left)).toBe(false);
  });
});
