// The man page the generator writes (the build puts it in dist/plantstore.1, package.json's
// `man`): holding every command, option, variable, exit code and example the program has, and
// rendered by groff and man without a warning where they are installed. Generated here, so it
// runs on an unbuilt clone; that the built file is this page is test/e2e/man-page.e2e.test.ts's.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { examplesOf, manPageFor, programFor, roff } from '../../../scripts/man-page.js';
import { environmentRows } from '../../../src/commands/help/command.js';
import { EXIT_CODE_HELP } from '../../../src/errors.js';
import { ROOT } from '../../helpers/cli.js';

const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string; man?: string[] };
const generated = manPageFor(ROOT);
/** The page as a file, for groff and man. */
const MAN_DIR = mkdtempSync(path.join(tmpdir(), 'plantstore-man-'));
const MAN_FILE = path.join(MAN_DIR, 'plantstore.1');
writeFileSync(MAN_FILE, generated);
afterAll(() => rmSync(MAN_DIR, { recursive: true, force: true }));
const program = programFor(manifest.version);

/** Every command path with the options it takes itself, as the completion test walks the program (hidden ones aside). */
function commandPaths(command: Command, names: string[] = ['plantstore']): Array<{ path: string; options: string[] }> {
  const options = command.options.filter((option) => !option.hidden).flatMap((option) => [option.short, option.long]);
  return [
    { path: names.join(' '), options: options.filter((name): name is string => name !== undefined) },
    ...command.commands.flatMap((sub) => commandPaths(sub, [...names, sub.name()])),
  ];
}

/** The page's text from the heading of `path`'s section to the next section or subsection. */
function sectionOf(page: string, heading: string): string {
  const start = page.indexOf(`\n${heading}\n`);
  if (start === -1) return '';
  const next = page.slice(start + heading.length + 2).search(/^\.S[HS] /m);
  return next === -1 ? page.slice(start) : page.slice(start, start + heading.length + 2 + next);
}

function page(): string {
  return generated;
}

describe('package.json', () => {
  // An array: npm links a string `man` nowhere on a global install (bin-links reads arrays only).
  it("names the man page in `man`, and ships it (it is under `files`' dist/)", () => {
    expect(manifest.man).toEqual(['./dist/plantstore.1']);
  });
});

describe('the man page', () => {
  it('is for this version', () => {
    expect(page()).toMatch(
      new RegExp(
        `^\\.TH PLANTSTORE 1 "\\d{4}\\\\-\\d{2}\\\\-\\d{2}" "plantstore ${roff(manifest.version).replace(/[.\\]/g, '\\$&')}"`,
        'm',
      ),
    );
  });

  const paths = commandPaths(program);
  it('walks a program with commands and options (the walk itself is sound)', () => {
    expect(paths.map((entry) => entry.path)).toEqual(
      expect.arrayContaining(['plantstore delete', 'plantstore auth login', 'plantstore config set']),
    );
    expect(paths.find((entry) => entry.path === 'plantstore delete')?.options).toContain('--concurrency');
  });

  it.each(paths.filter((entry) => entry.path !== 'plantstore'))(
    'has a section for $path with each of its options',
    ({ path: name, options }) => {
      const section = sectionOf(page(), `.SS "${roff(name)}"`);
      expect(section, `no section for ${name}`).not.toBe('');
      for (const option of options) expect(section, `${name} ${option}`).toContain(`\\fB${roff(option)}`);
    },
  );

  it('lists the options of the program itself, and -h/--help', () => {
    const options = sectionOf(page(), '.SH OPTIONS');
    for (const option of [...(paths[0]?.options ?? []), '-h', '--help']) expect(options, option).toContain(roff(option));
  });

  it('has a synopsis line for every command that runs', () => {
    const synopsis = sectionOf(page(), '.SH SYNOPSIS');
    const runnable = paths.filter((entry) => !paths.some((other) => other.path.startsWith(`${entry.path} `)));
    for (const { path: name } of runnable) expect(synopsis).toContain(`\\fB${roff(name)}\\fR`);
  });

  it('lists every environment variable --help lists', () => {
    const environment = sectionOf(page(), '.SH ENVIRONMENT');
    const variables = environmentRows(program).map(([name]) => name);
    expect(variables).toEqual(expect.arrayContaining(['PLANTSTORE_TOKEN', 'PLANTSTORE_RATE', 'PLANTSTORE_SANDBOX_TOKEN']));
    for (const variable of variables) expect(environment).toContain(`\\fB${roff(variable)}\\fR`);
  });

  it('lists every exit code', () => {
    const exitStatus = sectionOf(page(), '.SH EXIT STATUS');
    for (const [code, meaning] of EXIT_CODE_HELP) expect(exitStatus).toContain(`.TP\n\\fB${code}\\fR\n${roff(meaning)}`);
  });

  it('names the config file and its lock', () => {
    const files = sectionOf(page(), '.SH FILES');
    for (const file of [
      '$PLANTSTORE_CONFIG_DIR/config.json',
      '$XDG_CONFIG_HOME/plantstore/config.json',
      '~/.config/plantstore/config.json',
      'config.json.lock',
    ]) {
      expect(files).toContain(roff(file));
    }
  });

  it("has each command's examples, and the program's", () => {
    for (const command of [program, ...program.commands.flatMap((sub) => [sub, ...sub.commands])]) {
      const examples = examplesOf(command);
      expect(examples.length, `${command.name()} has no examples`).toBeGreaterThan(0);
      for (const line of examples) expect(page()).toContain(roff(line));
    }
  });
});

