// The real commander program, as the CLI builds it, for tests that go over every command: the
// list comes from here, never from a copy, so a new command is covered without editing them.
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli.js';
import { createContext } from '../../src/context.js';
import type { Stdin } from '../../src/platform/stdin.js';
import { createTestIO } from '../../src/ui/io.js';

/** The program, built over a context that is never used to run anything. */
export function realProgram(): Command {
  const signal = new AbortController().signal;
  return buildProgram(createContext({ io: createTestIO(), env: {}, stdin: [] as unknown as Stdin, version: '0.0.0', signal }), () => {});
}

/** Every command path of the program with the options it takes itself (commander's -h/--help aside), the program's own first. */
export function commandPaths(command: Command, path: string[] = []): Array<{ path: string[]; options: string[] }> {
  const options = command.options.filter((option) => !option.hidden).flatMap((option) => [option.short, option.long]);
  return [
    { path, options: options.filter((name): name is string => name !== undefined) },
    ...command.commands.flatMap((sub) => commandPaths(sub, [...path, sub.name()])),
  ];
}
