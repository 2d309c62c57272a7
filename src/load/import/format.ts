/**
 * What an importer is: one eval format written for another tool, recognised by its shape and read into the
 * project's cases, with what it could not carry named entry by entry. `registry.ts` holds the only list of them.
 */
import { basename, dirname } from 'node:path';
import { InputError, type InputProblem, type ProblemList } from '../../util/input-error.js';
import { valueHash } from '../../util/json.js';
import { isWithin } from '../../util/paths.js';
import type { HistoryTurn } from '../conversation.js';
import type { Skill } from '../skills.js';

/** A family member as case loading knows it; `path` (its folder) when its SKILL.md loaded. */
export type FamilyMember = Pick<Skill, 'dir' | 'name'> & { path?: string };

export type SourcePath = readonly (string | number)[];

/** A parsed source that can say where any path in it was written (a YAML/JSON tree, or a CSV's rows). */
export interface Located {
  locate(path: SourcePath): { line: number; col: number };
  problem(path: SourcePath, what: string, todo: string): InputProblem;
}

/** A case of an imported file, as a case file would write it, and where its entry and fields were written. */
export interface ImportedCase {
  /** The entry it came from. */
  at: SourcePath;
  /** Where a field of the case was written, when not at the entry itself. */
  fields: Partial<Record<'id' | 'prompt' | 'expect' | 'judge' | 'files' | 'history' | 'mcp', SourcePath>>;
  id: string;
  prompt: string;
  expect: { skill: string; judge?: string[] } | { not: string };
  tags: string[];
  /** The user's files the prompt needs, as absolute paths: each lands at the workspace root under its own name. */
  files?: string[];
  /** The earlier turns of the file's conversation the request follows (`history:`). */
  history?: HistoryTurn[];
  /** The real MCP servers the file offers the agent, by name (`mcp:`): each started by its command. */
  mcp?: Record<string, { command: string; args: string[] }>;
}

/** Something the file says that the cases do not carry, or an entry dropped as a repeat: where, and what. */
export interface ImportNote {
  at: SourcePath;
  what: string;
}

export interface ImportedSet {
  /** The importer's name. */
  format: string;
  cases: ImportedCase[];
  /** Entries asking an earlier entry's prompt again with the same answer: `import` drops them, loading refuses them. */
  repeats: ImportNote[];
  /** What the file holds that the cases do not carry. */
  uncarried: ImportNote[];
  src: Located;
  /** The other files its cases were read from (a suite's task files, a case's graders), by name and text: hashed with it. */
  alsoRead?: { file: string; text: string }[];
}

/** What an importer is handed besides the parsed file: where it is, and the skills it may name. */
export interface ImportContext {
  /** The file as messages name it. */
  file: string;
  /** Where it is. */
  path: string;
  skills: readonly FamilyMember[];
  /** The skill `--skill` names, over what the file or its place says. */
  skill?: string;
  /** What to do when neither the file nor its place names its skill (`skillprobe import`: pass --skill). */
  noSkillTodo?: string;
}

export interface Importer<Parsed = unknown> {
  name: string;
  /** The format in a few words, as refusals name it (`skill-creator's evals.json object {skill_name, evals: […]}`). */
  shape: string;
  /** How its files are parsed: a JSON or YAML tree, CSV rows, or Markdown (its frontmatter's fields, `prompt` its body). */
  reads: readonly ('tree' | 'csv' | 'markdown')[];
  /** Whether a parsed file has this format's shape (and the files beside it): decided on the shape, the file's name aside. */
  recognises(value: Parsed, ctx: ImportContext): boolean;
  read(value: Parsed, src: Located, ctx: ImportContext): ImportedSet;
}

export const kindOf = (v: unknown) =>
  v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;

/**
 * The skill a file is for: `--skill`, else the one whose folder holds the file (`skills/<name>/evals/evals.json`),
 * else the one the file's name before its first dot names (`cases/<name>.json`, `cases/<name>.evals.json`).
 */
export function placeSkill(ctx: ImportContext, format: string): string {
  if (ctx.skill !== undefined) return ctx.skill;
  const holder = ctx.skills.find((s) => s.path !== undefined && isWithin(ctx.path, s.path));
  if (holder) return holder.dir;
  const stem = basename(ctx.file).split('.')[0]!;
  const named = ctx.skills.find((s) => s.dir === stem || s.name === stem);
  if (named) return named.dir;
  throw new InputError({
    file: ctx.file,
    what: `cannot tell which skill this ${format} is for (its name "${stem}" names no skill, and no skill folder holds it)`,
    todo:
      ctx.noSkillTodo ??
      `name it after its skill (cases/<skill>.json), or move it into the skill's folder; skills: ${ctx.skills.map((s) => s.dir).join(', ')}`,
  });
}

