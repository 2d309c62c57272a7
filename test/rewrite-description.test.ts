import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { writeResult } from '../src/runner/tune-driver.js';
import type { TuneRecord } from '../src/run/tune-schema.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { InputError } from '../src/util/input-error.js';
import { descriptionProblems, rewriteDescription, rewriteDescriptionBytes } from '../src/load/rewrite-description.js';
import { loadSkills } from '../src/load/skills.js';
import { cleanup } from './helpers.js';

const BOM = '\uFEFF';
const FILE = 'skills/alpha/SKILL.md';

/** The old value as written (`{n}`: the line ending), and what follows it on its line. */
const STYLES: { style: string; value: string; after?: string; old: string }[] = [
  { style: 'plain', value: 'Old plain description.', old: 'Old plain description.' },
  { style: 'plain, then a comment', value: 'Old plain', after: ' # keep this comment', old: 'Old plain' },
  { style: 'plain over two lines', value: 'Old plain{n}  continued here.', old: 'Old plain continued here.' },
  { style: 'single-quoted', value: "'It''s old: quoted'", old: "It's old: quoted" },
  { style: 'double-quoted over two lines', value: '"Old{n}  \\"quoted\\" one"', after: ' # note', old: 'Old "quoted" one' },
  { style: 'folded >', value: '>{n}  Folded old{n}  text.', old: 'Folded old text.' },
  { style: 'literal |-', value: '|-{n}  line one{n}  line two', old: 'line one\nline two' },
  { style: 'literal |+ with trailing blank lines', value: '|+{n}  kept{n}{n}', old: 'kept' },
  { style: 'folded >- with a header comment', value: '>- # folded{n}  Folded{n}{n}  paragraphs', old: 'Folded\nparagraphs' },
];

const NEW = [
  'Handles alpha records, lists them and closes them',
  'Handles alpha records: create, list and close them. Use when the user mentions alpha.',
  'yes',
  'Line one\nline two with "quotes", a \\ and a\ttab',
  '#not a comment, - not a list',
  'Gère les fiches — «alpha» 😀 and 2024-01-01',
  'null',
  '- starts like a list item',
  'ends with a colon:',
];

/** A SKILL.md around the value: other keys and comments before and after it, and a body. */
function skillText(value: string, after: string, eol: string, bom: string) {
  const prefix = `${bom}---${eol}name: alpha${eol}# a comment before${eol}description: `;
  const suffix = `${after}${eol}license: MIT # trailing${eol}metadata:${eol}  a: b${eol}---${eol}# alpha${eol}${eol}Body: text${eol}`;
  return { prefix, suffix, text: prefix + value.replaceAll('{n}', eol) + suffix };
}

const dirs: string[] = [];
afterAll(() => cleanup(...dirs));

function readBack(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'sp-rewrite-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'alpha'));
  writeFileSync(join(dir, 'alpha', 'SKILL.md'), text);
  return loadSkills(dir)[0]!.description;
}

const rows = STYLES.flatMap((s) =>
  ['\n', '\r\n'].flatMap((eol) =>
    ['', BOM].map((bom) => ({ ...s, eol, bom, name: `${s.style}, ${eol === '\n' ? 'LF' : 'CRLF'}${bom ? ', BOM' : ''}` })),
  ),
);

