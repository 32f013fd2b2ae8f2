// The man page in the build (dist/plantstore.1, what package.json's `man` ships) is the one the
// generator writes for this program and version: the page's content is test/unit/release/man-page.test.ts's.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { manPageFor } from '../../scripts/man-page.js';
import { ROOT } from '../helpers/cli.js';

const MAN_FILE = path.join(ROOT, 'dist', 'plantstore.1');

describe('the built man page', () => {
  it('is what the generator writes for this program and version (not stale)', () => {
    expect(existsSync(MAN_FILE), 'dist/plantstore.1 is missing: npm run build writes it (npm test does)').toBe(true);
    expect(readFileSync(MAN_FILE, 'utf8') === manPageFor(ROOT), 'dist/plantstore.1 is stale: npm run build rewrites it').toBe(true);
  });
});
