// What commander and the token command take from node:child_process: spawn(). Commander calls it
// to run an executable subcommand (a command declared with a description and no action, run as
// its own program), and plantstore declares none; the token command calls it only for a run with
// a token command. node:child_process (with dgram and more) costs about 1 ms of every start-up.
// The build hands both this module in its place (scripts/bundle-plugins.ts); node:child_process
// is loaded at the first spawn(). test/unit/platform/lazy-child-process.test.ts holds it to
// their use.

import type { ChildProcess } from 'node:child_process';

export function spawn(...args: unknown[]): ChildProcess {
  return (process.getBuiltinModule('node:child_process').spawn as (...rest: unknown[]) => ChildProcess)(...args);
}

export default { spawn };
