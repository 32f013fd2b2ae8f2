// The floor for a delete: the least a Node program must do to send the same
// DELETE with the same HTTP client. Bundled at bench time with the project's
// esbuild and undici, with the same esbuild settings as scripts/bundle.ts
// (one minified ESM file, createRequire banner for undici's require() calls).

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { ROOT } from './proc.js';

const SOURCE = `
import { request } from 'undici';
const [url, token] = process.argv.slice(2);
const res = await request(url, { method: 'DELETE', headers: { authorization: 'Bearer ' + token } });
await res.body.dump();
process.exit(res.statusCode === 204 ? 0 : 1);
`;

/** Writes and bundles the floor script into `dir`; returns the bundle's path. Args: <url> <token>. */
export function buildDeleteFloor(dir: string): Promise<string> {
  return bundleFloorScript(dir, 'floor-delete', SOURCE);
}

/** Bundles a floor script the way dist/ is bundled (minified ESM, undici inlined), so the two compare fairly. */
export async function bundleFloorScript(dir: string, name: string, source: string): Promise<string> {
  const entry = path.join(dir, `${name}.src.mjs`);
  const outfile = path.join(dir, `${name}.mjs`);
  writeFileSync(entry, source);
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    absWorkingDir: ROOT,
    nodePaths: [path.join(ROOT, 'node_modules')], // the entry lives in a temp dir; undici comes from the project
    banner: { js: "import{createRequire as __r}from'node:module';const require=__r(import.meta.url);" },
  });
  return outfile;
}
