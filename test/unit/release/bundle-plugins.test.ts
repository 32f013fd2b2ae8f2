// scripts/bundle-plugins.ts decides what a built plantstore loads at start-up. These hold its two
// parts to the files they act on; test/e2e/delete.e2e.test.ts checks the built result.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { requireWrapper, STAND_INS } from '../../../scripts/bundle-plugins.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

it('a wrapper reads from require() only the names the file imports', () => {
  expect(requireWrapper('node:fs', "import fs from 'node:fs';\nimport { x } from './x.js';")).toBe(
    'const builtin = require("node:fs");\nexport default builtin;',
  );
  expect(requireWrapper('node:fs', "import { closeSync, constants as c, openSync } from 'node:fs';")).toBe(
    [
      'const builtin = require("node:fs");',
      'export default builtin;',
      'export const closeSync = builtin.closeSync;',
      'export const constants = builtin.constants;',
      'export const openSync = builtin.openSync;',
    ].join('\n'),
  );
  expect(requireWrapper('node:dns', "import dns, { type LookupAddress } from 'node:dns';")).toBe(
    'const builtin = require("node:dns");\nexport default builtin;',
  );
});

it("leaves alone an import it cannot read, and the other built-ins' imports", () => {
  expect(requireWrapper('node:fs', "import * as fs from 'node:fs';")).toBeUndefined();
  expect(requireWrapper('node:net', "import type { Socket } from 'node:net';")).toBeUndefined();
  expect(requireWrapper('node:fs', "import path from 'node:path';")).toBeUndefined();
});

/** Every file under `dir` (relative to the root), with / separators. */
function filesUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' }).map(
    (file) => `${ROOT}/${dir}/${file.split(path.sep).join('/')}`,
  );
}

it.each(STAND_INS.map((entry) => [entry.builtin, entry]))('the stand-in for %s matches files that import it', (_name, entry) => {
  const candidates = [...filesUnder('node_modules/undici/lib'), ...filesUnder('node_modules/commander/lib'), ...filesUnder('src')];
  const matched = candidates.filter((file) => entry.importer.test(file));
  expect(matched.length).toBeGreaterThan(0);
  const quoted = new RegExp(`['"]${entry.builtin}['"]`);
  expect(matched.filter((file) => quoted.test(readFileSync(file, 'utf8'))).length).toBeGreaterThan(0);
  expect(readFileSync(path.join(ROOT, entry.standIn), 'utf8')).toContain(`node:${entry.builtin.slice('node:'.length)}`);
});

it('undici still leaves out its Milo parser where esbuildDetection is defined, as scripts/bundle.ts defines it', () => {
  const clientH1 = readFileSync(path.join(ROOT, 'node_modules/undici/lib/dispatcher/client-h1.js'), 'utf8');
  expect(clientH1).toContain("typeof esbuildDetection === 'undefined'\n  ? require('./parser-h1.js')");
  expect(readFileSync(path.join(ROOT, 'scripts/bundle.ts'), 'utf8')).toContain("define: { esbuildDetection: 'true' }");
});
