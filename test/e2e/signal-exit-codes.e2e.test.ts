// Every `--json` line a signal leaves says the code the process ends with (issue 34, item 10):
// 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP. Two places said 130 or 4 instead: the one
// object of a run stopped during its first token command, and the ids whose 401 (an expired
// token) was waiting for the token command's next token when the signal came.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { jsonLines } from '../helpers/batch-output.js';
import { BIN, cleanEnv, endsWithin } from '../helpers/cli.js';
import { startExpiringTokenServer, startScriptedServer } from '../helpers/scripted-server.js';

const tokenOf = (n: number): string => `signal-token-${n}-0123456789`;
const signals: Array<[NodeJS.Signals, number]> = [
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
];

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'plantstore-signal-exit-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A token command that prints token n on its n-th run for the first `printing` runs, then writes
 * the file `waiting` and waits (for a child that sleeps long), as a command stuck on a login does.
 */
function tokenCommand(printing: number): { line: string; waiting: string } {
  const counter = path.join(dir, 'runs');
  const waiting = path.join(dir, 'waiting');
  const script = path.join(dir, 'token.sh');
  writeFileSync(
    script,
    `n=$(( $(cat ${JSON.stringify(counter)} 2>/dev/null || echo 0) + 1 ))
echo $n > ${JSON.stringify(counter)}
[ $n -le ${printing} ] && { echo signal-token-$n-0123456789; exit 0; }
sleep 100 & echo $! > ${JSON.stringify(waiting)}
wait
`,
  );
  return { line: `/bin/sh ${script}`, waiting };
}

/** Resolves once `file` exists: the token command is waiting. A readiness poll, not a timing assertion. */
async function created(file: string): Promise<void> {
  while (!existsSync(file) || readFileSync(file, 'utf8').trim() === '') await new Promise((resolve) => setTimeout(resolve, 20));
}

/** The CLI in a session of its own (no controlling terminal), as in CI. */
function startDetached(args: string[], env: Record<string, string>, input: string) {
  const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(env), stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  child.stdin.end(input);
  return child;
}

describe('a signal during the first token command, with --json', () => {
  it.each(signals)('%s: one object, with exit %i, the code the process ends with', async (signal, code) => {
    const server = await startScriptedServer((_req, res) => res.writeHead(204).end());
    onTestFinished(() => server.close());
    const command = tokenCommand(0);
    const child = startDetached(
      ['delete', '--json', '1', '2', '3'],
      { PLANTSTORE_BASE_URL: server.url, PLANTSTORE_TOKEN_COMMAND: command.line, PLANTSTORE_CONFIG_DIR: dir },
      '',
    );
    const ending = endsWithin(child, 20_000);
    await created(command.waiting);
    child.kill(signal);
    const result = await ending;
    expect(result.code).toBe(code);
    const lines = jsonLines(result.stdout);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ exit: code });
    expect(server.requests).toEqual([]);
  });
});

describe('a signal while ids wait for a renewed token after a 401', () => {
  it.each(signals)('%s: the ids refused with the expired token say exit %i, not 4 ("log in again")', async (signal, code) => {
    // Token 1 is taken for 10 requests, then refused: the run asks for token 2, and the command hangs.
    const server = await startExpiringTokenServer(tokenOf(1), 10);
    onTestFinished(() => server.close());
    const command = tokenCommand(1);
    const child = startDetached(
      ['delete', '--stdin', '--json', '--concurrency', '4'],
      { PLANTSTORE_BASE_URL: server.url, PLANTSTORE_TOKEN_COMMAND: command.line, PLANTSTORE_CONFIG_DIR: dir },
      `${Array.from({ length: 100 }, (_, i) => i + 1).join('\n')}\n`,
    );
    const ending = endsWithin(child, 20_000);
    await created(command.waiting);
    child.kill(signal);
    const result = await ending;
    expect(result.code).toBe(code);
    const lines = jsonLines(result.stdout);
    expect(lines).toHaveLength(100);
    const refused = lines.filter((line) => line['status'] === 401);
    // The requests out when token 1 was first refused: each waits for token 2.
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.map((line) => line['exit'])).toEqual(refused.map(() => code));
    expect(refused.every((line) => String(line['message']).includes('interrupted while waiting for a new token'))).toBe(true);
    expect(lines.filter((line) => line['deleted'] === false).every((line) => line['exit'] === code)).toBe(true);
    // Not told to log in again: the token was never finally refused.
    expect(result.stderr).not.toContain('the server refused the token');
  });
});