function installed(tool: string): boolean {
  return spawnSync(tool, ['--version'], { stdio: 'ignore' }).status === 0;
}
const hasGroff = installed('groff');
const hasMan = installed('man');
const RENDER_ENV = { PATH: process.env['PATH'] ?? '', LANG: 'C.UTF-8', MANWIDTH: '80', MANPAGER: 'cat', PAGER: 'cat' };

describe('rendering', () => {
  // Where groff or man is missing (a CI image without them) these are skipped, and say so by name.
  it.skipIf(!hasGroff)(`groff -man -Tutf8 -ww renders it without a warning${hasGroff ? '' : ' (skipped: groff is not installed)'}`, () => {
    const rendered = spawnSync('groff', ['-man', '-Tutf8', '-ww', '-P-cbou', MAN_FILE], { encoding: 'utf8', env: RENDER_ENV });
    expect(rendered.stderr).toBe('');
    expect(rendered.status).toBe(0);
    // Some groff setups render \- as U+2212; options read the same either way.
    const text = rendered.stdout.replace(/\u2212/g, '-');
    for (const { options } of commandPaths(program)) for (const option of options) expect(text).toContain(option);
    expect(text).toContain('plantstore delete [options] [id...]');
  });

  // man under LANG=C renders for an ASCII terminal: a character it has no glyph for is a warning there.
  it.skipIf(!hasGroff)(`groff -man -Tascii -ww renders it without a warning${hasGroff ? '' : ' (skipped: groff is not installed)'}`, () => {
    const rendered = spawnSync('groff', ['-man', '-Tascii', '-ww', '-z', MAN_FILE], {
      encoding: 'utf8',
      env: { ...RENDER_ENV, LANG: 'C' },
    });
    expect(rendered.stderr).toBe('');
    expect(rendered.status).toBe(0);
  });

  it.skipIf(!hasMan)(`man -l shows it without a warning${hasMan ? '' : ' (skipped: man is not installed)'}`, () => {
    const shown = spawnSync('man', ['--warnings', '-l', MAN_FILE], { encoding: 'utf8', env: RENDER_ENV });
    expect(shown.stderr).toBe('');
    expect(shown.status).toBe(0);
    expect(shown.stdout).toMatch(/^PLANTSTORE\(1\) +User Commands +PLANTSTORE\(1\)$/m);
    expect(shown.stdout).toContain('EXIT STATUS');
  });
});
