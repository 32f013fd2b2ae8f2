// CHANGELOG.md is where a script's author learns what changed before upgrading: the version
// package.json ships has a dated entry, and there is an Unreleased section, in the shape every
// change adds to, with the contract marker explained.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { releaseDate } from '../../../scripts/man-page.js';
import { ROOT } from '../../helpers/cli.js';

const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const changelog = readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8');
const CONTRACT = '**Contract:**';

/** The headings of a `## [name]` section's `### ` subsections, in order. */
function subsections(text: string, name: string): string[] | undefined {
  const start = text.indexOf(`\n## [${name}]`);
  if (start === -1) return undefined;
  const end = text.indexOf('\n## ', start + 1);
  const body = text.slice(start, end === -1 ? undefined : end);
  return [...body.matchAll(/^### (.+)$/gm)].map((match) => match[1] as string);
}

describe('CHANGELOG.md', () => {
  it(`has a dated entry for package.json's version (${VERSION})`, () => {
    expect(releaseDate(changelog, VERSION), `no "## [${VERSION}] - YYYY-MM-DD" heading in CHANGELOG.md`).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it("names package.json's version as its newest release, so --version, the CHANGELOG and the README speak of one version", () => {
    const newest = /^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$/m.exec(changelog)?.[1];
    expect(newest).toBe(VERSION);
  });

  it('keeps an Unreleased section first, with Added, Changed, Fixed and Security', () => {
    const versions = [...changelog.matchAll(/^## \[([^\]]+)\]/gm)].map((match) => match[1]);
    expect(versions[0]).toBe('Unreleased');
    expect(subsections(changelog, 'Unreleased')).toEqual(['Added', 'Changed', 'Fixed', 'Security']);
  });

  it('lists versions newest first, each with a date', () => {
    const released = [...changelog.matchAll(/^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$/gm)];
    const headings = [...changelog.matchAll(/^## \[(?!Unreleased)/gm)];
    expect(released.length).toBe(headings.length);
    const dates = released.map((match) => match[2] as string);
    expect(dates).toEqual([...dates].sort().reverse());
  });

  it(`explains the ${CONTRACT} marker before the first entry, and uses it`, () => {
    const firstEntry = changelog.indexOf('\n## [');
    expect(changelog.slice(0, firstEntry)).toContain(CONTRACT);
    expect(changelog.slice(firstEntry)).toContain(`- ${CONTRACT}`);
  });
});

describe('releaseDate', () => {
  it.each([
    ['## [1.0.0] - 2026-11-24', '1.0.0', '2026-11-24'],
    ['## [1.0.0] - 2026-11-24', '1.0.1', undefined],
    ['## [1.0.0]', '1.0.0', undefined],
    ['## [1x0x0] - 2026-11-24', '1.0.0', undefined],
  ])('%s, asked for %s: %s', (text, version, date) => {
    expect(releaseDate(`# Changelog\n\n${text}\n`, version)).toBe(date);
  });
});
