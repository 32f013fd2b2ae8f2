// Under `npx plantstore`, the hints name `npx plantstore …`: plantstore itself is not on the PATH.
import { describe, expect, it } from 'vitest';
import { buildProgram, runCli } from '../../../src/cli.js';
import { createContext } from '../../../src/context.js';
import type { Stdin } from '../../../src/platform/stdin.js';
import { createIO, createTestIO, npxHints } from '../../../src/ui/io.js';

/** A context whose IO is under npx, as `npx plantstore` runs it. */
function underNpx() {
  const io = createTestIO({ env: { npm_command: 'exec' } });
  const ctx = createContext({
    io,
    env: { npm_command: 'exec' },
    stdin: [] as unknown as Stdin,
    version: '0.0.0',
    signal: new AbortController().signal,
  });
  return { io, ctx };
}

/** The program's own command names: what a hint may name. */
const COMMANDS = buildProgram(underNpx().ctx, () => {}).commands.map((command) => command.name());

describe('npxHints', () => {
  it.each([
    [
      "plantstore: no base URL for profile 'default': pass --base-url, set PLANTSTORE_BASE_URL, or run plantstore config set base-url <url>",
      "plantstore: no base URL for profile 'default': pass --base-url, set PLANTSTORE_BASE_URL, or run npx plantstore config set base-url <url>",
    ],
    ['create it with plantstore --profile staging auth login', 'create it with npx plantstore --profile staging auth login'],
    ['(check it with plantstore auth status)', '(check it with npx plantstore auth status)'],
    // Not a command: the error prefix, a path, the program named in prose.
    ['plantstore: interrupted', 'plantstore: interrupted'],
    ['run npm run build in /opt/plantstore and again', 'run npm run build in /opt/plantstore and again'],
    ['plantstore needs Node.js >= 22.19', 'plantstore needs Node.js >= 22.19'],
    ['~/.config/plantstore config', '~/.config/plantstore config'],
  ])('%s', (line, hinted) => {
    expect(npxHints(line, COMMANDS)).toBe(hinted);
  });

  it('applies to stderr under npm_command=exec only, and never to stdout (results scripts read)', () => {
    for (const [env, expected] of [
      [{ npm_command: 'exec' }, 'run npx plantstore auth login\n'],
      [{}, 'run plantstore auth login\n'],
      [{ npm_command: 'run-script' }, 'run plantstore auth login\n'],
    ] as const) {
      let err = '';
      let out = '';
      const io = createIO({ write: (t: string) => (out += t) }, { write: (t: string) => (err += t) }, false, env);
      io.nameCommands(COMMANDS);
      io.err('run plantstore auth login');
      io.out('run plantstore auth login');
      expect(err).toBe(expected);
      expect(out).toBe('run plantstore auth login\n');
    }
  });

  it('the names are the ones given, not a list kept in io.ts: a new command is hinted, a word that is none is not', () => {
    expect(npxHints('try plantstore get 42', ['get', 'delete'])).toBe('try npx plantstore get 42');
    expect(npxHints('try plantstore get 42', ['delete'])).toBe('try plantstore get 42');
    expect(npxHints('try plantstore --help', [])).toBe('try npx plantstore --help');
  });

  it("a run names the program's commands to its IO: help names each command as npx runs it", async () => {
    const { io, ctx } = underNpx();
    await runCli(['help', 'delete'], ctx);
    expect(io.stdout()).toContain('npx plantstore delete --dry-run 42 43');
    expect(io.stdout()).not.toMatch(/(^|[^x] )plantstore delete/m);
  });
});
