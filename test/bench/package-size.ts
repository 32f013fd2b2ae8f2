// Size of the package as published: what `npx plantstore` downloads.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { benchEnv, type Options } from './proc.js';
import { formatKB, type Row } from './table.js';

const TARGET_BYTES = 400 * 1000; // npm's kB, as `npm pack` prints it

interface PackReport {
  size: number;
  unpackedSize: number;
  entryCount: number;
}

/**
 * `npm pack --dry-run --json` of the bench's snapshot of the package (the same
 * build the other figures are of). --ignore-scripts: `prepare` would rebuild.
 */
export function benchPackageSize({ tmp, pkg }: Options): Row[] {
  const figure = 'npm pack tarball size';
  const target = `≤ ${formatKB(TARGET_BYTES)}`;
  const npm = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '--cache', path.join(tmp, 'npm-cache')], {
    cwd: pkg,
    env: benchEnv(tmp),
    encoding: 'utf8',
  });
  if (npm.status !== 0) {
    return [
      {
        figure,
        value: 'error',
        floor: '—',
        target,
        notes: [`npm pack failed (${npm.status}): ${npm.stderr.trim().split('\n').pop() ?? ''}`],
      },
    ];
  }
  const [report] = JSON.parse(npm.stdout) as PackReport[];
  if (!report) return [{ figure, value: 'error', floor: '—', target, notes: ['npm pack printed no report'] }];
  return [
    {
      figure,
      value: formatKB(report.size),
      floor: '—',
      target,
      met: report.size <= TARGET_BYTES,
      notes: [`${report.entryCount} files, ${formatKB(report.unpackedSize)} unpacked; kB = 1000 bytes, as npm prints it`],
    },
  ];
}
