// What commander takes from node:child_process: spawn(), to run an executable subcommand (a
// command declared with a description and no action, run as its own program). plantstore
// declares none, so spawn() is never called; node:child_process (with dgram and more) costs
// about 1 ms of every start-up. The build hands commander this module in its place
// (scripts/bundle-plugins.ts); were spawn() called, it would load node:child_process then.
// test/unit/platform/lazy-child-process.test.ts holds it to commander's use.

import type { ChildProcess } from 'node:child_process';

export function spawn(...args: unknown[]): ChildProcess {
  return (process.getBuiltinModule('node:child_process').spawn as (...rest: unknown[]) => ChildProcess)(...args);
}

export default { spawn };
