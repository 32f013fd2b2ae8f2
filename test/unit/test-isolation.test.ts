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

/** The ISOLATED list of vitest.config.ts, as written there. */
function isolatedPatterns(): string[] {
  const config = readFileSync(path.join(ROOT, 'vitest.config.ts'), 'utf8');
  const list = /const ISOLATED = \[([^\]]*)\]/.exec(config)?.[1] ?? '';
  return [...list.matchAll(/'([^']+)'/g)].map((match) => match[1] as string);
}

function isolated(file: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) =>
    pattern.endsWith('/**/*.test.ts') ? file.startsWith(pattern.slice(0, -'**/*.test.ts'.length)) : file === pattern,
  );
}

describe('test isolation', () => {
  it('runs every file that uses nock or vi.mock isolated', () => {
    const patterns = isolatedPatterns();
    expect(patterns.length).toBeGreaterThan(0);
    const self = 'test/unit/test-isolation.test.ts'; // names what it looks for
    const files = ['test/unit', 'test/http', 'test/e2e'].flatMap(testFiles).filter((file) => file !== self);
    const patching = files.filter((file) => PATCHES_GLOBALS.test(readFileSync(path.join(ROOT, file), 'utf8')));
    expect(patching).toContain('test/http/api.test.ts');
    expect(patching.filter((file) => !isolated(file, patterns))).toEqual([]);
  });
});
