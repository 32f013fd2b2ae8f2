// The build gives commander src/platform/lazy-child-process.ts in place of node:child_process (see
// scripts/bundle-plugins.ts). This holds the stand-in to commander's use, so a commander upgrade that
// uses more of node:child_process fails here.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import lazyChildProcess from '../../../src/platform/lazy-child-process.js';

const command = readFileSync(path.resolve(import.meta.dirname, '../../../node_modules/commander/lib/command.js'), 'utf8');

it('commander takes only spawn() from node:child_process, through its default import', () => {
  expect(command).toMatch(/^import childProcess from 'node:child_process';$/m);
  expect(new Set([...command.matchAll(/\bchildProcess\.(\w+)/g)].map((match) => match[1]))).toEqual(new Set(['spawn']));
});

it('the token command takes only spawn() from node:child_process, by name', () => {
  const tokenCommand = readFileSync(path.resolve(import.meta.dirname, '../../../src/config/token-command.ts'), 'utf8');
  expect([...tokenCommand.matchAll(/^import\b.*from 'node:child_process';$/gm)].map((match) => match[0])).toEqual([
    "import { spawn } from 'node:child_process';",
  ]);
});

it('spawn() runs a real process (node:child_process is loaded when first called)', async () => {
  const child = lazyChildProcess.spawn(process.execPath, ['-e', 'process.exit(7)'], { stdio: 'ignore' });
  const code = await new Promise((resolve) => child.on('exit', resolve));
  expect(code).toBe(7);
});
