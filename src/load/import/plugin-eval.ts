/**
 * Claude Code's `claude plugin eval` cases: a folder `evals/<case>/` holding `case.yaml` (the case's fields, its
 * `prompt` and `graders`) or `prompt.md` (the fields as frontmatter, the prompt as its body), and graders inline or
 * as `graders/*.md` (frontmatter `type`, `tool`, `input_match`, `min`, `max`; the body what it checks). A
 * `tool_used` grader of the `Skill` tool is the trigger check: the skill its `input_match` names should fire, or,
 * with `max: 0`, must not. An `llm` grader's body becomes an `expect.judge` item; every other grader is named as not
 * carried.
 */
import { isPlainObject } from '../../util/json.js';
import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { InputError, ProblemList } from '../../util/input-error.js';
import { MAX_ITEM_CHARS } from '../../checks/judge.js';
import { parseYamlText, readTextFile } from '../yaml-file.js';
import {
  idPart,
  kindOf,
  placeSkill,
  type ImportContext,
  type ImportedCase,
  type Importer,
  type ImportNote,
  type Located,
} from './format.js';
import { NEAR_MISS_TAG } from './trigger-list.js';

const GRADER_TYPES = new Set(['regex', 'tool_used', 'tool_order', 'file_exists', 'llm', 'baseline']);
const SHAPE = 'a `claude plugin eval` case (case.yaml, or prompt.md with frontmatter), its graders inline or in graders/*.md';

/** A Markdown file's YAML frontmatter and body, its lines counted from the file's first. */
export function markdownWithFrontmatter(file: string, text: string): { value: Record<string, unknown>; body: string; src: Located } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  let y: ReturnType<typeof parseYamlText>;
  try {
    y = parseYamlText(file, m ? m[1]! : '');
  } catch (e) {
    // Its lines counted from the file's, past the opening `---`.
    if (!(e instanceof InputError) || !m) throw e;
    throw new InputError(e.problems.map((p) => (p.line === undefined ? p : { ...p, line: p.line + 1 })));
  }
  const shift = (at: { line: number; col: number }) => ({ line: at.line + (m ? 1 : 0), col: at.col });
  const src: Located = { locate: (p) => shift(y.locate(p)), problem: (p, what, todo) => ({ file, ...shift(y.locate(p)), what, todo }) };
  return { value: isPlainObject(y.value) ? y.value : {}, body: (m ? m[2]! : text).trim(), src };
}

/** A grader as read, and where to name it: inline (`[graders, j]` of the case file), or a file of its own. */
interface Grader {
  fields: Record<string, unknown>;
  body: string;
  name: string;
  problem(what: string, todo: string): ReturnType<Located['problem']>;
}

/** The family skills an `input_match` pattern names (tried on the Skill call's input, plain and plugin-qualified); undefined when it is no regular expression. */
function matchedSkills(ctx: ImportContext, pattern: string): string[] | undefined {
  let re: RegExp;
  try {
    re = new RegExp(pattern);
  } catch {
    return undefined;
  }
  const inputs = (n: string) => [`{"skill": "${n}"}`, `{"skill":"${n}"}`, `{"skill": "plugin:${n}"}`];
  return ctx.skills.filter((s) => [s.dir, s.name].some((n) => inputs(n).some((input) => re.test(input)))).map((s) => s.dir);
}

/** The Markdown graders in a case's graders/ folder, by name; none when it has no such folder. */
function graderNames(folder: string): string[] {
  try {
    return readdirSync(join(folder, 'graders'))
      .filter((n) => n.endsWith('.md'))
      .sort();
  } catch {
    return [];
  }
}

/** The graders/*.md beside a case file, read, each with its file's name and text. */
function graderFiles(folder: string, file: string): (Grader & { file: string; text: string })[] {
  return graderNames(folder).map((n) => {
    const shown = join(dirname(file), 'graders', n);
    const text = readTextFile(join(folder, 'graders', n), 'grader file', { utf8: 'strict' });
    const { value, body, src } = markdownWithFrontmatter(shown, text);
    return {
      fields: value,
      body,
      name: `grader graders/${n}`,
      problem: (what, todo) => src.problem(['type'], what, todo),
      file: shown,
      text,
    };
  });
}

/** Whether the case's folder holds a graders/ folder of Markdown graders. */
const hasGraderFiles = (ctx: ImportContext) => graderNames(dirname(ctx.path)).length > 0;

