// From a clone (issue 29 item 6): CI runs the suite on the floor of `engines` exactly, and the
// README explains each EBADENGINE warning `npm install` prints on the machine's Node 20.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as { engines: { node: string } };

describe('.ci/run', () => {
  const ci = read('.ci/run');

  it('runs the suite on the floor of engines exactly, and on the newest 22 and 26', () => {
    const floorLine = /^floor=\$\((.*)\)$/m.exec(ci)?.[1];
    expect(floorLine, 'a floor= line').toBeDefined();
    const floor = execFileSync('bash', ['-c', floorLine as string], { cwd: ROOT, encoding: 'utf8' }).trim();
    // engines ">=22.19" is Node 22.19.0, not whatever 22 is newest.
    expect(`>=${floor}`).toBe(`${pkg.engines.node}.0`);
    expect(ci).toMatch(/^for version in "\$floor" 22 26; do$/m);
    expect(ci).toContain('"node@$version"');
  });
});

/** Whether Node `version` satisfies an engines range of the forms the lockfile holds (>=, ^, ||). */
function satisfies(version: string, range: string): boolean {
  const parse = (text: string): number[] => text.split('.').map(Number);
  const [major = 0, minor = 0, patch = 0] = parse(version);
  const atLeast = (bound: number[]): boolean => {
    const [a = 0, b = 0, c = 0] = bound;
    return major !== a ? major > a : minor !== b ? minor > b : patch >= c;
  };
  return range.split('||').some((alternative) => {
    const term = alternative.trim();
    const match = /^(>=|\^)\s*v?(\d+(?:\.\d+){0,2})(?:\.x)?$/.exec(term);
    if (!match) throw new Error(`an engines range this test cannot read: ${term}`);
    const bound = parse(match[2] as string);
    return match[1] === '>=' ? atLeast(bound) : major === bound[0] && atLeast(bound);
  });
}

describe('the README on EBADENGINE', () => {
  it('names every package whose engines exclude Node 20, the Node it says a clone may start from', () => {
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { engines?: { node?: string }; optional?: boolean }> };
    const warned = Object.entries(lock.packages)
      .filter(
        ([name, entry]) => name !== '' && !entry.optional && entry.engines?.node !== undefined && !satisfies('20.20.2', entry.engines.node),
      )
      .map(([name]) => name.replace(/^.*node_modules\//, ''));
    expect(warned.length).toBeGreaterThan(0);
    const readme = read('README.md');
    const install = readme.slice(readme.indexOf('### From a clone'), readme.indexOf('## Quick start'));
    expect(install).toContain('EBADENGINE');
    expect(install).toContain('Node 20');
    for (const name of warned) expect(install, name).toContain(`\`${name}\``);
  });

  it('reads the ranges it meets', () => {
    expect(satisfies('20.20.2', '^20.19.0 || >=22.12.0')).toBe(true);
    expect(satisfies('20.20.2', '^22.12.0 || ^24.0.0 || >=26.0.0')).toBe(false);
    expect(satisfies('22.19.0', '>=22.19.0')).toBe(true);
    expect(satisfies('22.18.9', '>=22.19')).toBe(false);
  });
});
