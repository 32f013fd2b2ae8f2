// A signal while plantstore waits on stdin (`sleep 30 | plantstore delete --stdin`,
// `tail -f ids | …`, a login whose token never comes) ends the run at once: exit 130 for
// SIGINT, 143 for SIGTERM, nothing sent and nothing stored. Stdin stays open throughout,
// and the signal goes only once the process is reading it (stdin-probe.mjs says when).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { BIN, cleanEnv, finished, tempConfigDir } from '../helpers/cli.js';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';

const PROBE = path.join(path.dirname(fileURLToPath(import.meta.url)), '../helpers/stdin-probe.mjs');
const PROBE_LINE = 'stdin-probe: reading standard input\n';
const TOKEN = 'interrupt-Token-0a1b2c3d';

let config: ReturnType<typeof tempConfigDir>;
let server: ScriptedServer;
beforeEach(async () => {
  config = tempConfigDir();
  server = await startScriptedServer((_req, res) => res.writeHead(204).end());
});
afterEach(async () => {
  await server.close();
  config.cleanup();
});

/** Spawns the CLI with stdin a pipe that is never ended; resolves once the CLI reads it. */
async function readingStdin(args: string[], env: Record<string, string>, firstInput: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: cleanEnv({ PLANTSTORE_CONFIG_DIR: config.dir, NODE_OPTIONS: `--import=${PROBE}`, ...env }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  child.stdin?.write(firstInput);
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`exited (${code}) before reading stdin: ${seen}`)));
    child.stderr?.setEncoding('utf8').on('data', function onData(chunk: string) {
      seen += chunk;
      if (!seen.includes(PROBE_LINE)) return;
      child.stderr?.off('data', onData);
      resolve();
    });
  });
  return child;
}

const signals = [
  { signal: 'SIGINT', code: 130 },
  { signal: 'SIGTERM', code: 143 },
  // A terminal or ssh session closing: handled like SIGTERM (it killed the run outright, code null).
  { signal: 'SIGHUP', code: 129 },
] as const;

describe('delete --stdin on a pipe that stays open', () => {
  it.each(signals)('$signal: exit $code at once, nothing sent', async ({ signal, code }) => {
    // Valid ids already piped: they are read, and still not one is sent.
    const child = await readingStdin(['delete', '--stdin'], { PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: server.url }, '1 2 3\n4');
    const run = finished(child);
    child.kill(signal);
    const result = await run;
    expect(result).toMatchObject({ code, signal: null, stdout: '' });
    expect(result.stderr.replace(PROBE_LINE, '')).toBe('plantstore: interrupted while reading ids from standard input; nothing was sent\n');
    expect(server.requests).toEqual([]);
  });
});

describe('delete --stdin --json on a pipe that stays open', () => {
  it.each(signals)('$signal: the one JSON object says exit $code, the code the process ends with', async ({ signal, code }) => {
    const child = await readingStdin(
      ['delete', '--stdin', '--json'],
      { PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: server.url },
      '1 2 3\n4',
    );
    const run = finished(child);
    child.kill(signal);
    const result = await run;
    expect(result.code).toBe(code);
    expect(JSON.parse(result.stdout)).toMatchObject({ deleted: false, exit: code });
    expect(server.requests).toEqual([]);
  });
});

describe('auth login --with-token on a pipe that stays open', () => {
  it.each(signals)('$signal: exit $code at once, nothing stored', async ({ signal, code }) => {
    // Half a token typed, no newline, no end of input.
    const child = await readingStdin(['auth', 'login', '--with-token'], {}, TOKEN.slice(0, 8));
    const run = finished(child);
    child.kill(signal);
    const result = await run;
    expect(result).toMatchObject({ code, signal: null, stdout: '' });
    expect(result.stderr.replace(PROBE_LINE, '')).toBe(
      'plantstore: interrupted while reading the token from standard input; nothing was stored\n',
    );
    expect(existsSync(path.join(config.dir, 'config.json'))).toBe(false);
  });
});