/** A skill a file names (frontmatter name or folder) as its folder name; an unknown name is kept, for the case check to name. */
export const skillNamed = (ctx: ImportContext, name: string) =>
  ctx.skill ?? ctx.skills.find((s) => s.dir === name || s.name === name)?.dir ?? name;

/** The folder a skill's own relative paths start from: its folder when it loaded and holds the file, else the file's folder's parent. */
export function skillRoot(ctx: ImportContext, skill: string): string {
  const own = ctx.skills.find((s) => s.dir === skill)?.path;
  return own !== undefined && isWithin(ctx.path, own) ? own : dirname(dirname(ctx.path));
}

/** Text a case id may hold: letters, digits, `.`, `_` and `-`. */
export const idPart = (v: string | number) => String(v).replace(/[^A-Za-z0-9._-]+/g, '-');

/**
 * Repeated prompts: the same request (spaces around it aside) after the same earlier turns is one request, and measured twice it would weigh
 * double. With the same answer it is a repeat (`import` drops it, loading refuses it); with opposite answers, a
 * problem naming both entries. `noun` is what the format calls the prompt, `answer` what its `field` says of an entry.
 */
export function withoutRepeats(
  cases: readonly ImportedCase[],
  src: Located,
  { noun, field, answer }: { noun: string; field: string; answer: (c: ImportedCase) => string },
): { kept: ImportedCase[]; repeats: ImportNote[]; conflicts: InputProblem[] } {
  const firstOf = new Map<string, ImportedCase>();
  const kept: ImportedCase[] = [];
  const repeats: ImportNote[] = [];
  const conflicts: InputProblem[] = [];
  const name = (c: ImportedCase) => entryName(c.at);
  const request = (c: ImportedCase) => (c.history ? valueHash({ history: c.history, prompt: c.prompt.trim() }) : c.prompt.trim());
  for (const c of cases) {
    const first = firstOf.get(request(c));
    const line = first && src.locate(first.at).line;
    if (!first) {
      firstOf.set(request(c), c);
      kept.push(c);
    } else if (answer(first) === answer(c))
      repeats.push({ at: c.at, what: `${name(c)} repeats the ${noun} of ${name(first)} (line ${line})` });
    else
      conflicts.push(
        src.problem(
          c.fields.expect ?? c.at,
          `${name(c)} asks ${name(first)}'s ${noun} again (line ${line}) with ${field} ${answer(c)}, where ${name(first)} says ${answer(first)}`,
          'keep the entry that is right and remove the other',
        ),
      );
  }
  return { kept, repeats, conflicts };
}

/** An entry's name in messages: `entry N` in a file's one list (`[i]`, `evals[i]`, `tests[i]`), else `"list" item N`; from 1. */
export const entryName = (at: SourcePath) => {
  const n = at.at(-1);
  if (typeof n !== 'number') return String(n);
  const list = at.at(-2);
  return list === undefined || list === 'evals' || list === 'tests' ? `entry ${n + 1}` : `"${list}" item ${n + 1}`;
};

/**
 * Entries that give the same case id: one entry written twice, whose case id would be taken twice. `entry` is what
 * the format calls an entry (`eval`, `test`, `row`), `key` the field the id comes from.
 */
export function sameIds(cases: readonly ImportedCase[], src: Located, { entry, key }: { entry: string; key: string }): InputProblem[] {
  const byId = new Map<string, ImportedCase>();
  const number = (c: ImportedCase) => ([...c.at].reverse().find((p) => typeof p === 'number') as number) + 1;
  return cases.flatMap((c) => {
    const first = byId.get(c.id);
    if (!first) {
      byId.set(c.id, c);
      return [];
    }
    return [
      src.problem(
        c.fields.id ?? c.at,
        `${entry} ${number(c)} has the ${key} of ${entry} ${number(first)} (line ${src.locate(first.at).line})`,
        `give every ${entry} its own ${key}`,
      ),
    ];
  });
}

/**
 * An importer's cases once every entry is read: refused when two give one id or ask one prompt with opposite answers
 * (with every problem found before), else those kept and the repeats set apart.
 */
export function settledCases(
  cases: readonly ImportedCase[],
  src: Located,
  problems: ProblemList,
  { ids, repeats }: { ids: Parameters<typeof sameIds>[2]; repeats: Parameters<typeof withoutRepeats>[2] },
): { kept: ImportedCase[]; repeats: ImportNote[] } {
  sameIds(cases, src, ids).forEach((p) => problems.add(p));
  const settled = withoutRepeats(cases, src, repeats);
  settled.conflicts.forEach((p) => problems.add(p));
  problems.throwIfAny();
  return { kept: settled.kept, repeats: settled.repeats };
}
