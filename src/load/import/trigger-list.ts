/**
 * skill-creator's trigger eval sets (`trigger-eval.json`, `eval_set.json`, or any file of this shape): a JSON array of
 * `{"query": "…", "should_trigger": true|false}`, one per request, for one skill. `should_trigger: true` expects the
 * skill; `false` says the skill must not fire (a near miss a sibling may rightly take: `expect: { not: <skill> }`).
 * Other keys are ignored: both are required, so a misspelt one is still reported.
 */
import { isPlainObject } from '../../util/json.js';
import { InputError, ProblemList, type InputProblem } from '../../util/input-error.js';
import type { LocatedYaml } from '../yaml-file.js';
import { kindOf, placeSkill, withoutRepeats, type ImportContext, type ImportedCase, type Importer, type Located } from './format.js';

export const NEAR_MISS_TAG = 'near-miss';

/** A trigger entry read: its request and whether the skill should fire on it. */
export interface TriggerEntry {
  at: (string | number)[];
  /** The key its request was written under (`query`, or `prompt` in an `evals` object). */
  key: string;
  prompt: string;
  shouldTrigger: boolean;
}

/**
 * A trigger entry `{query|prompt, should_trigger}` at `at`, or undefined with its problems added: `keys` are the names
 * the request may go by, the first the one to suggest.
 */
export function triggerEntry(
  y: LocatedYaml,
  at: (string | number)[],
  value: unknown,
  keys: readonly string[],
  problems: ProblemList,
): TriggerEntry | undefined {
  const n = at.at(-1) as number;
  const name = `entry ${n + 1}`;
  if (!isPlainObject(value)) {
    problems.add(y.problem(at, `${name} is ${kindOf(value)}, not an object`, `write {"${keys[0]}": "…", "should_trigger": true or false}`));
    return undefined;
  }
  const key = keys.find((k) => value[k] !== undefined) ?? keys[0]!;
  const { [key]: prompt, should_trigger: should } = value;
  const bad: InputProblem[] = [];
  if (prompt === undefined) bad.push(y.problem(at, `${name} has no "${key}"`, `add "${key}": the request as a user would type it`));
  else if (typeof prompt !== 'string')
    bad.push(y.problem([...at, key], `${name}: "${key}" is ${kindOf(prompt)}, not text`, 'write the request as a JSON string'));
  else if (prompt.trim() === '')
    bad.push(y.problem([...at, key], `${name}: "${key}" is empty`, 'write the request as a user would type it, or remove the entry'));
  if (should === undefined)
    bad.push(y.problem(at, `${name} has no "should_trigger"`, 'add "should_trigger": true (the skill should fire) or false'));
  else if (typeof should !== 'boolean')
    bad.push(
      y.problem(
        [...at, 'should_trigger'],
        `${name}: "should_trigger" is ${JSON.stringify(should)}, not true or false`,
        'write true or false, without quotes',
      ),
    );
  bad.forEach((p) => problems.add(p));
  return bad.length ? undefined : { at, key, prompt: prompt as string, shouldTrigger: should as boolean };
}

/**
 * The cases of trigger entries for `skill`, repeats set apart: `<skill>-trigger-<n>` expecting it, `<skill>-quiet-<n>`
 * a near miss it must leave (skill-creator's `should_trigger: false` speaks of this skill only).
 */
export function triggerCases(
  entries: readonly TriggerEntry[],
  skill: string,
  y: Located,
  problems: ProblemList,
  noun = entries[0]?.key ?? 'query',
) {
  const cases: ImportedCase[] = entries.map((e) => ({
    at: e.at,
    fields: { prompt: [...e.at, e.key], expect: [...e.at, 'should_trigger'] },
    id: '',
    prompt: e.prompt,
    expect: e.shouldTrigger ? { skill } : { not: skill },
    tags: e.shouldTrigger ? [] : [NEAR_MISS_TAG],
  }));
  const { kept, repeats, conflicts } = withoutRepeats(cases, y, {
    noun,
    field: 'should_trigger',
    answer: (c) => String('skill' in c.expect),
  });
  conflicts.forEach((p) => problems.add(p));
  const count = { trigger: 0, quiet: 0 };
  for (const c of kept) {
    const kind = 'skill' in c.expect ? 'trigger' : 'quiet';
    c.id = `${skill}-${kind}-${++count[kind]}`;
  }
  return { kept, repeats };
}

const SHAPE = 'skill-creator\'s trigger eval list, a JSON array of {"query": "…", "should_trigger": true or false}';

export const triggerList: Importer = {
  name: 'trigger-list',
  shape: SHAPE,
  reads: ['tree'],
  recognises: (value) => Array.isArray(value),
  read(_value, src, ctx: ImportContext) {
    const y = src as LocatedYaml;
    const list = y.value as unknown[];
    if (list.length === 0) throw new InputError(y.problem([], 'the eval set holds no entries', `add at least one: ${SHAPE}`));
    const problems = new ProblemList();
    const entries = list.flatMap((entry, i) => triggerEntry(y, [i], entry, ['query'], problems) ?? []);
    problems.throwIfAny();
    const { kept, repeats } = triggerCases(entries, placeSkill(ctx, 'trigger eval set'), y, problems);
    problems.throwIfAny();
    return { format: 'trigger-list', cases: kept, repeats, uncarried: [], src: y };
  },
};
