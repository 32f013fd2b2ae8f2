// What a command adds to the JSON object of a failure that stopped it before any result
// (ui/fatal.ts), declared by the command itself: `delete` adds "deleted": false, which scripts
// test on every line. cli.ts hands the one of the command reached to main, naming no command.

import type { Command } from 'commander';

export type FatalFields = Readonly<Record<string, boolean>>;

const declared = new WeakMap<Command, FatalFields>();

export function declareFatalFields(command: Command, fields: FatalFields): void {
  declared.set(command, fields);
}

/** The fields `command` declared; none when it declared none. */
export function fatalFieldsOf(command: Command): FatalFields {
  return declared.get(command) ?? {};
}
