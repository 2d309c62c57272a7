import type { Interval } from '../stats/wilson.js';

/** Small text helpers shared by the text reporters. */

export const fmt = (x: number, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : '—');

export const interval = (r: Interval, digits = 2) => `[${fmt(r.lo, digits)}, ${fmt(r.hi, digits)}]`;

/** Pads columns to their widest cell; ANSI colour codes do not count towards width. */
export function table(rows: string[][], align: ('l' | 'r')[] = []): string {
  // eslint-disable-next-line no-control-regex
  const width = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '').length;
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, width(cell))));
  return rows
    .map((row) =>
      row
        .map((cell, i) => {
          const pad = ' '.repeat((widths[i] ?? 0) - width(cell));
          return align[i] === 'r' ? pad + cell : cell + pad;
        })
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
