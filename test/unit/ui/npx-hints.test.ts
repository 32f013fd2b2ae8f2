// Under `npx plantstore`, the hints name `npx plantstore …`: plantstore itself is not on the PATH.
import { describe, expect, it } from 'vitest';
import { createIO, npxHints } from '../../../src/ui/io.js';

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
    expect(npxHints(line)).toBe(hinted);
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
      io.err('run plantstore auth login');
      io.out('run plantstore auth login');
      expect(err).toBe(expected);
      expect(out).toBe('run plantstore auth login\n');
    }
  });
});
