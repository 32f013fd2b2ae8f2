// Most test files share their worker's module cache (vitest.config.ts, isolate: false). A file
// that patches what other files import (nock patches the HTTP stack, vi.mock replaces a
// module) must run isolated, or the next file in its worker inherits the patch. This keeps
// that rule from living only in a comment.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const PATCHES_GLOBALS = /\bvi\.mock\(|from 'nock'/;

function testFiles(folder: string): string[] {
  return readdirSync(path.join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => path.posix.join(folder, file.split(path.sep).join('/')));
}

const ISOLATED_NAME = /\.isolated\.test\.ts$/;

describe('test isolation', () => {
  const self = 'test/unit/test-isolation.test.ts'; // names what it looks for
  const files = ['test/unit', 'test/http', 'test/e2e'].flatMap(testFiles).filter((file) => file !== self);
  const patching = files.filter((file) => PATCHES_GLOBALS.test(readFileSync(path.join(ROOT, file), 'utf8')));

  it('names every file that uses nock or vi.mock *.isolated.test.ts, which vitest.config.ts runs isolated', () => {
    expect(patching).toContain('test/http/api.isolated.test.ts');
    expect(patching.filter((file) => !ISOLATED_NAME.test(file))).toEqual([]);
    expect(readFileSync(path.join(ROOT, 'vitest.config.ts'), 'utf8')).toContain("const ISOLATED = ['test/**/*.isolated.test.ts'];");
  });

  it('isolates no file that does not need it: isolation costs a fresh module graph per file', () => {
    expect(files.filter((file) => ISOLATED_NAME.test(file) && !patching.includes(file))).toEqual([]);
  });
});
