// argv to the options `completion` runs with, captured at the run seam: no script is written.
import { describe, expect, it } from 'vitest';
import type { CompletionOptions } from '../../../../src/commands/completion/flags.js';
import { optionsOf } from '../../../helpers/options-of.js';

const completion = (argv: string[]) => optionsOf('completion', argv);

describe('completion: argv to options', () => {
  it.each<[string, string[], Omit<CompletionOptions, 'tree'>]>([
    ['a shell', ['completion', 'bash'], { shell: 'bash', listProfiles: false }],
    ['no shell', ['completion'], { shell: undefined, listProfiles: false }],
    ['a shell it does not know, as typed: the run refuses it', ['completion', 'tcsh'], { shell: 'tcsh', listProfiles: false }],
    ['--list-profiles, which needs no shell', ['completion', '--list-profiles'], { shell: undefined, listProfiles: true }],
  ])('%s', async (_name, argv, expected) => {
    const { tree, ...rest } = await completion(argv);
    expect(rest).toEqual(expected);
    // Written from the whole program: the global flags are in it.
    expect(JSON.stringify(tree)).toContain('--profile');
  });
});
