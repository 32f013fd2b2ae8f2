// The esbuild plugins of scripts/bundle.ts that keep a run from loading what it does not use.
// Each built-in left out is one Node need not compile at start-up: test/e2e/delete.e2e.test.ts
// lists those a plain http:// delete must not load.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'esbuild';

/**
 * Built-ins that some files import for code a plain run never reaches, each given a stand-in
 * (its own comment says what it stands for and why) that loads the real one on first use.
 * `importer` is matched against the importing file's path, with / separators.
 */
export const STAND_INS = [
  // undici's HTTP/2 client: node:http2 and node:tls (about 11 ms) only once an h2 session opens.
  { builtin: 'node:http2', importer: /\/node_modules\/undici\/lib\/dispatcher\/client-h2\.js$/, standIn: 'src/http/lazy-http2.ts' },
  // IncomingMessage and maxHeaderSize, for a client that never makes an IncomingMessage.
  { builtin: 'node:http', importer: /\/node_modules\/undici\/lib\/(core\/util|dispatcher\/client)\.js$/, standIn: 'src/http/lazy-http.ts' },
  // commander's executable subcommands, which plantstore never declares, and a token command's
  // process, which only a run with PLANTSTORE_TOKEN_COMMAND (or a profile's) starts.
  {
    builtin: 'node:child_process',
    importer: /\/(node_modules\/commander\/lib\/command\.js|src\/config\/token-command\.ts)$/,
    standIn: 'src/platform/lazy-child-process.ts',
  },
  // The journal's salts and scrypt, part of every delete and used only with a journal.
  { builtin: 'node:crypto', importer: /\/src\/batch\/journal\/[^/]+\.ts$/, standIn: 'src/platform/lazy-crypto.ts' },
  // A question at the terminal (/dev/tty), which most runs never ask.
  { builtin: 'node:tty', importer: /\/src\/ui\/ask-terminal\.ts$/, standIn: 'src/platform/lazy-tty.ts' },
  // lookup() for a base URL naming localhost; an address needs none.
  { builtin: 'node:dns', importer: /\/src\/http\/loopback-lookup\.ts$/, standIn: 'src/http/lazy-dns.ts' },
  // undici's checks of its own state, which hold.
  { builtin: 'node:assert', importer: /\/node_modules\/undici\/lib\/.+\.js$/, standIn: 'src/http/lazy-assert.cts' },
] as const;

export function lazyBuiltins(root: string): Plugin {
  return {
    name: 'lazy-builtins',
    setup(bundler) {
      bundler.onResolve({ filter: /^node:/ }, (args) => {
        const importer = args.importer.split(path.sep).join('/');
        const match = STAND_INS.find((entry) => entry.builtin === args.path && entry.importer.test(importer));
        return match === undefined ? undefined : { path: path.join(root, match.standIn) };
      });
    },
  };
}

/**
 * Built-ins that ES modules (ours, commander, chalk) import are loaded with require(), as undici's
 * are. An `import` of a built-in has Node build its ES module facade, which reads every export once,
 * and so runs every lazy getter: node:fs's `Dir` loads fs/dir and streams, node:util's loads
 * parse_args and worker_threads, node:crypto's webcrypto, node:v8's heap_utils. Each importing file
 * gets a small ES module that reads from require()'s object only the names that file imports, so it
 * lands in that file's chunk (a wrapper shared by several chunks would be a file of its own). A file
 * whose import of a built-in this cannot read (`import * as`) keeps Node's facade.
 */
export const builtinsByRequire: Plugin = {
  name: 'builtins-by-require',
  setup(bundler) {
    bundler.onResolve({ filter: /^node:/ }, (args) => {
      if (args.kind !== 'import-statement') return undefined;
      const contents = requireWrapper(args.path, readFileSync(args.importer, 'utf8'));
      return contents === undefined
        ? undefined
        : { path: args.path, namespace: 'builtin', suffix: `?${args.importer}`, pluginData: contents };
    });
    bundler.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({ contents: args.pluginData as string, loader: 'js' }));
  },
};

/** The module standing in for `builtin` in a file whose source is `importer`, or undefined to leave its import alone. */
export function requireWrapper(builtin: string, importer: string): string | undefined {
  const names = new Set<string>();
  let found = false;
  for (const [, clause = '', from] of importer.matchAll(/^import\s+(?!type\s)([^;'"]*?)\s*from\s*['"]([^'"]+)['"]/gm)) {
    if (from !== builtin) continue;
    if (clause.includes('*')) return undefined;
    found = true;
    for (const part of /\{([^}]*)\}/.exec(clause)?.[1]?.split(',') ?? []) {
      const name =
        part
          .trim()
          .split(/\s+as\s+/)[0]
          ?.trim() ?? '';
      if (/^[A-Za-z_$][\w$]*$/.test(name)) names.add(name);
      else if (name !== '' && !name.startsWith('type ')) return undefined;
    }
  }
  if (!found) return undefined;
  const named = [...names].map((name) => `export const ${name} = builtin.${name};`);
  return [`const builtin = require(${JSON.stringify(builtin)});`, 'export default builtin;', ...named].join('\n');
}
