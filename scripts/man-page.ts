// plantstore.1, the man page, written from the commander program at build time
// (scripts/bundle.ts), so no list in it is kept by hand: the synopsis and every
// command, argument and option are commander's; the environment comes from the
// flag declarations, the exit codes from errors.ts, the config file's paths from
// config/file.ts, the examples from each command's help. Only the sentences that
// join them are written here.

import type { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Command, Help, Option } from 'commander';
import { buildProgram } from '../src/cli.js';
import { environmentRows } from '../src/commands/help/command.js';
import { configPath } from '../src/config/file.js';
import { createContext } from '../src/context.js';
import { EXIT_CODE_HELP } from '../src/errors.js';
import type { Stdin } from '../src/platform/stdin.js';
import { createTestIO } from '../src/ui/io.js';

type Rows = ReadonlyArray<readonly [string, string]>;

/** What the page is written from; everything but the program is a table of term and meaning. */
export interface ManPageSource {
  program: Command;
  version: string;
  /** The release date (YYYY-MM-DD) shown in the page's footer, when known. */
  date?: string;
  environment: Rows;
  exitCodes: Rows;
  files: Rows;
  /** Where the full documentation is read. */
  readme: string;
}

/** The program as the CLI builds it. Nothing is run: only its shape and help are read. */
export function programFor(version: string): Command {
  const ctx = createContext({
    io: createTestIO(),
    env: {},
    stdin: [] as unknown as Stdin,
    version,
    signal: new AbortController().signal,
  });
  return buildProgram(ctx, () => {});
}

/** The page for this source tree: the program, its flags' variables, the exit-code table and the config file's paths. */
export function manPageSource(version: string, date?: string): ManPageSource {
  const program = programFor(version);
  return {
    program,
    version,
    ...(date === undefined ? {} : { date }),
    environment: environmentRows(program),
    exitCodes: EXIT_CODE_HELP.map(([code, meaning]) => [String(code), meaning] as const),
    files: configFileRows(),
    readme: `https://www.npmjs.com/package/${program.name()}`,
  };
}

/** The page of the project at `root`, as the build writes it: for package.json's version, dated as CHANGELOG.md dates it. */
export function manPageFor(root: string): string {
  const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  return manPage(manPageSource(version, releaseDate(readFileSync(path.join(root, 'CHANGELOG.md'), 'utf8'), version)));
}

/** The release date of `version` in a Keep a Changelog file (`## [1.0.0] - 2026-11-24`). */
export function releaseDate(changelog: string, version: string): string | undefined {
  const heading = new RegExp(`^## \\[${version.replace(/\./g, '\\.')}\\] - (\\d{4}-\\d{2}-\\d{2})`, 'm');
  return heading.exec(changelog)?.[1];
}

/**
 * Where the config file is, per platform, asked of configPath itself with the
 * platform set in turn and variables standing for their values, so the page
 * follows any change to the rule. The lock file sits beside it (config/lock.ts).
 */
