// The package as `npm install plantstore` / `npx plantstore` gets it: `npm pack`
// of the built project, installed offline into an empty folder, then run.
// dist/ must already be built (npm test's pretest does it).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finished, type RunResult } from '../helpers/cli.js';
import { readTarball } from '../helpers/tarball.js';

/** What a spawned npm, npx or bin printed, and how it ended. */
type Ran = Omit<RunResult, 'signal'>;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const MAX_TARBALL_BYTES = 400 * 1000; // npm's kB
const NPM_TIMEOUT_MS = 180_000;
const TOP_LEVEL_FILES = ['package.json', 'README.md', 'CHANGELOG.md', 'SECURITY.md', 'LICENSE'];

const hasMan = spawnSync('man', ['--version'], { stdio: 'ignore' }).status === 0;

let tmp: string;
let tarball: string;
let packedFiles: string[];
let entries: Map<string, Buffer>;

/**
 * The project's Node first on PATH, so npm's `#!/usr/bin/env node` and the
 * installed bin's run on it; nothing else of the developer's environment: npm
 * reads no ~/.npmrc, no global npmrc, no npm_config_* inherited from `npm test`.
 */
function isolatedEnv(): Record<string, string> {
  const home = path.join(tmp, 'home');
  mkdirSync(home, { recursive: true });
  return { PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env['PATH'] ?? ''}`, HOME: home };
}

/** Flags that keep npm off the network and out of any cache but an empty one of its own. */
function npmIsolation(): string[] {
  const userRc = path.join(tmp, 'empty-user-npmrc');
  const globalRc = path.join(tmp, 'empty-global-npmrc');
  writeFileSync(userRc, '');
  writeFileSync(globalRc, '');
  return [
    '--offline', // fail with ENOTCACHED rather than fetch anything
    `--cache=${path.join(tmp, `empty-cache-${Math.random().toString(36).slice(2)}`)}`,
    '--registry=http://127.0.0.1:9/', // and should something still try the registry, nothing is there
    `--userconfig=${userRc}`,
    `--globalconfig=${globalRc}`,
    '--no-audit',
    '--no-fund',
    '--no-update-notifier',
  ];
}

async function run(file: string, args: readonly string[], cwd: string): Promise<Ran> {
  const { code, stdout, stderr } = await finished(spawn(file, args, { cwd, env: isolatedEnv(), stdio: ['ignore', 'pipe', 'pipe'] }));
  return { code, stdout, stderr };
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'plantstore-pack-'));
  if (!existsSync(path.join(ROOT, 'dist', 'main.js'))) throw new Error('dist/ is not built: run npm run build (npm test does)');
  // --ignore-scripts: `prepack` would rebuild dist/ while other test files use it.
  const pack = await run('npm', ['pack', '--json', '--ignore-scripts', `--pack-destination=${tmp}`, ...npmIsolation()], ROOT);
  if (pack.code !== 0) throw new Error(`npm pack failed (${pack.code}): ${pack.stderr}`);
  const [report] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  if (!report) throw new Error(`npm pack printed no report: ${pack.stdout}`);
  tarball = path.join(tmp, report.filename);
  packedFiles = report.files.map((f) => f.path).sort();
  entries = readTarball(tarball);
}, NPM_TIMEOUT_MS);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it('holds bin/, dist/ (with the man page), docs/, the README, changelog, security policy, LICENSE and package.json, and nothing else', () => {
    expect([...entries.keys()].sort()).toEqual(packedFiles);
    const stray = packedFiles.filter((file) => !/^(bin|dist|docs)\//.test(file) && !TOP_LEVEL_FILES.includes(file));
    expect(stray).toEqual([]);
    expect(packedFiles.filter((file) => /^(src|test|scripts)\//.test(file))).toEqual([]);
    for (const needed of [...TOP_LEVEL_FILES, 'bin/plantstore.js', 'dist/main.js', 'dist/THIRD_PARTY_LICENSES.md', 'dist/plantstore.1']) {
      expect(packedFiles).toContain(needed);
    }
  });

  it("holds every file the README links to, so its links work where the package is read (npm's page, node_modules)", () => {
    const readme = entries.get('README.md')?.toString('utf8') ?? '';
    const linked = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
      .map((match) => match[1] as string)
      .filter((target) => !/^[a-z]+:/.test(target));
    expect(linked).toContain('docs/reference.md');
    for (const target of linked) expect(packedFiles).toContain(target);
  });

  it('ships the man page package.json names, as built', () => {
    const manifest = JSON.parse(entries.get('package.json')?.toString('utf8') ?? '{}') as { man?: string[] };
    expect(manifest.man).toEqual(['./dist/plantstore.1']);
    expect(entries.get('dist/plantstore.1')?.toString('utf8')).toBe(readFileSync(path.join(ROOT, 'dist', 'plantstore.1'), 'utf8'));
  });

  it('declares no dependencies, no install scripts and no prepare, and keeps engines', () => {
    const manifest = JSON.parse(entries.get('package.json')?.toString('utf8') ?? '{}') as {
      name?: string;
      version?: string;
      engines?: Record<string, string>;
      dependencies?: unknown;
      optionalDependencies?: unknown;
      scripts?: Record<string, string>;
    };
    expect(manifest.name).toBe('plantstore');
    expect(manifest.version).toBe(VERSION);
    expect(manifest.engines?.['node']).toMatch(/^>=\d+\.\d+/);
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.optionalDependencies).toBeUndefined();
    // prepare cannot run where a tarball is installed, and npm warns about it there: the build is prepack.
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) expect(manifest.scripts?.[hook]).toBeUndefined();
    // npm would invent `install: node-gyp rebuild` for this file.
    expect(entries.has('binding.gyp')).toBe(false);
  });

  it('is at most 400 kB', () => {
    expect(statSync(tarball).size).toBeLessThanOrEqual(MAX_TARBALL_BYTES);
  });
});

describe('installed offline from the tarball into an empty folder', () => {
  it('installs nothing but itself and prints its version', { timeout: NPM_TIMEOUT_MS }, async () => {
    const consumer = path.join(tmp, 'consumer');
    mkdirSync(consumer);
    // A package.json pins npm's prefix here rather than in some parent folder.
    writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'pack-e2e-consumer', version: '0.0.0', private: true }));

    const install = await run('npm', ['install', ...npmIsolation(), '--ignore-scripts=false', tarball], consumer);
    expect(install.code, install.stderr).toBe(0);
    const modules = path.join(consumer, 'node_modules');
    expect(readdirSync(modules).filter((name) => !name.startsWith('.'))).toEqual(['plantstore']);

    const version = await run(path.join(modules, '.bin', 'plantstore'), ['--version'], consumer);
    expect(version).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });
});

describe('installed globally from the tarball into a fresh prefix', () => {
  it('puts the man page where man looks, and man shows it', { timeout: NPM_TIMEOUT_MS }, async () => {
    const prefix = path.join(tmp, 'prefix');
    const install = await run('npm', ['install', '--global', `--prefix=${prefix}`, ...npmIsolation(), tarball], tmp);
    expect(install.code, install.stderr).toBe(0);
    expect(install.stderr).not.toMatch(/prepare/i);
    const page = path.join(prefix, 'share', 'man', 'man1', 'plantstore.1');
    expect(readFileSync(page, 'utf8')).toBe(entries.get('dist/plantstore.1')?.toString('utf8'));

    const version = await run(path.join(prefix, 'bin', 'plantstore'), ['--version'], tmp);
    expect(version).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    if (!hasMan) return; // man is not installed here: the page's place is checked above, its rendering not.
    const shown = await run('man', ['--warnings', '-M', path.join(prefix, 'share', 'man'), 'plantstore'], tmp);
    expect(shown.stderr).toBe('');
    expect(shown.stdout).toMatch(/^PLANTSTORE\(1\) +User Commands +PLANTSTORE\(1\)$/m);
  });
});
