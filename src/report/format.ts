import Table from 'cli-table3';
import stringWidth from 'string-width';
import type { Interval } from '../run/schema.js';

/** Small text helpers shared by the text reporters. */

export const fmt = (x: number, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : '—');

export const interval = (r: Interval, digits = 2) => `[${fmt(r.lo, digits)}, ${fmt(r.hi, digits)}]`;

/** `.77` for 0.77: keeps dense cells short. */
export const short = (x: number) => fmt(x).replace(/^(-?)0\./, '$1.');

export { plural } from '../util/text.js';

/** Display columns of the widest line: a wide character takes two, ANSI colour codes none. */
export const visibleWidth = (s: string) => Math.max(0, ...s.split('\n').map((line) => stringWidth(line)));

/** Every line of the terminal report fits this many columns. */
export const REPORT_WIDTH = 100;

/** Money as every report shows it: a trial costs cents (three decimals), a run dollars; unknown is a dash. */
// Digits grouped by hand: toLocaleString and Intl would load the ICU data at every start of the CLI.
/** A whole number with its thousands grouped: 12,340. */
export const grouped = (x: number): string => String(Math.round(x)).replace(/\B(?=(\d{3})+$)/g, ',');

export const usd = (x: number | undefined): string => (x === undefined ? '—' : `$${x.toFixed(x < 1 ? 3 : 2)}`);

const GAP = '  ';
const NO_BORDERS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: GAP,
};

/**
 * How a column may narrow to fit, always wrapping at whole words: `word` (prose, which narrows first), `id` (ids,
 * paths, names: they narrow once the prose columns are down to a readable measure), or not at all.
 */
export type Wrap = 'word' | 'id' | undefined;

export interface TableOptions {
  /** The table narrows its wrappable columns (see Wrap), widest first, until every line fits (default: no limit). */
  maxWidth?: number;
  wrap?: Wrap[];
}

