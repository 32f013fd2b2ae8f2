// `npx plantstore` as a user runs it: the built project packed by `npm pack`, published to a
// private registry on loopback (test/helpers/registry.ts), then fetched and run by the real
// npx, with nothing of the developer's npm setup. dist/ must already be built (npm test's
// pretest does it).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX_TOKEN } from '../../src/commands/sandbox/flags.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { assertNoTokenLeak, finished, ROOT, type RunResult } from '../helpers/cli.js';
import { npmClientFlags, type Registry, startRegistry } from '../helpers/registry.js';
import { startDefaultSandbox } from '../helpers/sandbox-process.js';

/** What a spawned npm, npx or bin printed, and how it ended. */
type Ran = Omit<RunResult, 'signal'>;

const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const NPM_TIMEOUT_MS = 60_000;
const SANDBOX_TOKEN = DEFAULT_SANDBOX_TOKEN;

let tmp: string;
let registry: Registry;
let tarballPath: string;
let caches = 0;

/** A cache folder npm has never used: the first `npx plantstore` of a new user. */
const emptyCache = (): string => path.join(tmp, `cache-${++caches}`);
/**
 * The cache of a user's later one-off runs, which the first of them fills: what these runs print
 * is the claim, and downloading and unpacking the same tarball again adds nothing to it (the
 * first describe holds the empty cache's download and the warm cache's reuse).
 */
const oneOffCache = (): string => path.join(tmp, 'cache-one-off');

/**
 * The project's Node first on PATH, so npm's and the installed bin's `#!/usr/bin/env node`
 * run on it (as pack.e2e.test.ts does), a home of its own, and only the variables a case adds.
 */
