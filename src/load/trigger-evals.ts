/**
 * Anthropic's skill-creator trigger eval sets: a JSON array of `{"query": "…", "should_trigger": true|false}`, one
 * per request, for one skill. Each entry is a case: `should_trigger: true` expects the skill, `false` says the skill
 * must not fire (a near miss a sibling may rightly take: `expect: { not: <skill> }`). Keys other than those two are
 * ignored: both are required, so a misspelt one is still reported.
 */
import { basename } from 'node:path';
import { InputError, ProblemList, type InputProblem } from '../util/input-error.js';
import { isWithin } from '../util/paths.js';
import type { Skill } from './skills.js';
import { parseYamlText, type LocatedYaml } from './yaml-file.js';

/** A family member as case loading knows it; `path` (its folder) when its SKILL.md loaded. */
export type FamilyMember = Pick<Skill, 'dir' | 'name'> & { path?: string };

export interface TriggerEval {
  /** Its place in the set, from 0. */
  entry: number;
  query: string;
  shouldTrigger: boolean;
}

/** An entry whose query an earlier entry already asks, with the same should_trigger. */
export interface RepeatedEval {
  entry: TriggerEval;
  first: TriggerEval;
}

/** A case of an eval set, as a case file would write it, and the entry it came from. */
export interface ImportedCase {
  entry: number;
  id: string;
  prompt: string;
  expect: { skill: string } | { not: string };
  tags: string[];
}

export const NEAR_MISS_TAG = 'near-miss';

const FORMAT = 'a JSON array of {"query": "…", "should_trigger": true or false} (skill-creator\'s trigger eval format)';

/** Whether a case file is a trigger eval set rather than YAML cases. */
export const isTriggerEvalFile = (file: string) => /\.json$/i.test(file);

const kindOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);

/** Where a JSON syntax error is, from the parser's "at position N" (the end of the text for "unexpected end"). */
function jsonErrorAt(text: string, message: string): { line: number; col: number } {
  const pos = Number(/position (\d+)/.exec(message)?.[1] ?? (/end of JSON/i.test(message) ? text.length : 0));
  const before = text.slice(0, pos).split('\n');
  return { line: before.length, col: before.at(-1)!.length + 1 };
}

/**
 * The entries of an eval set, and those repeating an earlier entry's query; every problem (not JSON, not an array, a
 * malformed or empty entry, a query asked twice with opposite answers) with file:line:col.
 */
