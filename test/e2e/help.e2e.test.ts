// `--help` and `--version` are answered by fast paths in src/main.ts (a help text
// captured at build time, the version from package.json): they must say exactly
// what commander says.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ROOT, runPlantstore } from '../helpers/cli.js';

it('--help and -h print exactly what commander prints for `help`', async () => {
  const fromCommander = await runPlantstore(['help']);
  expect(fromCommander.code).toBe(0);
  expect(fromCommander.stdout).toContain('Exit codes');
  for (const flag of ['--help', '-h']) {
    const fast = await runPlantstore([flag]);
    expect(fast).toMatchObject({ code: 0, stdout: fromCommander.stdout, stderr: '' });
  }
});

it('the built help ends with where to read more, and help reaches nested commands', async () => {
  const top = await runPlantstore(['--help']);
  expect(top.stdout).toContain('\nExamples:\n');
  expect(top.stdout).toMatch(
    /\nLearn more:\n.*\n {2}Read the README at https:\/\/www\.npmjs\.com\/package\/plantstore\n {2}and, after npm install -g plantstore, the manual: man plantstore\n$/,
  );
  const nested = await runPlantstore(['help', 'auth', 'login']);
  expect(nested).toMatchObject({ code: 0, stderr: '' });
  expect(nested.stdout).toMatch(/^Usage: plantstore auth login \[options\]\n/);
  expect(nested.stdout).toBe((await runPlantstore(['auth', 'login', '--help'])).stdout);
  const deleteHelp = (await runPlantstore(['delete', '--help'])).stdout;
  for (const flag of ['--json', '--profile <name>', '--timeout <time>']) expect(deleteHelp).toContain(`\n  ${flag}`);
});

it('--version and -V print the package version', async () => {
  const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
  for (const flag of ['--version', '-V']) {
    expect(await runPlantstore([flag])).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
  }
  // With anything else on the line, commander parses it as usual (--json: test/e2e/version.e2e.test.ts).
  expect((await runPlantstore(['--version', '--no-color'])).stdout).toBe(`${version}\n`);
});

it('the program help says each section once', async () => {
  const { stdout } = await runPlantstore(['--help']);
  for (const heading of ['Usage:', 'Options:', 'Commands:', 'Examples:', 'Environment:', 'Exit codes']) {
    expect(
      stdout.split('\n').filter((line) => line.startsWith(heading)),
      heading,
    ).toHaveLength(1);
  }
});

it('bare plantstore prints a short usage on stderr (the commands, and where the rest is) in at most 30 lines: exit 2', async () => {
  const bare = await runPlantstore([]);
  expect(bare.code).toBe(2);
  expect(bare.stdout).toBe('');
  const lines = bare.stderr.trimEnd().split('\n');
  expect(lines.length).toBeLessThanOrEqual(30);
  // Wrapped as --help is, so an 80-column terminal shows no line broken mid-word.
  for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
  for (const command of ['delete', 'auth', 'config', 'completion', 'sandbox'])
    expect(bare.stderr).toMatch(new RegExp(`^  ${command} `, 'm'));
  expect(bare.stderr).toContain('plantstore --help');
  expect(bare.stderr).not.toContain('Environment:');
  expect(lines.at(-1)).toBe('plantstore: a command is missing: pick one of those above');
});
