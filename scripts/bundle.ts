// Builds dist/: src/ and every runtime dependency in one ESM bundle (plus lazily
// loaded chunks for undici and the sandbox), so `npx plantstore` downloads
// one small package and nothing else, and the man page. Run with `npm run build`
// (npm install, npm test and npm pack run it).

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { builtinsByRequire, lazyBuiltins } from './bundle-plugins.js';
import { manPageFor } from './man-page.js';

const HELP_FILE = 'help.txt';
/** package.json's `man` names it, so `npm install -g` puts it where `man plantstore` finds it. */
const MAN_PAGE = 'plantstore.1';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist');

rmSync(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: [path.join(root, 'src/main.ts')],
  outdir,
  bundle: true,
  splitting: true, // undici becomes a chunk loaded only by the commands that need it
  format: 'esm',
  platform: 'node',
  target: 'node22',
  // PLANTSTORE_BUNDLE_READABLE=1 keeps names and lines, for reading a CPU or allocation profile of dist/.
  minify: process.env.PLANTSTORE_BUNDLE_READABLE === undefined,
  legalComments: 'none', // licences are collected whole below
  metafile: true,
  logLevel: 'warning',
  plugins: [lazyBuiltins(root), builtinsByRequire],
  // undici's own switch for a build without its experimental Milo parser (as Node.js bundles it:
  // its package.json build:node), which only UNDICI_USE_MILO=1 would select: 150 kB less to read
  // at each start. HTTP/1.1 answers are parsed by llhttp, as they are without that variable.
  define: { esbuildDetection: 'true' },
  // undici is CommonJS and calls require() for node: built-ins.
  banner: { js: "import{createRequire as __psRequire}from'node:module';const require=__psRequire(import.meta.url);" },
});

writeFileSync(path.join(outdir, 'THIRD_PARTY_LICENSES.md'), licenceNotices(Object.keys(result.metafile.inputs)));

// `plantstore --help` is printed from this file without loading commander (see
// src/main.ts). It is commander's own output, captured from the build just made,
// so it cannot drift; test/e2e/help.e2e.test.ts compares the two.
const help = execFileSync(process.execPath, [path.join(root, 'bin/plantstore.js'), 'help'], {
  encoding: 'utf8',
  env: { PATH: process.env['PATH'] ?? '' },
});
writeFileSync(path.join(outdir, HELP_FILE), help);

// The man page, written from the same program (scripts/man-page.ts); test/unit/release checks it is current.
writeFileSync(path.join(outdir, MAN_PAGE), manPageFor(root));

/** The licence text of every package that ended up in the bundle, as their licences require. */
function licenceNotices(inputs: string[]): string {
  const packages = new Map<string, string>();
  for (const input of inputs) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match?.[1]) packages.set(match[1], input.slice(0, match.index + match[0].length));
  }
  const sections = [...packages.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, dir]) => {
      const full = path.join(root, dir);
      const pkg = JSON.parse(readFileSync(path.join(full, 'package.json'), 'utf8')) as { version: string; license?: string };
      const licenceFiles = readdirSync(full).filter((file) => /^(licen[cs]e|notice|copying)/i.test(file));
      if (licenceFiles.length === 0) throw new Error(`no licence file in ${full}: cannot bundle ${name} without its notice`);
      const texts = licenceFiles
        .filter((file) => existsSync(path.join(full, file)))
        .map((file) => readFileSync(path.join(full, file), 'utf8').trim());
      return `## ${name}@${pkg.version} (${pkg.license ?? 'see below'})\n\n${texts.join('\n\n')}\n`;
    });
  return `# Third-party licences\n\nplantstore bundles these packages into dist/.\n\n${sections.join('\n')}`;
}