export const pluginEvalCase: Importer<Record<string, unknown>> = {
  name: 'plugin-eval',
  shape: SHAPE,
  reads: ['tree', 'markdown'],
  recognises: (value, ctx) =>
    isPlainObject(value) &&
    !('tests' in value) &&
    !('evals' in value) &&
    ((Array.isArray(value.graders) && value.graders.some((g) => isPlainObject(g) && GRADER_TYPES.has(g.type as string))) ||
      hasGraderFiles(ctx)),
  read(value, src, ctx) {
    const folder = dirname(ctx.path);
    const caseName = typeof value.name === 'string' && value.name.trim() !== '' ? value.name : basename(folder);
    const { prompt } = value;
    if (typeof prompt !== 'string' || prompt.trim() === '')
      throw new InputError(
        src.problem(
          ['prompt'],
          `case "${caseName}" has no prompt`,
          'write the request as a user would type it (case.yaml `prompt:`, or the body of prompt.md)',
        ),
      );
    const inline: Grader[] = (Array.isArray(value.graders) ? value.graders : []).map((g: unknown, j) => ({
      fields: isPlainObject(g) ? g : {},
      body:
        isPlainObject(g) && typeof g.description === 'string'
          ? g.description
          : isPlainObject(g) && typeof g.rubric === 'string'
            ? g.rubric
            : '',
      name: `grader ${j + 1}`,
      problem: (what, todo) => src.problem(['graders', j], what, todo),
    }));
    const files = graderFiles(folder, ctx.file);
    const graders = [...inline, ...files];
    const problems = new ProblemList();
    const uncarried: ImportNote[] = [];
    const triggers: { skill: string; negative: boolean }[] = [];
    const judge: string[] = [];
    for (const g of graders) {
      const { type, tool, input_match: match, min, max } = g.fields;
      if (type === 'tool_used' && tool === 'Skill') {
        if (match !== undefined && typeof match !== 'string') {
          problems.add(g.problem(`${g.name}: input_match is ${kindOf(match)}`, 'write the pattern as a string'));
          continue;
        }
        const named = match === undefined ? [placeSkill(ctx, 'plugin eval case')] : matchedSkills(ctx, match);
        if (named === undefined) {
          problems.add(g.problem(`${g.name}: input_match ${JSON.stringify(match)} is no regular expression`, 'fix the pattern'));
          continue;
        }
        if (named.length !== 1) {
          problems.add(
            g.problem(
              `${g.name}: input_match ${JSON.stringify(match)} matches ${named.length ? `${named.length} skills (${named.join(', ')})` : 'no skill of the family'}`,
              `make it name one skill: ${ctx.skills.map((s) => s.dir).join(', ')}`,
            ),
          );
          continue;
        }
        triggers.push({ skill: named[0]!, negative: max === 0 });
        if (min !== undefined && max !== 0 && min !== 1)
          uncarried.push({ at: [], what: `${g.name}: min ${String(min)} (a case asks whether the skill fires, not how often)` });
      } else if (type === 'llm' && g.body.trim() !== '' && g.body.trim().length <= MAX_ITEM_CHARS) judge.push(g.body.trim());
      else uncarried.push({ at: [], what: `${g.name}: a ${String(type)}${tool ? ` ${String(tool)}` : ''} grader` });
    }
    problems.throwIfAny();
    if (triggers.length !== 1)
      throw new InputError(
        src.problem(
          ['graders'],
          `case "${caseName}" has ${triggers.length} tool_used Skill graders, where a trigger case has one`,
          triggers.length
            ? 'keep one (the skill that should fire, or max: 0 for the one that must not)'
            : 'add a grader {type: tool_used, tool: Skill, input_match: <skill>}',
        ),
      );
    const [{ skill, negative }] = triggers as [{ skill: string; negative: boolean }];
    for (const k of Object.keys(value).filter((k) => !['name', 'prompt', 'graders', 'schema_version', 'description'].includes(k)))
      uncarried.push({ at: [k], what: `"${k}"` });
    if (negative && judge.length)
      uncarried.push({ at: ['graders'], what: 'its llm graders (a case the skill must leave is judged on triggering only)' });
    const c: ImportedCase = {
      at: [],
      fields: { prompt: ['prompt'], expect: ['graders'] },
      id: idPart(caseName),
      prompt,
      expect: negative ? { not: skill } : { skill, ...(judge.length ? { judge } : {}) },
      tags: negative ? [NEAR_MISS_TAG] : [],
    };
    return { format: 'plugin-eval', cases: [c], repeats: [], uncarried, src, alsoRead: files.map(({ file, text }) => ({ file, text })) };
  },
};
