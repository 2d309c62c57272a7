import { describe, expect, it } from 'vitest';
import { lineReader } from '../src/agents/spawn.js';
import { MAX_LINE_CHARS } from '../src/util/file-lines.js';

/** The lines a reader gives for `chunks`, in order. */
function linesOf(chunks: Buffer[]): string[] {
  const lines: string[] = [];
  const read = lineReader((line) => lines.push(line));
  for (const chunk of chunks) read(chunk);
  return lines;
}

/** `text` as UTF-8 cut into chunks of `size` bytes, so that a character may straddle two of them. */
const chunked = (text: string, size: number) => {
  const bytes = Buffer.from(text, 'utf8');
  return Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
};

describe("lineReader: a CLI's output, chunk by chunk, as whole lines", () => {
  const text = '{"a":"é"}\n\n{"b":"ünïcödé"}\nlast\n';
  it.each([1, 2, 3, 5, 64])('in chunks of %i bytes: every line whole, an empty one too, characters intact', (size) => {
    expect(linesOf(chunked(text, size))).toEqual(['{"a":"é"}', '', '{"b":"ünïcödé"}', 'last']);
  });

  it('a line without its newline yet is held back, never given in part', () => {
    expect(linesOf([Buffer.from('one\ntw'), Buffer.from('o')])).toEqual(['one']);
  });

  it('a line longer than MAX_LINE_CHARS is cut there, and the next line is whole', () => {
    const long = 'x'.repeat(MAX_LINE_CHARS + 10);
    const lines = linesOf([...chunked(long, 1 << 20), Buffer.from('\nnext\n')]);
    expect(lines.map((l) => l.length)).toEqual([MAX_LINE_CHARS, 4]);
    expect(lines[1]).toBe('next');
  });
});
