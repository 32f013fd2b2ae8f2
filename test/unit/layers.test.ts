// Every import in src/ points down: a module imports only from its own folder or from a
// layer below it. The order is declared here and in docs/maintainers.md's Layout, and this test
// holds the two together, so a new upward import (or a README that drifted) fails here.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** Top to bottom. A name is a folder of src/, or a module at its top (main.ts, cli.ts...). */
const LAYERS = [
  'main',
  'run-parts',
  'cli',
  'commands',
  'engine',
  'service',
  'context',
  'flags',
  'batch',
  'ui',
  'http',
  'ids',
  'config',
  'completion',
  'sandbox',
  'text',
  'platform',
  'errors',
] as const;

const SRC = path.resolve(import.meta.dirname, '../../src');

function layerOf(relative: string): string {
  const [first = '', ...rest] = relative.split(path.sep);
  return rest.length > 0 ? first : first.replace(/\.(ts|js)$/, '');
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/**
 * The relative specifiers a module's text imports, in every form: `import … from '…'` and
 * `export … from '…'`, a side-effect `import '…'`, and a dynamic `import('…')` (the lazy
 * loading of the journal and the token command uses these), with either quote.
 */
function specifiers(text: string): string[] {
  const forms = [
    /\bfrom\s*(['"])(\.{1,2}\/[^'"]+)\1/g,
    /\bimport\s*(['"])(\.{1,2}\/[^'"]+)\1/g,
    /\bimport\s*\(\s*(['"])(\.{1,2}\/[^'"]+)\1/g,
  ];
  return forms.flatMap((form) => [...text.matchAll(form)].map((match) => match[2] as string));
}

/** Each relative import of src/ as `from -> to`, both relative to src/. */
function imports(): Array<{ from: string; to: string }> {
  return sources(SRC).flatMap((file) =>
    specifiers(readFileSync(file, 'utf8')).map((specifier) => ({
      from: path.relative(SRC, file),
      to: path.relative(SRC, path.resolve(path.dirname(file), specifier)),
    })),
  );
}

/** The imports that point up, or at something no layer names. */
function upwardImports(edges: Array<{ from: string; to: string }>): string[] {
  const rank = new Map<string, number>(LAYERS.map((name, index) => [name, index]));
  return edges
    .filter(({ to }) => !to.startsWith(`..${path.sep}`)) // package.json, read by main for its version
    .filter(({ from, to }) => {
      const [a, b] = [layerOf(from), layerOf(to)];
      if (a === b) return false;
      const [above, below] = [rank.get(a), rank.get(b)];
      return above === undefined || below === undefined || below <= above;
    })
    .map(({ from, to }) => `${from} -> ${to}`);
}

/** Each import cycle once, as `a -> b -> a` (modules without their extension). */
function cycles(edges: Array<{ from: string; to: string }>): string[] {
  const name = (file: string) => file.replace(/\.(ts|js)$/, '');
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(name(from), [...(next.get(name(from)) ?? []), name(to)]);
  const found = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    path.push(node);
    for (const to of next.get(node) ?? []) {
      if (state.get(to) === 'open') {
        const loop = path.slice(path.indexOf(to));
        // The same cycle from any of its modules: named from its smallest.
        const start = loop.indexOf([...loop].sort()[0] as string);
        const turned = [...loop.slice(start), ...loop.slice(0, start)];
        found.add([...turned, turned[0]].join(' -> '));
      } else if (state.get(to) === undefined) visit(to);
    }
    path.pop();
    state.set(node, 'done');
  };
  for (const node of next.keys()) if (state.get(node) === undefined) visit(node);
  return [...found].sort();
}

describe('the import graph of src/', () => {
  it('has every import pointing down the layers', () => {
    expect(upwardImports(imports())).toEqual([]);
  });

  it('would catch an upward import, or a folder no layer names', () => {
    expect(
      upwardImports([
        { from: 'http/transport.ts', to: 'batch/throttle/throttle.js' },
        { from: 'config/file.ts', to: 'ui/io.js' },
        { from: 'newfolder/x.ts', to: 'errors.js' },
        { from: 'commands/delete/run.ts', to: 'http/transport.js' },
      ]),
    ).toEqual(['http/transport.ts -> batch/throttle/throttle.js', 'config/file.ts -> ui/io.js', 'newfolder/x.ts -> errors.js']);
  });

  it.each([
    ['from', "import { x } from '../commands/sandbox/run.js';", '../commands/sandbox/run.js'],
    ['export from', "export { x } from '../commands/sandbox/run.js';", '../commands/sandbox/run.js'],
    ['side effect', "import '../commands/sandbox/run.js';", '../commands/sandbox/run.js'],
    ['dynamic', "const m = await import('../commands/sandbox/run.js');", '../commands/sandbox/run.js'],
    ['dynamic, double quotes, spaced', 'await import( "../commands/sandbox/run.js" )', '../commands/sandbox/run.js'],
  ])('reads an import of the %s form', (_form, line, specifier) => {
    expect(specifiers(`const a = 1;\n${line}\n`)).toEqual([specifier]);
  });

  it('reads neither a package nor a word that only looks like an import', () => {
    expect(specifiers("import { x } from 'commander';\nconst reimport = 1; // from the docs\nimport('node:fs');\n")).toEqual([]);
  });

  it('has no import cycle, type-only imports included (a cycle is a module that cannot be read alone)', () => {
    expect(cycles(imports())).toEqual([]);
  });

  it('would catch a cycle', () => {
    expect(
      cycles([
        { from: 'batch/throttle/controller.ts', to: 'batch/throttle/overdue.js' },
        { from: 'batch/throttle/overdue.ts', to: 'batch/throttle/controller.js' },
      ]),
    ).toEqual(['batch/throttle/controller -> batch/throttle/overdue -> batch/throttle/controller']);
  });

  it("is the order the maintainers' Layout gives (docs/maintainers.md)", () => {
    const readme = readFileSync(path.resolve(SRC, '../docs/maintainers.md'), 'utf8');
    const line = /^Layers, top to bottom: (.+)$/m.exec(readme)?.[1];
    expect(line?.split(/\s*>\s*/).map((name) => name.replace(/`/g, ''))).toEqual([...LAYERS]);
  });
});