async function run(file: string, args: readonly string[], env: Record<string, string> = {}, cwd = path.join(tmp, 'work')): Promise<Ran> {
  const home = path.join(tmp, 'home');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  const PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env['PATH'] ?? ''}`;
  const { code, stdout, stderr } = await finished(
    spawn(file, args, { cwd, env: { PATH, HOME: home, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  return { code, stdout, stderr };
}

/** `npx --yes plantstore …` against the loopback registry; no config folder, no real token. */
async function npxPlantstore(args: readonly string[], cache: string, env: Record<string, string> = {}): Promise<Ran> {
  const full = { PLANTSTORE_CONFIG_DIR: path.join(tmp, 'no-config'), ...env };
  // In tmp/work: no package.json from there up to /, so npx has no local project to look in.
  const ran = await run('npx', [...npmClientFlags(registry.url, cache, tmp), 'plantstore', ...args], full);
  assertNoTokenLeak(args, { env: full }, { ...ran, signal: null });
  return ran;
}

/**
 * Commands a line tells the user to run as a bare `plantstore …`, which npx did not put on the
 * PATH: a command word or an option after "plantstore" that no "npx " comes before.
 */
function bareCommands(stderr: string): string[] {
  return stderr.split('\n').filter((line) => /(?<!npx )\bplantstore (?:[a-z]|--)/.test(line.replace(/^plantstore: /, '')));
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'plantstore-npx-'));
  if (!existsSync(path.join(ROOT, 'dist', 'main.js'))) throw new Error('dist/ is not built: run npm run build (npm test does)');
  // --ignore-scripts: `prepack` would rebuild dist/ while other test files use it (as in pack.e2e.test.ts).
  // --offline: packing needs no registry, and the one below is not up yet.
  const packFlags = ['--offline', ...npmClientFlags('http://127.0.0.1:9/', emptyCache(), tmp)];
  const pack = await run('npm', ['pack', '--json', '--ignore-scripts', `--pack-destination=${tmp}`, ...packFlags], {}, ROOT);
  if (pack.code !== 0) throw new Error(`npm pack failed (${pack.code}): ${pack.stderr}`);
  const [report] = JSON.parse(pack.stdout) as Array<{ filename: string }>;
  if (!report) throw new Error(`npm pack printed no report: ${pack.stdout}`);
  registry = await startRegistry([path.join(tmp, report.filename)]);
  tarballPath = new URL(registry.tarballUrl('plantstore')).pathname;
}, NPM_TIMEOUT_MS);

afterAll(async () => {
  await registry?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('npx plantstore, fetched from a registry', { timeout: NPM_TIMEOUT_MS }, () => {
  // The second case runs on the cache the first one filled, as a user's second npx does.
  const cache = (): string => path.join(tmp, 'cache-shared');

  it('from an empty cache: downloads the package and prints its version', async () => {
    const ran = await npxPlantstore(['--version'], cache());
    expect(ran).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    expect(registry.requests('/plantstore')).toBeGreaterThan(0);
    expect(registry.requests(tarballPath)).toBe(1);
    // Everything it runs on is bundled in dist/: npx asked for no other package (nor, --audit=false, an audit).
    expect([...registry.requestCounts().keys()].sort()).toEqual(['/plantstore', tarballPath].sort());
  });

  it('again with the same cache: the same answer, and the tarball is not downloaded again', async () => {
    const before = registry.requests(tarballPath);
    const ran = await npxPlantstore(['--version'], cache());
    expect(ran).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    expect(before).toBe(1);
    expect(registry.requests(tarballPath)).toBe(1);
  });
});

describe('the one-off a user runs with npx', { timeout: NPM_TIMEOUT_MS }, () => {
  // The server `plantstore sandbox` runs, in this process: these runs are about what npx runs, not the sandbox command.
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startDefaultSandbox();
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('deletes a plant; deleted already, the plant is an error, with no bare plantstore in what it says', async () => {
    const env = { PLANTSTORE_BASE_URL: sandbox.url, PLANTSTORE_TOKEN: SANDBOX_TOKEN };
    const cache = oneOffCache();
    const deleted = await npxPlantstore(['delete', '42'], cache, env);
    expect(deleted).toEqual({ code: 0, stdout: 'Deleted plant 42\n', stderr: '' });

    // The sandbox answers a plant it does not hold with 400 error 1, which nothing here declares.
    const again = await npxPlantstore(['delete', '42'], cache, env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('plant 42: error 1: plant 42 does not exist (HTTP 400)');
    expect(bareCommands(again.stderr)).toEqual([]);
  });

  it('without a token: exit 4, and the way to log in is a command npx can run', async () => {
    const ran = await npxPlantstore(['delete', '42'], oneOffCache(), { PLANTSTORE_BASE_URL: sandbox.url });
    expect(ran).toEqual({
      code: 4,
      stdout: '',
      stderr: "plantstore: no token for profile 'default': run npx plantstore auth login, or set PLANTSTORE_TOKEN\n",
    });
  });

  it('without a base URL: exit 3, and the way to set it is a command npx can run', async () => {
    const ran = await npxPlantstore(['delete', '42'], oneOffCache(), { PLANTSTORE_TOKEN: SANDBOX_TOKEN });
    expect(ran.code).toBe(3);
    expect(ran.stderr).toContain('npx plantstore config set base-url <url>');
    expect(bareCommands(ran.stderr)).toEqual([]);
  });
});

describe('npx plantstore --help', { timeout: NPM_TIMEOUT_MS }, () => {
  // npx links no man page (only a global install does): the help may name `man plantstore`
  // only as what a global install brings (src/commands/help/documented.ts).
  it('names the manual only as what npm install -g brings', async () => {
    const ran = await npxPlantstore(['--help'], oneOffCache());
    expect(ran.code).toBe(0);
    const manLines = ran.stdout.split('\n').filter((line) => /\bman plantstore\b/.test(line));
    expect(manLines).toEqual(['  and, after npm install -g plantstore, the manual: man plantstore']);
    // Its examples and pointers are commands to paste: as npx runs them.
    expect(ran.stdout).toContain('  $ npx plantstore delete 42 43\n');
    expect(ran.stdout).toContain('Use npx plantstore help <command>');
  });
});
