import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(ROOT, 'bin', 'plantstore.js');

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  /** Node binary; defaults to the one running the tests (the project's own). */
  node?: string;
}

/**
 * An environment with nothing of the developer's: no real config, no token, no
 * proxy, no color forcing. Each test passes what it needs on top.
 */
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const base: Record<string, string | undefined> = {
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    ...extra,
  };
  return Object.fromEntries(Object.entries(base).filter((e): e is [string, string] => e[1] !== undefined));
}

/** Spawns the built CLI and waits for it to end; never rejects on a non-zero exit. */
export async function runPlantstore(args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const result = await finished(startPlantstore(args, options));
  assertNoTokenLeak(args, options, result);
  return result;
}

/**
 * Every run of the whole suite, whatever it tests, is also a leak test: a token
 * handed in through the environment or piped to a login must not come back out,
 * except from `auth token`, whose job is to print it; nor be written into the
 * journal of a `--journal FILE` run. Exported for runs a test starts and ends itself
 * (startPlantstore, a kill -9).
 */
export function assertNoTokenLeak(args: readonly string[], options: RunOptions, result: RunResult): void {
  const secrets = [options.env?.['PLANTSTORE_TOKEN'], options.input?.trim()].filter(
    (s): s is string => !!s && s.length >= 8 && !/\s/.test(s),
  );
  const printsToken = args.includes('auth') && args.includes('token');
  // Regular files only: a test may plant a FIFO (which would block the read), a folder or a symlink there.
  const journals = journalsOf(args).filter((file) => lstatSync(file, { throwIfNoEntry: false })?.isFile());
  for (const secret of secrets) {
    const leaked = printsToken ? result.stderr.includes(secret) : result.stdout.includes(secret) || result.stderr.includes(secret);
    if (leaked) throw new Error(`plantstore ${args.join(' ')} printed the token it was given`);
    for (const file of journals) {
      if (readFileSync(file, 'utf8').includes(secret))
        throw new Error(`plantstore ${args.join(' ')} wrote the token it was given into ${file}`);
    }
  }
}

/** The files a run was given with `--journal FILE` or `--journal=FILE`. */
export function journalsOf(args: readonly string[]): string[] {
  return args.flatMap((arg, i) => {
    if (arg.startsWith('--journal=')) return [arg.slice('--journal='.length)];
    const next = args[i + 1];
    return arg === '--journal' && next !== undefined ? [next] : [];
  });
}

export function startPlantstore(args: readonly string[], options: RunOptions = {}): ChildProcess {
  const child = spawn(options.node ?? process.execPath, [BIN, ...args], {
    env: cleanEnv(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // A command that never reads its stdin (`--version`) may exit before this write lands: the pipe's
  // EPIPE is then the child's business, not an error of the test (Node 26 reports it unhandled).
  child.stdin?.on('error', () => {});
  child.stdin?.end(options.input ?? '');
  return child;
}

export function finished(child: ChildProcess): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/**
 * Waits for the child to end. Still running after `limitMs`, it is killed and the test fails:
 * a hang guard for runs that must end on their own (after a signal, on a FIFO), not a timing check.
 */
export async function endsWithin(child: ChildProcess, limitMs: number): Promise<RunResult> {
  const guard = setTimeout(() => child.kill('SIGKILL'), limitMs);
  const result = await finished(child);
  clearTimeout(guard);
  if (result.signal === 'SIGKILL') throw new Error(`still running after ${limitMs} ms: killed by the hang guard`);
  return result;
}

/** A fresh config folder per test: the real home is never touched. */
export function tempConfigDir(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'plantstore-test-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A `bin` folder in `parent` holding a `plantstore` that runs the built CLI under the project's
 * Node, as after `npm install -g`: what a shell, xargs or a CI step finds on its PATH.
 * Returns the folder, to put first on a PATH.
 */
export function plantstoreOnPath(parent: string): string {
  const bin = path.join(parent, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(path.join(bin, 'plantstore'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`);
  chmodSync(path.join(bin, 'plantstore'), 0o755);
  return bin;
}
