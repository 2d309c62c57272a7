import { isAlias, isMap, isScalar, isSeq, type Pair } from 'yaml';
import { InputError } from '../util/input-error.js';
import { descriptionSpecProblem, FRONTMATTER, noFrontmatter } from './skills.js';
import { BOM, parseYamlText } from './yaml-file.js';
import { yamlScalar } from './yaml-scalar.js';

const STR_TAG = 'tag:yaml.org,2002:str';

/**
 * Why `description` cannot be a skill's description: the Agent Skills spec's limits as loading a SKILL.md checks them
 * (non-empty, at most 1024 characters), and angle brackets, which skill uploads refuse as XML tags. Empty when it can.
 */
export function descriptionProblems(description: string): { what: string; todo: string }[] {
  const spec = descriptionSpecProblem(description);
  return [
    ...(spec ? [spec] : []),
    ...(/[<>]/.test(description) ? [{ what: 'the description holds angle brackets (< or >)', todo: 'write it without them' }] : []),
  ];
}

/**
 * The SKILL.md text with only the frontmatter `description` value replaced by `description`, written as a one-line
 * YAML scalar (plain when safe, else double-quoted) that reads back exactly. Every other byte is kept: the other keys,
 * comments, the body, line endings and a byte order mark. Throws an InputError when the value cannot be replaced in
 * place (no frontmatter, no description, an alias, an anchor, a tag or a value that is not a scalar).
 */
export function rewriteDescription(text: string, file: string, description: string): string {
  const bom = text.startsWith(BOM) ? BOM : '';
  const body = text.slice(bom.length);
  const m = FRONTMATTER.exec(body);
  if (!m) throw noFrontmatter(file, 'SKILL.md has no YAML frontmatter, so there is no description to rewrite');
  // The frontmatter starts on line 2; parsed with one newline before it, so lines are the file's and offset 1 is its start.
  const start = m[0].indexOf('\n') + 1;
  const frontmatter = '\n' + m[1]!;
  const y = parseYamlText(file, frontmatter);
  const at = (offset: number) => start + offset - 1;
  const contents = y.doc.contents;
  if (!isMap(contents)) {
    throw new InputError({
      file,
      line: 2,
      col: 1,
      what: 'frontmatter is not a mapping',
      todo: 'write `name: …` and `description: …` lines',
    });
  }
  const pair = (contents.items as Pair[]).find((p) => isScalar(p.key) && p.key.value === 'description');
  if (!pair) {
    throw new InputError({
      file,
      line: 2,
      col: 1,
      what: 'frontmatter has no `description`',
      todo: 'add a `description:` line for the new description to replace',
    });
  }
  const value = pair.value;
  const cannot = (what: string, todo: string): InputError => new InputError(y.problem(['description'], what, todo));
  if (isAlias(value)) throw cannot('`description` is an alias (*name), so rewriting it would change what it names', 'write the value out');
  if (!isScalar(value) || !value.range)
    throw cannot(`\`description\` is ${isSeq(value) ? 'a list' : 'a mapping'}, not text`, 'write the description as text');
  if (value.anchor)
    throw cannot(
      `\`description\` carries an anchor (&${value.anchor}) that other values may name`,
      'remove the anchor, writing its aliases out',
    );
  if (value.tag && value.tag !== STR_TAG) throw cannot(`\`description\` carries the tag ${value.tag}`, 'remove the tag');

  const [from] = value.range;
  let to = value.range[1];
  // A block scalar's span runs through its last line break (and a kept `|+` scalar's trailing blank lines): they stay.
  if (value.type === 'BLOCK_FOLDED' || value.type === 'BLOCK_LITERAL') {
    while (to > from + 1 && /[ \t\r\n]/.test(frontmatter[to - 1]!)) to--;
  }
  // In a flow mapping (`{name: …, description: …}`) a comma or bracket would end a plain scalar.
  const written = yamlScalar(description, contents.flow === true);
  // An empty value (`description:`) has nothing between the colon and the line break: a space separates the new one.
  const gap = from === to && !/[ \t]/.test(frontmatter[from - 1]!) ? ' ' : '';
  const result = body.slice(0, at(from)) + gap + written + body.slice(at(to));
  // What was written must read back as exactly the new description, with nothing else changed in the frontmatter.
  const back = FRONTMATTER.exec(result);
  const reread = back ? (parseYamlText(file, '\n' + back[1]!).value as Record<string, unknown>) : undefined;
  const others = (data: object | undefined) => JSON.stringify({ ...data, description: '' });
  if (reread?.description !== description || others(reread) !== others(y.value as object)) {
    throw new Error(`rewriting the description of ${file} did not read back as written`);
  }
  return bom + result;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const isUtf8 = (bytes: Uint8Array) => {
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
};

/** The 1-based number of the first line of `bytes` that is not UTF-8. */
function firstNonUtf8Line(bytes: Buffer): number {
  let start = 0;
  for (let line = 1; ; line++) {
    const end = bytes.indexOf(0x0a, start);
    if (!isUtf8(bytes.subarray(start, end < 0 ? bytes.length : end + 1)) || end < 0) return line;
    start = end + 1;
  }
}

/**
 * rewriteDescription on the file's bytes: every byte outside the description's value is kept as it was, whatever the
 * encoding. A file that is not UTF-8 (a cp1252 é, curly quote or dash) is rewritten byte for byte around the value, and
 * refused (an InputError naming the line) when the new description is not plain ASCII: written into a file of unknown
 * encoding, it could not be read back as written.
 */
export function rewriteDescriptionBytes(bytes: Buffer, file: string, description: string): Buffer {
  if (isUtf8(bytes)) return Buffer.from(rewriteDescription(bytes.toString('utf8'), file, description), 'utf8');
  // eslint-disable-next-line no-control-regex
  if (!/^[\x00-\x7f]*$/.test(description))
    throw new InputError({
      file,
      line: firstNonUtf8Line(bytes),
      what: 'SKILL.md is not UTF-8 here, so a description with characters beyond ASCII cannot be written into it as read',
      todo: 'save SKILL.md as UTF-8, or keep the description to ASCII',
    });
  // Latin-1 maps each byte to one character and back, so every byte but the (ASCII) value is written as read.
  const bom = bytes.subarray(0, 3).equals(Buffer.from(BOM, 'utf8')) ? 3 : 0;
  const rewritten = rewriteDescription(bytes.subarray(bom).toString('latin1'), file, description);
  return Buffer.concat([bytes.subarray(0, bom), Buffer.from(rewritten, 'latin1')]);
}

/**
 * The SKILL.md bytes with the body (everything after the frontmatter) replaced by `body`, the frontmatter's bytes kept
 * as they were whatever the encoding: read as Latin-1, each byte is one character, so offsets are byte offsets.
 */
export function rewriteBodyBytes(bytes: Buffer, file: string, body: string): Buffer {
  const bom = bytes.subarray(0, 3).equals(Buffer.from(BOM, 'utf8')) ? 3 : 0;
  const m = FRONTMATTER.exec(bytes.subarray(bom).toString('latin1'));
  if (!m) throw noFrontmatter(file, 'SKILL.md has no YAML frontmatter, so its body cannot be told apart');
  return Buffer.concat([bytes.subarray(0, bom + m[0].length), Buffer.from(body, 'utf8')]);
}
