// A clone before its first build (issue 29 item 6): the launcher says how to build, in one
// line, instead of Node's ERR_MODULE_NOT_FOUND stack trace. The launcher is copied into a
// folder with no dist/, as a fresh clone has it.
import { execFile, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, ROOT } from '../helpers/cli.js';

const PACKAGE_VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

const clone = mkdtempSync(path.join(tmpdir(), 'plantstore-clone-'));
afterAll(() => rmSync(clone, { recursive: true, force: true }));
mkdirSync(path.join(clone, 'bin'));
copyFileSync(BIN, path.join(clone, 'bin', 'plantstore.js'));
writeFileSync(path.join(clone, 'package.json'), '{"type":"module"}\n');

async function unbuilt(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [path.join(clone, 'bin', 'plantstore.js'), ...args], {
      env: cleanEnv(),
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const LINE = `plantstore is not built (no ${clone}/dist/main.js): run npm run build in ${clone}\n`;

it('says how to build, in one line, exit 70: no stack trace', async () => {
  const result = await unbuilt(['delete', '1']);
  expect(result).toEqual({ code: 70, stdout: '', stderr: LINE });
});

it('with --json, also the one JSON object on stdout', async () => {
  const result = await unbuilt(['--json', 'delete', '1']);
  expect(result.code).toBe(70);
  expect(JSON.parse(result.stdout)).toEqual({ deleted: false, exit: 70, message: LINE.trimEnd() });
  expect(result.stderr).toBe(LINE);
});

// `npm run install-local` (issue 41): the clone's plantstore on the PATH every shell, xargs and CI
// step sees, run under the project's Node (the machine's may be older), and its man page found
// by man from that PATH. The script runs as npm runs it, after the build the suite made.
describe('npm run install-local', () => {
  const prefix = mkdtempSync(path.join(tmpdir(), 'plantstore-prefix-'));
  afterAll(() => rmSync(prefix, { recursive: true, force: true }));
  const PATH = `${path.join(prefix, 'bin')}:/usr/bin:/bin`;
  const install = (args: string[] = []) =>
    spawnSync(
      process.execPath,
      [path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), path.join(ROOT, 'scripts', 'install-local.ts'), ...args],
      {
        encoding: 'utf8',
        env: cleanEnv({ PATH }),
      },
    );
  const sh = (command: string) => spawnSync('sh', ['-c', command], { encoding: 'utf8', env: { PATH, HOME: prefix } });

  it('puts a plantstore on PATH that sh -c and xargs run under the project Node, and man finds its page', () => {
    const first = install(['--prefix', prefix]);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    // /usr/bin's node (if any) is not the project's: the launcher names its own.
    const version = sh('plantstore --version && printf "a\\nb\\n" | xargs -n 1 sh -c "plantstore --version"');
    expect(version.status).toBe(0);
    expect(version.stdout.trim().split('\n')).toEqual([PACKAGE_VERSION, PACKAGE_VERSION, PACKAGE_VERSION]);
    // Found through PREFIX/share/man (derived from PATH), which links to the clone's built page.
    const man = sh('unset MANPATH; man -w plantstore');
    expect(man.stdout.trim()).toBe(path.join(ROOT, 'dist', 'plantstore.1'));
    // Again: its own launcher is replaced, not refused.
    expect(install(['--prefix', prefix]).status).toBe(0);
  });

  it('never overwrites a plantstore it did not write', () => {
    const other = mkdtempSync(path.join(tmpdir(), 'plantstore-prefix-'));
    try {
      mkdirSync(path.join(other, 'bin'));
      writeFileSync(path.join(other, 'bin', 'plantstore'), '#!/bin/sh\necho installed by npm\n');
      const refused = install(['--prefix', other]);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(/^install-local: .*plantstore exists and was not written by install-local/);
      expect(readFileSync(path.join(other, 'bin', 'plantstore'), 'utf8')).toContain('installed by npm');
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
