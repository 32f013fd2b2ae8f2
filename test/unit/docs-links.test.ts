// Links between the README and docs/ go straight to their section: every relative link names a
// file that exists and, after `#`, a heading (as GitHub makes its anchor) or an `<a id>` there.
// A section moved or renamed without its links fails here.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const PAGES = ['README.md', 'SECURITY.md', 'CHANGELOG.md', ...readdirSync(path.join(ROOT, 'docs')).map((name) => `docs/${name}`)].filter(
  (page) => page.endsWith('.md'),
);

/** GitHub's anchor for a heading: lower case, punctuation dropped (not - or _), spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsIn(page: string): Set<string> {
  const text = readFileSync(path.join(ROOT, page), 'utf8').replace(/```[\s\S]*?```/g, '');
  const headings = [...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1] as string));
  const ids = [...text.matchAll(/<a id="([^"]+)"><\/a>/g)].map((match) => match[1] as string);
  return new Set([...headings, ...ids]);
}

describe('links between the pages', () => {
  it('anchors are made as GitHub makes them', () => {
    expect(anchorOf('Resumable batches (`--journal`)')).toBe('resumable-batches---journal');
    expect(anchorOf('`plantstore delete <id...>` / `plantstore delete --stdin`')).toBe('plantstore-delete-id--plantstore-delete---stdin');
  });

  it.each(PAGES)('%s: every relative link leads to a file and a section that exist', (page) => {
    const text = readFileSync(path.join(ROOT, page), 'utf8').replace(/```[\s\S]*?```/g, '');
    const broken: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (target === undefined || /^[a-z]+:/.test(target)) continue;
      const [file, anchor] = target.split('#') as [string, string | undefined];
      const linked = file === '' ? page : path.normalize(path.join(path.dirname(page), file));
      if (!existsSync(path.join(ROOT, linked))) broken.push(`${target}: no file ${linked}`);
      else if (anchor !== undefined && linked.endsWith('.md') && !anchorsIn(linked).has(anchor))
        broken.push(`${target}: no section #${anchor} in ${linked}`);
    }
    expect(broken).toEqual([]);
  });
});
