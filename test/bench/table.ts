// The one table every benchmark in test/bench/ prints its rows into.
// Informational only: a row over its target is marked, never turned into a failure.

export interface Row {
  /** What was measured, e.g. "plantstore --version". */
  figure: string;
  /** The measured value (usually a median), formatted with its unit. */
  value: string;
  /** The floor measured beside it in the same run, formatted; '—' when the figure has none. */
  floor: string;
  /** value / floor; undefined when the figure has no floor. */
  ratio?: number | undefined;
  /** The target as a person reads it, e.g. "≤ 1.50×" or "< 80 MB". */
  target: string;
  /** Whether the target is met; undefined when it could not be measured. */
  met?: boolean | undefined;
  /** Short remarks printed under the table, e.g. what the floor was or what went wrong. */
  notes?: string[];
}

/** A row for a figure that could not be measured: the bench reports it and goes on. */
export function failedRow(figure: string, target: string, error: unknown): Row {
  return { figure, value: 'error', floor: '—', target, notes: [`not measured: ${(error as Error).message}`] };
}

export function formatMs(ms: number): string {
  return `${ms.toFixed(1)} ms`;
}

export function formatMiB(kib: number): string {
  return `${(kib / 1024).toFixed(1)} MB`;
}

export function formatKB(bytes: number): string {
  return `${(bytes / 1000).toFixed(1)} kB`;
}

export function formatRatio(ratio: number | undefined): string {
  return ratio === undefined || !Number.isFinite(ratio) ? '—' : `${ratio.toFixed(2)}×`;
}

/** Renders rows as an aligned plain-text table, notes numbered below it. */
export function renderTable(title: string, rows: readonly Row[]): string {
  const header = ['#', 'figure', 'median', 'floor', 'ratio', 'target', 'met'];
  const notes: string[] = [];
  const cells = rows.map((row, index) => {
    const marks = (row.notes ?? []).map((note) => {
      notes.push(note);
      return `[${notes.length}]`;
    });
    const figure = marks.length ? `${row.figure} ${marks.join('')}` : row.figure;
    const met = row.met === undefined ? 'n/a' : row.met ? 'yes' : 'OVER';
    return [String(index + 1), figure, row.value, row.floor, formatRatio(row.ratio), row.target, met];
  });
  const widths = header.map((h, col) => Math.max(h.length, ...cells.map((c) => (c[col] ?? '').length)));
  const numeric = new Set([2, 3, 4]);
  const line = (cols: string[]): string =>
    cols
      .map((c, col) => (numeric.has(col) ? c.padStart(widths[col] ?? 0) : c.padEnd(widths[col] ?? 0)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [
    title,
    '',
    line(header),
    rule,
    ...cells.map(line),
    ...(notes.length ? ['', ...notes.map((note, i) => `[${i + 1}] ${note}`)] : []),
  ].join('\n');
}