const ANSI = /\u001b\[[0-9;]*m/y;
const LEADING_ANSI = /^(?:\u001b\[[0-9;]*m)+/;

/** A stretch of text that never breaks inside, and how well a break after it reads: 2 a space, 1 a `/`, 0 else. */
interface Piece {
  text: string;
  rank: number;
}

const isAlnum = (ch: string) => /[\p{L}\p{N}]/u.test(ch);

/**
 * A line cut into the pieces it may wrap between, colour codes kept (zero columns wide): after a run of spaces, and
 * inside ids and paths after a `-`, `_` or `/` between letters or digits, or a `.` before a letter (never inside a
 * number such as `0.95` or `-0.03`).
 */
function pieces(line: string): Piece[] {
  const out: Piece[] = [];
  let text = '';
  let prev = '';
  for (let i = 0; i < line.length;) {
    ANSI.lastIndex = i;
    const code = ANSI.exec(line);
    if (code) {
      text += code[0];
      i += code[0].length;
      continue;
    }
    const ch = String.fromCodePoint(line.codePointAt(i)!);
    i += ch.length;
    const next = line.slice(i).replace(LEADING_ANSI, '')[0] ?? '';
    text += ch;
    const breaks =
      (ch === ' ' && next !== ' ') ||
      (/[-_/]/.test(ch) && isAlnum(prev) && isAlnum(next)) ||
      (ch === '.' && isAlnum(prev) && /\p{L}/u.test(next));
    if (breaks && next) {
      out.push({ text, rank: ch === ' ' ? 2 : ch === '/' ? 1 : 0 });
      text = '';
    }
    prev = ch;
  }
  return text ? [...out, { text, rank: 2 }] : out;
}

const indentOf = (line: string) => /^ */.exec(line)![0];
const trimEnd = (line: string) => line.replace(/ +((?:\u001b\[[0-9;]*m)*)$/, '$1');
const widthOf = (ps: readonly Piece[]) => visibleWidth(trimEnd(ps.map((p) => p.text).join('')));

/** A piece wider than the line, cut (the last resort: a single word longer than the whole line). */
function cut(piece: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const ch of piece.split(/(\u001b\[[0-9;]*m)/).flatMap((part, i) => (i % 2 ? [part] : [...part]))) {
    if (line && visibleWidth(line + ch) > width) {
      out.push(line);
      line = '';
    }
    line += ch;
  }
  return [...out, line];
}

/**
 * Text wrapped to `width` display columns at whole words, each line's trailing spaces dropped and a wrapped line's
 * indentation kept on its continuation lines. A line breaks at its last space; without one, at its last `/` that
 * keeps it a third full; else at its last `-`, `_` or `.`. So a hyphenated name moves to the next line whole where
 * it can, and an id such as `run-a/run-a-codex` wraps as `run-a/` + `run-a-codex` rather than inside either name.
 */
export function wrapText(text: string, width: number): string[] {
  return text.split('\n').flatMap((source) => {
    const indent = indentOf(source);
    const room = Math.max(1, width - indent.length);
    const lines: string[] = [];
    let current: Piece[] = [];
    const emit = (ps: readonly Piece[]) => lines.push(trimEnd(ps.map((p) => p.text).join('')));
    for (const piece of pieces(source.slice(indent.length))) {
      if (widthOf([...current, piece]) <= room) {
        current.push(piece);
        continue;
      }
      // The last space; else the last `/` that keeps the line a third full; else the last break of any kind.
      const space = current.findLastIndex((p) => p.rank === 2);
      const slash = current.findLastIndex((p, i) => p.rank === 1 && widthOf(current.slice(0, i + 1)) * 3 >= room);
      const at = (space >= 0 ? space : slash >= 0 ? slash : current.length - 1) + 1;
      if (at > 0) emit(current.slice(0, at));
      current = [...current.slice(at), piece];
      if (widthOf(current) <= room) continue;
      // What was carried over and the piece do not fit together: the carried part gets its own line.
      const last = current.pop()!;
      if (current.length) emit(current);
      current = [last];
      if (widthOf(current) <= room) continue;
      // A single word wider than the line: the last resort is to cut it.
      const parts = cut(trimEnd(last.text), room);
      lines.push(...parts.slice(0, -1));
      current = [{ text: parts.at(-1)! + (last.text.endsWith(' ') ? ' ' : ''), rank: last.rank }];
    }
    emit(current);
    return lines.map((line) => indent + line);
  });
}

/** A prose column keeps this many columns while an id column can still narrow instead. */
const PROSE_MIN = 20;

/** The widest piece of a cell, after its line's indentation: how narrow a column wrapped at whole words can get. */
const longestPiece = (cell: string) =>
  Math.max(1, ...cell.split('\n').map((line) => indentOf(line).length + Math.max(0, ...pieces(line.trimStart()).map((p) => widthOf([p])))));

/** Borderless columns, two spaces apart (cli-table3: ANSI-aware display widths); wrappable columns wrap at whole words. */
export function table(rows: string[][], align: ('l' | 'r')[] = [], opts: TableOptions = {}): string {
  if (rows.length === 0) return '';
  const columns = Math.max(...rows.map((r) => r.length));
  const widths = Array.from({ length: columns }, (_, i) => Math.max(1, ...rows.map((r) => visibleWidth(r[i] ?? ''))));
  const floor = widths.map((w, i) => (opts.wrap?.[i] ? Math.min(w, Math.max(...rows.map((r) => longestPiece(r[i] ?? '')))) : w));
  const natural = [...widths];
  const total = () => widths.reduce((a, b) => a + b, 0) + GAP.length * (columns - 1);
  // Prose narrows first, down to a readable measure; then ids; then prose as far as its words allow.
  const readable = floor.map((f, i) => Math.max(f, Math.min(natural[i]!, PROSE_MIN)));
  const widestOf = (kind: Wrap, limit: number[]) => {
    let widest = -1;
    widths.forEach((w, i) => {
      if (opts.wrap?.[i] === kind && w > limit[i]! && (widest < 0 || w > widths[widest]!)) widest = i;
    });
    return widest;
  };
  while (opts.maxWidth !== undefined && total() > opts.maxWidth) {
    const widest = [widestOf('word', readable), widestOf('id', floor), widestOf('word', floor)].find((i) => i >= 0);
    if (widest === undefined) break;
    widths[widest]!--;
  }
  const t = new Table({
    chars: NO_BORDERS,
    style: { 'padding-left': 0, 'padding-right': 0, head: [], border: [] },
    colWidths: widths,
    colAligns: Array.from({ length: columns }, (_, i) => (align[i] === 'r' ? 'right' : 'left')),
  });
  for (const row of rows) {
    const cell = (i: number) => row[i] ?? '';
    t.push(Array.from({ length: columns }, (_, i) => (widths[i]! < natural[i]! ? wrapText(cell(i), widths[i]!).join('\n') : cell(i))));
  }
  return t
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n');
}

/** Prose wrapped at whole words to fit `width`, every line after `indent`. */
export function paragraph(text: string, indent = '', width = REPORT_WIDTH): string {
  return wrapText(text, width - visibleWidth(indent))
    .map((line) => indent + line)
    .join('\n');
}