export function readTriggerEvals(file: string, text: string): { entries: TriggerEval[]; repeats: RepeatedEval[]; y: LocatedYaml } {
  try {
    JSON.parse(text);
  } catch (e) {
    const message = (e as Error).message;
    throw new InputError({
      file,
      ...jsonErrorAt(text, message),
      what: `not valid JSON: ${message.split('\n')[0]}`,
      todo: `write the eval set as ${FORMAT}`,
    });
  }
  // JSON is YAML: the YAML parser reads it again, keeping where each value was written.
  const y = parseYamlText(file, text);
  if (!Array.isArray(y.value)) {
    throw new InputError(y.problem([], `the eval set is ${kindOf(y.value)}, not a JSON array`, `write it as ${FORMAT}`));
  }
  if (y.value.length === 0) throw new InputError(y.problem([], 'the eval set holds no entries', `add at least one: ${FORMAT}`));
  const problems = new ProblemList();
  const entries: TriggerEval[] = [];
  y.value.forEach((entry: unknown, i) => {
    const n = i + 1;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.add(
        y.problem([i], `entry ${n} is ${kindOf(entry)}, not an object`, 'write {"query": "…", "should_trigger": true or false}'),
      );
      return;
    }
    const { query, should_trigger: should } = entry as Record<string, unknown>;
    const bad: InputProblem[] = [];
    if (query === undefined) bad.push(y.problem([i], `entry ${n} has no "query"`, 'add "query": the request as a user would type it'));
    else if (typeof query !== 'string')
      bad.push(y.problem([i, 'query'], `entry ${n}: "query" is ${kindOf(query)}, not text`, 'write the request as a JSON string'));
    else if (query.trim() === '')
      bad.push(y.problem([i, 'query'], `entry ${n}: "query" is empty`, 'write the request as a user would type it, or remove the entry'));
    if (should === undefined)
      bad.push(y.problem([i], `entry ${n} has no "should_trigger"`, 'add "should_trigger": true (the skill should fire) or false'));
    else if (typeof should !== 'boolean')
      bad.push(
        y.problem(
          [i, 'should_trigger'],
          `entry ${n}: "should_trigger" is ${JSON.stringify(should)}, not true or false`,
          'write true or false, without quotes',
        ),
      );
    bad.forEach((p) => problems.add(p));
    if (bad.length === 0) entries.push({ entry: i, query: query as string, shouldTrigger: should as boolean });
  });
  // The same request twice (spaces around it aside) is one request: measured twice it would weigh double.
  const firstOf = new Map<string, TriggerEval>();
  const repeats: RepeatedEval[] = [];
  for (const e of entries) {
    const first = firstOf.get(e.query.trim());
    if (!first) firstOf.set(e.query.trim(), e);
    else if (first.shouldTrigger === e.shouldTrigger) repeats.push({ entry: e, first });
    else
      problems.add(
        y.problem(
          [e.entry, 'should_trigger'],
          `entry ${e.entry + 1} asks entry ${first.entry + 1}'s query again (line ${y.locate([first.entry]).line}) with should_trigger ${e.shouldTrigger}, where entry ${first.entry + 1} says ${first.shouldTrigger}`,
          'keep the entry that is right and remove the other',
        ),
      );
  }
  problems.throwIfAny();
  return { entries, repeats, y };
}

/** What a repeated entry is said to be: where it is, and the entry it repeats. */
export const repeatText = (r: RepeatedEval, y: LocatedYaml) =>
  `entry ${r.entry.entry + 1} repeats the query of entry ${r.first.entry + 1} (line ${y.locate([r.first.entry]).line})`;

/**
 * The skill an eval set is for: the one whose folder holds the file (`skills/<name>/evals/evals.json`), else the one
 * the file's name before its first dot names (`cases/<name>.json`, `cases/<name>.evals.json`). `file` is the name
 * messages show, `path` where it is.
 */
export function triggerEvalSkill(file: string, skills: readonly FamilyMember[], path: string): string {
  const holder = skills.find((s) => s.path !== undefined && isWithin(path, s.path));
  if (holder) return holder.dir;
  const stem = basename(file).split('.')[0]!;
  const named = skills.find((s) => s.dir === stem || s.name === stem);
  if (named) return named.dir;
  throw new InputError({
    file,
    what: `cannot tell which skill this trigger eval set is for (its name "${stem}" names no skill, and no skill folder holds it)`,
    todo: `name it after its skill (cases/<skill>.json), or move it into the skill's folder; skills: ${skills.map((s) => s.dir).join(', ')}`,
  });
}

/**
 * The cases of an eval set for `skill`: `<skill>-trigger-<n>` expecting it, `<skill>-quiet-<n>` a near miss it must
 * leave (skill-creator's `should_trigger: false` speaks of this skill only: a sibling may take the request).
 */
export function triggerEvalCases(entries: readonly TriggerEval[], skill: string): ImportedCase[] {
  const count = { trigger: 0, quiet: 0 };
  return entries.map((e) => {
    const kind = e.shouldTrigger ? 'trigger' : 'quiet';
    return {
      entry: e.entry,
      id: `${skill}-${kind}-${++count[kind]}`,
      prompt: e.query,
      expect: e.shouldTrigger ? { skill } : { not: skill },
      tags: e.shouldTrigger ? [] : [NEAR_MISS_TAG],
    };
  });
}
