// The launcher on a Node older than the engines range: it must parse there, and keep the
// README's promise of one JSON object on stdout for --json, as every other stop before a
// request does. Run with the first Node on PATH older than 22.19 (v20 on this machine and
// in CI); skipped when there is none.
import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPlantstore } from '../helpers/cli.js';

const oldNode = findOldNode();
const MESSAGE =
  /^plantstore needs Node\.js >= 22\.19; this is v\d+\.\d+\.\d+; install a newer Node \(https:\/\/nodejs\.org, or nvm install 22\), or run it with npx -p node@22 -p plantstore plantstore$/;

describe.skipIf(!oldNode)(`an unsupported Node (${oldNode ?? 'none below 22.19 on PATH: skipped'})`, () => {
  it.each<[string, string[], string[]]>([
    ['--json before the command', ['--json', 'delete', '42'], ['deleted', 'exit', 'message']],
    ['--json after the ids', ['delete', '42', '--json'], ['deleted', 'exit', 'message']],
    // Only delete promises deleted:false; any other command gets the neutral object.
    ['--json alone', ['--json'], ['exit', 'message']],
    ['--json config path', ['--json', 'config', 'path'], ['exit', 'message']],
  ])('%s: exit 3, the one JSON object on stdout, the line on stderr', async (_name, argv, keys) => {
    const result = await runPlantstore(argv, { node: oldNode! });
    expect(result.code).toBe(3);
    expect(result.stdout.endsWith('\n')).toBe(true);
    expect(result.stdout.trimEnd()).not.toContain('\n');
    const parsed = JSON.parse(result.stdout) as { deleted?: unknown; exit: unknown; message: string };
    expect(Object.keys(parsed)).toEqual(keys);
    expect(parsed).toMatchObject({ exit: 3, ...(keys.includes('deleted') ? { deleted: false } : {}) });
    expect(parsed.message).toMatch(MESSAGE);
    expect(result.stderr).toBe(`${parsed.message}\n`);
  });

  it.each([
    ['without --json', ['delete', '42']],
    ['with --json only as an operand after --', ['delete', '--', '--json']],
  ])('%s: nothing on stdout', async (_name, argv) => {
    const result = await runPlantstore(argv, { node: oldNode! });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(new RegExp(`${MESSAGE.source.slice(0, -1)}\\n$`));
  });
});

/** The first `node` on PATH (as `which -a node` lists them) older than 22.19. */
function findOldNode(): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, 'node');
    try {
      accessSync(candidate, constants.X_OK);
      const [major = 0, minor = 0] = execFileSync(candidate, ['--version'], { encoding: 'utf8' }).trim().slice(1).split('.').map(Number);
      if (major < 22 || (major === 22 && minor < 19)) return candidate;
    } catch {
      // not there, or not runnable
    }
  }
  return undefined;
}