export function configFileRows(): Rows {
  const home = os.homedir();
  const at = (platform: NodeJS.Platform, env: Record<string, string>): string => {
    const real = Object.getOwnPropertyDescriptor(process, 'platform');
    Object.defineProperty(process, 'platform', { value: platform, configurable: true });
    try {
      const found = configPath(env);
      const tilde = found.startsWith(`${home}/`) ? `~${found.slice(home.length)}` : found;
      return platform === 'win32' ? tilde.replace(/\//g, '\\') : tilde;
    } finally {
      if (real) Object.defineProperty(process, 'platform', real);
    }
  };
  // PLANTSTORE_CONFIG_DIR is resolved to an absolute path: given one, it comes back as is.
  const override = at('linux', { PLANTSTORE_CONFIG_DIR: '/$PLANTSTORE_CONFIG_DIR' }).slice(1);
  return [
    [override, 'the config file when PLANTSTORE_CONFIG_DIR is set, on every system'],
    [at('linux', { XDG_CONFIG_HOME: '$XDG_CONFIG_HOME' }), 'on Linux and other Unix systems, when XDG_CONFIG_HOME is set'],
    [at('linux', {}), 'on Linux and other Unix systems otherwise'],
    [at('darwin', {}), 'on macOS'],
    [at('win32', { APPDATA: '%APPDATA%' }), 'on Windows'],
    [
      `${path.basename(override)}.lock`,
      'beside the config file, held while it is written; one left by a process that is gone is taken over',
    ],
  ];
}

/** The man page, in the man(7) macros, for groff and mandoc alike. */
export function manPage(source: ManPageSource): string {
  const { program, version } = source;
  const help = program.createHelp();
  const name = program.name();
  const commands = allCommands(program);
  const lines: string[] = [
    `.\\" Generated by scripts/man-page.ts from the ${name} ${version} program: edit the program, not this file.`,
    `.TH ${name.toUpperCase()} 1 ${quoted(source.date ?? '')} ${quoted(`${name} ${version}`)} "User Commands"`,
    // No hyphenation and a ragged right edge: option and variable names stay whole.
    '.nh',
    '.ad l',
    '.SH NAME',
    `${name} \\- ${roff(summary(program.description()))}`,
    '.SH SYNOPSIS',
    ...commands.filter((command) => command.commands.length === 0).flatMap((command) => [usage(help, command), '.br']),
    '.SH DESCRIPTION',
    roff(`${program.description()} ${usageNote(name)}`),
    '.SH OPTIONS',
    'These options go before or after the command. Each command reads only those listed under it.',
    ...help.visibleOptions(program).flatMap((option) => optionItem(help, option)),
    '.SH COMMANDS',
    ...commands.filter((command) => command !== program).flatMap((command) => commandSection(help, command)),
    '.SH ENVIRONMENT',
    ...source.environment.flatMap(([variable, meaning]) => item(`\\fB${roff(variable)}\\fR`, meaning)),
    '.SH EXIT STATUS',
    'With several ids, the exit code is that of the first failing id, in input order.',
    ...source.exitCodes.flatMap(([code, meaning]) => item(`\\fB${code}\\fR`, meaning)),
    '.SH FILES',
    ...source.files.flatMap(([file, meaning]) => item(`\\fI${roff(file)}\\fR`, meaning)),
    '.SH EXAMPLES',
    ...exampleLines(examplesOf(program)),
    '.SH SEE ALSO',
    roff(`${name} help <command>; the README at ${source.readme}, which has the whole contract.`),
  ];
  return `${lines.join('\n')}\n`;
}

function usageNote(name: string): string {
  return `Every command prints its help with -h or --help, or with ${name} help <command>.`;
}

/** The program and every command below it, depth first, in the order help lists them. */
function allCommands(command: Command): Command[] {
  // As completion reads it (completion/tree.ts): commander's implicit `help` of a group is not in `commands`.
  return [command, ...command.commands.flatMap(allCommands)];
}

/** `plantstore delete [options] [id...]`: the command's path in bold, the rest as commander writes it. */
function usage(help: Help, command: Command): string {
  const path = commandPath(command);
  const rest = help.commandUsage(command).slice(path.length).trim();
  return `\\fB${roff(path)}\\fR ${roff(rest)}`;
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

function commandSection(help: Help, command: Command): string[] {
  const own = help.visibleOptions(command).filter((option) => !isHelpOption(option));
  const globals = help.visibleGlobalOptions(command).map((option) => option.long ?? option.flags);
  return [
    `.SS ${quoted(commandPath(command))}`,
    usage(help, command),
    '.PP',
    roff(sentence(help.commandDescription(command))),
    ...help
      .visibleArguments(command)
      .flatMap((argument) => item(`\\fI${roff(help.argumentTerm(argument))}\\fR`, help.argumentDescription(argument))),
    ...own.flatMap((option) => optionItem(help, option)),
    ...(globals.length === 0 ? [] : ['.PP', roff(`Global options it reads: ${globals.join(', ')}.`)]),
    ...(command.commands.length === 0 ? [] : ['.PP', roff(`Commands: ${command.commands.map((sub) => sub.name()).join(', ')}.`)]),
    ...exampleBlock(examplesOf(command)),
  ];
}

function isHelpOption(option: Option): boolean {
  return option.long === '--help';
}

/** `--rate <n[/s|/m|/h|/d]>`: the spellings in bold, the value in italics. */
function optionItem(help: Help, option: Option): string[] {
  const term = help
    .optionTerm(option)
    .split(/(<[^>]+>|\[[^\]]+\])/)
    .map((part, index) => {
      if (index % 2 === 1) return `\\fI${roff(part)}\\fR`;
      const spelling = part.trimEnd();
      // Each spelling in bold on its own, as man pages write them: `\fB-q\fR, \fB--quiet\fR`.
      const bold = spelling
        .split(', ')
        .map((name) => `\\fB${roff(name)}\\fR`)
        .join(', ');
      return spelling === '' ? part : `${bold}${part.slice(spelling.length)}`;
    })
    .join('');
  return item(term, help.optionDescription(option));
}

function item(term: string, meaning: string): string[] {
  return ['.TP', term, roff(meaning)];
}

/**
 * The examples a command's help shows (help/documented.ts writes them after
 * `Examples:`, `  # comment` above `  $ command line`), read back from that help.
 */
export function examplesOf(command: Command): string[] {
  let text = '';
  // Commander writes the addHelpText sections from 'afterHelp' listeners; a Command is an EventEmitter.
  (command as unknown as EventEmitter).emit('afterHelp', { error: false, command, write: (chunk: string) => (text += chunk) });
  const lines = text.split('\n');
  const start = lines.indexOf('Examples:');
  if (start === -1) return [];
  const end = lines.indexOf('', start);
  return lines.slice(start + 1, end === -1 ? undefined : end).map((line) => line.replace(/^ {2}/, ''));
}

function exampleBlock(examples: readonly string[]): string[] {
  return examples.length === 0 ? [] : ['.PP', 'Examples:', ...exampleLines(examples)];
}

/** Command lines as typed: no filling, indented. */
function exampleLines(examples: readonly string[]): string[] {
  return ['.PP', '.RS 4', '.nf', ...examples.map(roff), '.fi', '.RE'];
}

/** The NAME line's summary, as whatis(1) lists it: lower case, no full stop. */
function summary(text: string): string {
  const trimmed = text.trim().replace(/\.$/, '');
  return trimmed.charAt(0).toLowerCase() + trimmed.slice(1);
}

/** A description as a sentence: capitalised, with its full stop. */
function sentence(text: string): string {
  const trimmed = text.trim();
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/** Characters help texts use that an ASCII terminal (man under LANG=C) has no glyph for. */
const ASCII_FOR: Readonly<Record<string, string>> = { '\u2026': '...', '\u2013': '-', '\u2014': '--', '\u00d7': 'x', '\u2192': '->' };

/**
 * Text safe in a roff line: backslashes and minus signs escaped (so options copy as typed),
 * anything else past ASCII as a named code point (groff reads bytes as Latin-1), no line read as a request.
 */
export function roff(text: string): string {
  return text
    .replace(/[\u2026\u2013\u2014\u00d7\u2192]/g, (char) => ASCII_FOR[char] ?? char)
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/[^\x00-\x7f]/gu, (char) => `\\[u${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}]`)
    .split('\n')
    .map((line) => (/^[.']/.test(line) ? `\\&${line}` : line))
    .join('\n');
}

function quoted(text: string): string {
  return `"${roff(text).replace(/"/g, '\\(dq')}"`;
}
