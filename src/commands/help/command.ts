import { Argument, type Command } from 'commander';
import { completes } from '../../completion/tree.js';
import { EXIT_CODE_HELP, Exit, UsageError } from '../../errors.js';
import { flagOf } from '../../flags/flag.js';
import { VARIABLES_FIRST, VARIABLES_LAST } from '../../flags/global.js';
import { nearest } from '../../text/suggest.js';
import type { Finish } from '../finish.js';
import { documented, wrap } from './documented.js';

/** `plantstore help auth login` reaches the nested command; commander's own help command reads one name. */
export function helpCommand(program: Command, finish: Finish): Command {
  const command = program
    .command('help')
    .description('show the help of a command, such as plantstore help auth login')
    .addArgument(completes(new Argument('[command...]', 'the command, and its subcommand'), { kind: 'commands' }))
    .action((names: string[]) => {
      helpTarget(program, names).outputHelp();
      finish(Exit.ok);
    });
  return documented(command, {
    concerns: { exits: [Exit.ok, Exit.usage] },
    examples: [['plantstore help'], ['plantstore help auth login', 'the same as plantstore auth login --help']],
  });
}

/** The command `plantstore help <names...>` is about. */
function helpTarget(program: Command, names: readonly string[]): Command {
  let target = program;
  for (const [index, name] of names.entries()) {
    const next = target.commands.find((command) => command.name() === name || command.aliases().includes(name));
    if (next === undefined) {
      const asked = names.slice(0, index + 1).join(' ');
      const parent = names.slice(0, index).join(' ');
      if (target.commands.length === 0)
        throw new UsageError(`unknown command '${asked}': plantstore ${parent} has no subcommands; see plantstore help ${parent}`);
      // As `plantstore delet` is answered: the nearest name, when one is near.
      const meant = nearest(
        name,
        target.commands.map((command) => command.name()),
      );
      const suggestion = meant === undefined ? '' : ` (did you mean ${[...names.slice(0, index), meant].join(' ')}?)`;
      throw new UsageError(
        `unknown command '${asked}'${suggestion}: ${parent ? `plantstore help ${parent} lists its commands` : 'plantstore help lists the commands'}`,
      );
    }
    target = next;
  }
  return target;
}

/** Every variable plantstore reads: those of the flags of every command, found by walking the program, and the rest. */
export function environmentRows(program: Command): ReadonlyArray<readonly [string, string]> {
  const fromFlags: Array<readonly [string, string]> = [];
  const visit = (command: Command): void => {
    for (const option of command.options) {
      const row = flagOf(option)?.environmentHelp();
      if (row !== undefined && !fromFlags.some(([name]) => name === row[0])) fromFlags.push(row);
    }
    command.commands.forEach(visit);
  };
  visit(program);
  return [...VARIABLES_FIRST, ...fromFlags, ...VARIABLES_LAST];
}

/** The Environment section of --help. */
export function environmentHelp(program: Command): string {
  const rows = environmentRows(program);
  const width = Math.max(...rows.map(([name]) => name.length)) + 2;
  return ['Environment:', ...rows.map(([name, meaning]) => wrap(`  ${name.padEnd(width)}`, meaning))].join('\n');
}

export function exitCodeHelp(): string {
  const rows = EXIT_CODE_HELP.map(([code, meaning]) => wrap(`  ${String(code).padStart(3)}  `, meaning));
  return ['Exit codes (with several ids, the code of the first failing id):', ...rows].join('\n');
}
