import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readJsonLines } from '../src/agents/json-lines.js';
import { fileLines } from '../src/util/file-lines.js';
import { cleanup } from './helpers.js';

const root = mkdtempSync(join(tmpdir(), 'sp-lines-'));
afterAll(() => cleanup(root));
let files = 0;
const file = (content: string | Buffer) => {
  const p = join(root, `${files++}.jsonl`);
  writeFileSync(p, content);
  return p;
};

describe('fileLines: a file read a chunk at a time, line by line', () => {
  const mb = 1 << 20;
  it.each<[string, string | Buffer, string[]]>([
    ['empty', '', []],
    ['one line without a newline', 'a', ['a']],
    ['lines ending in a newline', 'a\nb\n', ['a', 'b']],
    ['blank lines kept', 'a\n\nb', ['a', '', 'b']],
    ['a line across the 1 MiB chunk boundary', `${'x'.repeat(mb - 2)}\n${'y'.repeat(10)}\nz`, ['x'.repeat(mb - 2), 'y'.repeat(10), 'z']],
    [
      'a multi-byte character split by the chunk boundary',
      Buffer.concat([Buffer.from('x'.repeat(mb - 1)), Buffer.from('é\nok')]),
      [`${'x'.repeat(mb - 1)}é`, 'ok'],
    ],
  ])('%s', (_, content, lines) => {
    expect([...fileLines(file(content))]).toEqual(lines);
  });

  it('cuts a line longer than the cap (it then reads as a malformed line), and goes on with the next', () => {
    const long = `{"pad":"${'x'.repeat(3 * mb)}"}`;
    const lines = [...fileLines(file(`${long}\n{"ok":1}\n`), mb)];
    expect(lines.map((l) => l.length)).toEqual([mb, 8]);
    const seen: unknown[] = [];
    expect(readJsonLines(lines, (e) => seen.push(e))).toEqual([{ line: 1, message: 'line is not valid JSON' }]);
    expect(seen).toEqual([{ ok: 1 }]);
  });
});

describe('readJsonLines reads lines as they come, as it read one string', () => {
  it.each([
    ['a broken last line is a cut-off write', '{"a":1}\n{"b":', [{ line: 2, message: 'truncated final line (process ended mid-write)' }]],
    ['a broken line before others is not JSON', '{"a":1}\nnope\n{"b":2}\n', [{ line: 2, message: 'line is not valid JSON' }]],
    [
      'blank lines after a broken one still leave it last',
      '{"a":1}\n{"b":\n\n  \n',
      [{ line: 2, message: 'truncated final line (process ended mid-write)' }],
    ],
    ['JSON that is no object', '[1]\n{"a":1}', [{ line: 1, message: 'line is JSON but not an object' }]],
  ])('%s', (_, text, warnings) => {
    expect(readJsonLines(text, () => {})).toEqual(warnings);
    expect(readJsonLines(fileLines(file(text)), () => {})).toEqual(warnings);
  });
});
