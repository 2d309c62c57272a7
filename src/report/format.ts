import Table from 'cli-table3';
import { stripVTControlCharacters } from 'node:util';
import type { Interval } from '../run/schema.js';

/** Small text helpers shared by the text reporters. */

export const fmt = (x: number, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : '—');

export const interval = (r: Interval, digits = 2) => `[${fmt(r.lo, digits)}, ${fmt(r.hi, digits)}]`;

/** `.77` for 0.77: keeps dense cells short. */
export const short = (x: number) => fmt(x).replace(/^(-?)0\./, '$1.');

export { plural } from '../util/text.js';

/** Columns of the widest line, ANSI colour codes excluded. */
export const visibleWidth = (s: string) => Math.max(0, ...s.split('\n').map((line) => stripVTControlCharacters(line).length));

/** Every line of the terminal report fits this many columns. */
export const REPORT_WIDTH = 100;

/** Money as every report shows it: a trial costs cents (three decimals), a run dollars; unknown is a dash. */
export const usd = (x: number | undefined): string => (x === undefined ? '—' : `$${x.toFixed(x < 1 ? 3 : 2)}`);

const GAP = '  ';
const NO_BORDERS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '',
  middle: GAP,
};

/** How a column may narrow to fit: wrapped at spaces (`word`), broken anywhere (`hard`, for ids and paths), or not. */
export type Wrap = 'word' | 'hard' | undefined;

export interface TableOptions {
  /** The table narrows its wrappable columns, widest first, until every line fits (default: no limit). */
  maxWidth?: number;
  wrap?: Wrap[];
}

const longestWord = (cell: string) => Math.max(1, ...stripVTControlCharacters(cell).split(/\s+/).map((w) => w.length));
// A hard-wrapped column keeps at least this many characters per line, so an id stays readable.
const HARD_MIN = 12;

/** Borderless columns, two spaces apart (cli-table3: ANSI-aware widths, wrapping inside cells). */
export function table(rows: string[][], align: ('l' | 'r')[] = [], opts: TableOptions = {}): string {
  if (rows.length === 0) return '';
  const columns = Math.max(...rows.map((r) => r.length));
  const widths = Array.from({ length: columns }, (_, i) => Math.max(1, ...rows.map((r) => visibleWidth(r[i] ?? ''))));
  const floor = widths.map((w, i) => {
    const wrap = opts.wrap?.[i];
    if (wrap === 'word') return Math.min(w, Math.max(...rows.map((r) => longestWord(r[i] ?? ''))));
    return wrap === 'hard' ? Math.min(w, HARD_MIN) : w;
  });
  const natural = [...widths];
  const total = () => widths.reduce((a, b) => a + b, 0) + GAP.length * (columns - 1);
  while (opts.maxWidth !== undefined && total() > opts.maxWidth) {
    let widest = -1;
    widths.forEach((w, i) => {
      if (w > floor[i]! && (widest < 0 || w > widths[widest]!)) widest = i;
    });
    if (widest < 0) break;
    widths[widest]!--;
  }
  const t = new Table({
    chars: NO_BORDERS,
    style: { 'padding-left': 0, 'padding-right': 0, head: [], border: [] },
    colWidths: widths,
    colAligns: Array.from({ length: columns }, (_, i) => (align[i] === 'r' ? 'right' : 'left')),
  });
  for (const row of rows) {
    t.push(
      Array.from({ length: columns }, (_, i) => {
        const content = row[i] ?? '';
        return widths[i]! < natural[i]! ? { content, wordWrap: true, wrapOnWordBoundary: opts.wrap?.[i] === 'word' } : content;
      }),
    );
  }
  return t
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n');
}

/** Prose wrapped at spaces to fit `width`, every line after `indent`. */
export function paragraph(text: string, indent = '', width = REPORT_WIDTH): string {
  const room = width - indent.length;
  // Wrap at spaces; a word longer than the line (a long case id or path) is broken instead.
  const wrap: Wrap = longestWord(text) > room ? 'hard' : 'word';
  return table([[text]], [], { maxWidth: room, wrap: [wrap] })
    .split('\n')
    .map((line) => indent + line)
    .join('\n');
}