describe('rewriteDescription: only the description value changes', () => {
  it.each(rows)('$name', ({ value, after, old, eol, bom }) => {
    const { prefix, suffix, text } = skillText(value, after ?? '', eol, bom);
    expect(readBack(text)).toBe(old);
    for (const description of NEW) {
      const out = rewriteDescription(text, FILE, description);
      expect(readBack(out)).toBe(description);
      expect(out.startsWith(prefix)).toBe(true);
      expect(out.endsWith(suffix)).toBe(true);
      // Between them: the new value on one line, then at most the block scalar's own line breaks.
      const middle = out.slice(prefix.length, out.length - suffix.length);
      expect(middle).toMatch(/^[^\r\n]+[\r\n]*$/);
      expect(parse(`k: ${middle.trimEnd()}`)).toEqual({ k: description });
      if (eol === '\n') expect(out).not.toContain('\r');
      else expect(out.replaceAll('\r\n', '')).not.toContain('\n');
    }
  });

  it('writes plain when that reads back, else double-quoted', () => {
    const { text } = skillText('old', '', '\n', '');
    const line = (d: string) => rewriteDescription(text, FILE, d).split('\n')[3];
    expect(line('Handles alpha records, lists them')).toBe('description: Handles alpha records, lists them');
    expect(line('yes')).toBe('description: "yes"');
    expect(line('a: b')).toBe('description: "a: b"');
    expect(line('two\nlines')).toBe('description: "two\\nlines"');
    expect(line('next\u2028line')).toBe('description: "next\\u2028line"');
    expect(line('Gère «alpha» 😀')).toBe('description: Gère «alpha» 😀');
    expect(line('lone \ud83d')).toBe('description: "lone \\ud83d"');
  });

  it('in a flow mapping, a comma makes the value quoted', () => {
    const text = '---\n{name: alpha, description: old, license: MIT}\n---\nbody\n';
    const out = rewriteDescription(text, FILE, 'lists, closes');
    expect(out).toBe('---\n{name: alpha, description: "lists, closes", license: MIT}\n---\nbody\n');
    expect(readBack(out)).toBe('lists, closes');
  });

  it('an empty value gets one', () => {
    expect(rewriteDescription('---\nname: alpha\ndescription:\n---\nbody\n', FILE, 'new one')).toBe(
      '---\nname: alpha\ndescription: new one\n---\nbody\n',
    );
  });

  it('description last in the frontmatter, as a block scalar', () => {
    const text = '---\r\nname: alpha\r\ndescription: >\r\n  old\r\n  text\r\n---\r\nbody\r\n';
    expect(rewriteDescription(text, FILE, 'new')).toBe('---\r\nname: alpha\r\ndescription: new\r\n---\r\nbody\r\n');
  });

  it.each<[string, string, RegExp]>([
    ['no frontmatter', '# alpha\n\nbody\n', /:1:1: SKILL\.md has no YAML frontmatter/],
    ['no description', '---\nname: alpha\n---\nbody\n', /:2:1: frontmatter has no `description`/],
    ['an alias', '---\nname: &n alpha\ndescription: *n\n---\n', /:3:14: `description` is an alias/],
    ['an anchor', '---\nname: alpha\ndescription: &d old\nother: *d\n---\n', /:3:17: `description` carries an anchor/],
    ['a list', '---\nname: alpha\ndescription:\n  - a\n---\n', /:4:3: `description` is a list/],
    ['a mapping', '---\nname: alpha\ndescription: {a: b}\n---\n', /:3:14: `description` is a mapping/],
    ['a tag', '---\nname: alpha\ndescription: !!int 5\n---\n', /:3:20: `description` carries the tag/],
    ['a duplicate key', '---\nname: alpha\ndescription: a\ndescription: b\n---\n', /:4:1: YAML syntax error: Map keys must be unique/],
    ['frontmatter that is not a mapping', '---\n- a\n---\n', /:2:1: frontmatter is not a mapping/],
  ])('refuses %s with file:line:col, what and what to do', (_, text, message) => {
    let error: unknown;
    try {
      rewriteDescription(text, FILE, 'new');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toMatch(new RegExp(`^${FILE}${message.source}.* — \\S`));
    expect((error as InputError).message.split('\n')).toHaveLength(1);
  });
});

describe('rewriteDescriptionBytes: every byte outside the description kept, whatever the encoding', () => {
  /** A SKILL.md saved as cp1252: é (0xE9), curly quotes (0x93, 0x94) and an en dash (0x96), in the frontmatter and the body. */
  const cp1252 = (description: string) =>
    Buffer.concat([
      Buffer.from('---\nname: alpha\nauthor: Ren', 'latin1'),
      Buffer.from([0xe9]),
      Buffer.from(`\ndescription: ${description}\n---\n# alpha `, 'latin1'),
      Buffer.from([0x96, 0x20, 0x93]),
      Buffer.from('caf', 'latin1'),
      Buffer.from([0xe9, 0x94]),
      Buffer.from('\r\nbody\n', 'latin1'),
    ]);

  it.each([
    ['a cp1252 file', cp1252('Old one.'), cp1252('Handles alpha records, lists and closes them.')],
    [
      'a cp1252 file with a byte order mark',
      Buffer.concat([Buffer.from(BOM), cp1252('Old one.')]),
      Buffer.concat([Buffer.from(BOM), cp1252('Handles alpha records, lists and closes them.')]),
    ],
    [
      'a cp1252 byte in the old description itself',
      cp1252(`Old caf${String.fromCharCode(0xe9)}.`),
      cp1252('Handles alpha records, lists and closes them.'),
    ],
  ])('%s: only the value changes', (_, before, after) => {
    expect(rewriteDescriptionBytes(before, FILE, 'Handles alpha records, lists and closes them.').equals(after)).toBe(true);
  });

  it('tune --write keeps every cp1252 byte of SKILL.md outside the description', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sp-write-'));
    dirs.push(dir);
    const file = join(dir, 'SKILL.md');
    writeFileSync(file, cp1252('Old one.'));
    const record = { verdict: 'IMPROVED', result: 'Handles alpha records, lists and closes them.', skillFile: file } as TuneRecord;
    expect(await writeResult(record)).toBe(true);
    expect(readFileSync(file).equals(cp1252('Handles alpha records, lists and closes them.'))).toBe(true);
  });

  it('a UTF-8 file is rewritten as before, its multi-byte characters kept', () => {
    const text = '---\nname: alpha\ndescription: old\n---\n# café – “quoted”\n';
    expect(rewriteDescriptionBytes(Buffer.from(text), FILE, 'Déjà vu – new').toString('utf8')).toBe(
      rewriteDescription(text, FILE, 'Déjà vu – new'),
    );
  });

  it('refuses, naming the first line that is not UTF-8, a description beyond ASCII for a file that is not UTF-8', () => {
    expect(() => rewriteDescriptionBytes(cp1252('Old one.'), FILE, 'Handles café orders')).toThrow(
      new RegExp(`^${FILE}:3:1: SKILL\\.md is not UTF-8 here.* — save SKILL\\.md as UTF-8, or keep the description to ASCII$`),
    );
  });
});

describe('descriptionProblems: the Agent Skills limits a load checks, and angle brackets', () => {
  it.each<[string, RegExp | undefined]>([
    ['Handles alpha.', undefined],
    ['x'.repeat(1024), undefined],
    ['', /missing or empty/],
    ['   ', /missing or empty/],
    ['x'.repeat(1025), /1025 characters/],
    ['use <alpha> tags', /angle brackets/],
    ['a -> b', /angle brackets/],
  ])('%j', (description, what) => {
    const problems = descriptionProblems(description);
    if (what) expect(problems.map((p) => p.what).join('; ')).toMatch(what);
    else expect(problems).toEqual([]);
  });
});
