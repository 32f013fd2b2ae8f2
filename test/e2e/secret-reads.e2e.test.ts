// The built CLI handed endless or huge secrets: /dev/zero, a FIFO that never ends,
// a 1 GiB file, an endless pipe. Each run must end (the test timeout is the only bound)
// with its exit code and one line saying why, and with bounded memory: every run has a
// 64 MB JS heap (a string grown without bound dies of it) and reports its peak RSS (a
// buffer grown without bound shows there: a 1 GiB file read whole costs over 1 GiB).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, finished, type RunResult } from '../helpers/cli.js';

const TOKEN_LIMIT = 8192;
const PEAK_RSS_LIMIT_KIB = 256 * 1024;
const LINUX = process.platform === 'linux';

// Preloaded into every run: writes the process's peak RSS (KiB) to $RSS_FILE as it exits.
const REPORT_RSS = `data:text/javascript,${encodeURIComponent(
  'import{writeFileSync}from"node:fs";process.on("exit",()=>writeFileSync(process.env.RSS_FILE,String(process.resourceUsage().maxRSS)))',
)}`;

let work: string;
let runs = 0;
const writers: ChildProcess[] = [];

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'plantstore-secret-reads-e2e-'));
});
afterAll(() => {
  for (const child of writers) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

type Stdin = { file: string } | { endless: true } | { text: string };

interface Measured extends RunResult {
  peakRssKiB: number;
  configDir: string;
}

async function plantstore(args: string[], env: Record<string, string>, stdin: Stdin = { text: '' }): Promise<Measured> {
  const id = ++runs;
  const configDir = path.join(work, `config-${id}`);
  const rssFile = path.join(work, `rss-${id}`);
  const stdinFd = 'file' in stdin ? openSync(stdin.file, 'r') : undefined;
  const child = spawn(process.execPath, [BIN, ...args], {
    env: cleanEnv({
      PLANTSTORE_CONFIG_DIR: configDir,
      NODE_OPTIONS: `--max-old-space-size=64 --import=${REPORT_RSS}`,
      RSS_FILE: rssFile,
      ...env,
    }),
    stdio: [stdinFd ?? 'pipe', 'pipe', 'pipe'],
  });
  if (stdinFd !== undefined) closeSync(stdinFd);
  if ('text' in stdin) child.stdin?.end(stdin.text);
  if ('endless' in stdin && child.stdin) pumpForever(child.stdin);
  const result = await finished(child);
  return { ...result, peakRssKiB: Number(readFileSync(rssFile, 'utf8')), configDir };
}

/** Writes to a pipe until its reader goes away (`yes | plantstore ...`). */
function pumpForever(pipe: NodeJS.WritableStream & { destroyed: boolean }): void {
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const pump = (): void => {
    while (!pipe.destroyed && pipe.write(chunk)) {}
  };
  pipe.on('drain', pump);
  pipe.on('error', () => {}); // EPIPE once the CLI has refused and exited: expected.
  pump();
}

/** A file of `size` bytes that takes no disk. */
function sparse(name: string, size: number): string {
  const file = path.join(work, name);
  writeFileSync(file, '');
  truncateSync(file, size);
  return file;
}

/** A FIFO another process writes to until the reader closes it; `ended` says how the writer stopped. */
function endlessFifo(name: string): { file: string; ended: Promise<string> } {
  const file = path.join(work, name);
  execFileSync('mkfifo', [file]);
  const script = `
    const fs = require('node:fs');
    const fd = fs.openSync(process.argv[1], 'w');
    const chunk = Buffer.alloc(65536, 'a');
    try { for (;;) fs.writeSync(fd, chunk); } catch (error) { process.stdout.write(error.code); }`;
  const child = spawn(process.execPath, ['-e', script, file], { stdio: ['ignore', 'pipe', 'inherit'] });
  writers.push(child);
  return { file, ended: finished(child).then((r) => r.stdout) };
}

function expectRefusal(run: Measured, exit: number, message: string): void {
  expect({ code: run.code, signal: run.signal, stderr: run.stderr }).toEqual({
    code: exit,
    signal: null,
    stderr: `plantstore: ${message}\n`,
  });
  expect(run.stdout).toBe('');
  expect(run.peakRssKiB).toBeLessThan(PEAK_RSS_LIMIT_KIB);
}

const READY = { PLANTSTORE_TOKEN: 'e2e-bounded-read-token', PLANTSTORE_BASE_URL: 'http://127.0.0.1:9' };
const tooLargeToken = (file: string, origin: string) =>
  `token file ${file} (from ${origin}) holds more than ${TOKEN_LIMIT} bytes: too large to hold a token`;
const tooLargeBundle = (file: string, origin: string) =>
  `the CA bundle ${file} (from ${origin}) holds more than 4 MiB: too large to be a PEM bundle of CA certificates`;

describe.concurrent('a token file is read with a bound (exit 3)', () => {
  it.skipIf(!existsSync('/dev/zero'))('--token-file /dev/zero', async () => {
    expectRefusal(await plantstore(['--token-file', '/dev/zero', 'auth', 'status'], {}), 3, tooLargeToken('/dev/zero', '--token-file'));
  });

  it('PLANTSTORE_TOKEN_FILE naming a 1 GiB file', async () => {
    const file = sparse('huge-token', 2 ** 30);
    const run = await plantstore(['auth', 'status'], { PLANTSTORE_TOKEN_FILE: file });
    expectRefusal(run, 3, tooLargeToken(file, 'PLANTSTORE_TOKEN_FILE'));
  });

  it.skipIf(!LINUX)('--token-file on a FIFO that never ends: read to the bound, then closed', async () => {
    const fifo = endlessFifo('endless-token');
    const run = await plantstore(['--token-file', fifo.file, 'delete', '--dry-run', '1'], {
      PLANTSTORE_BASE_URL: READY.PLANTSTORE_BASE_URL,
    });
    expectRefusal(run, 3, tooLargeToken(fifo.file, '--token-file'));
    expect(await fifo.ended).toBe('EPIPE');
  });

  it.skipIf(!LINUX)('--token-file /dev/stdin, with /dev/zero on stdin', async () => {
    const run = await plantstore(['--token-file', '/dev/stdin', 'auth', 'status'], {}, { file: '/dev/zero' });
    expectRefusal(run, 3, tooLargeToken('/dev/stdin', '--token-file'));
  });

  it.skipIf(!LINUX)('--token-file /dev/stdin still reads a token, the longest with a newline after it', async () => {
    const token = 'a'.repeat(4096);
    const file = path.join(work, 'longest-token');
    writeFileSync(file, `${token}\n`);
    const run = await plantstore(['--token-file', '/dev/stdin', 'auth', 'status'], {}, { file });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Token:    aaaa… (from token file /dev/stdin)');
  });
});

describe.concurrent('a CA bundle is read with a bound (exit 3, nothing sent)', () => {
  it.skipIf(!existsSync('/dev/zero'))('--cacert /dev/zero', async () => {
    const run = await plantstore(['--cacert', '/dev/zero', 'delete', '--dry-run', '1'], READY);
    expectRefusal(run, 3, tooLargeBundle('/dev/zero', '--cacert'));
  });

  it('PLANTSTORE_CA_CERT naming a 1 GiB file', async () => {
    const file = sparse('huge.pem', 2 ** 30);
    const run = await plantstore(['delete', '--dry-run', '1'], { ...READY, PLANTSTORE_CA_CERT: file });
    expectRefusal(run, 3, tooLargeBundle(file, 'PLANTSTORE_CA_CERT'));
  });
});

describe.concurrent('auth login --with-token reads stdin with a bound (exit 2, nothing stored)', () => {
  const refused = `standard input holds more than ${TOKEN_LIMIT} bytes; pipe just the token`;

  it.skipIf(!existsSync('/dev/zero'))('< /dev/zero', async () => {
    const run = await plantstore(['auth', 'login', '--with-token'], {}, { file: '/dev/zero' });
    expectRefusal(run, 2, refused);
    expect(existsSync(path.join(run.configDir, 'config.json'))).toBe(false);
  });

  it('from a pipe that never ends', async () => {
    const run = await plantstore(['auth', 'login', '--with-token'], {}, { endless: true });
    expectRefusal(run, 2, refused);
    expect(existsSync(path.join(run.configDir, 'config.json'))).toBe(false);
  });

  it('stores the longest token with a newline after it', async () => {
    const token = 'b'.repeat(4096);
    const run = await plantstore(['auth', 'login', '--with-token'], {}, { text: `${token}\n` });
    expect(run.code).toBe(0);
    const stored = JSON.parse(readFileSync(path.join(run.configDir, 'config.json'), 'utf8')) as {
      profiles: { default: { token: string } };
    };
    expect(stored.profiles.default.token).toBe(token);
  });
});
