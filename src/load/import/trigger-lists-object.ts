/**
 * Two lists of requests in one object, `{"should_trigger": ["…"], "should_not_trigger": ["…"]}`: the first expect
 * the skill, the second are near misses it must leave (as a trigger list's `should_trigger: false`).
 */
import { isPlainObject } from '../../util/json.js';
import { InputError, ProblemList, type InputProblem } from '../../util/input-error.js';
import type { LocatedYaml } from '../yaml-file.js';
import { kindOf, placeSkill, type ImportNote, type Importer } from './format.js';
import { triggerCases, type TriggerEntry } from './trigger-list.js';

const KEYS = ['should_trigger', 'should_not_trigger'] as const;
const SHAPE = 'two lists of requests, {"should_trigger": ["…"], "should_not_trigger": ["…"]}';

/**
 * The entries of two lists of requests, `keys[0]` those that should trigger, `keys[1]` those that should not: each
 * item's request by `promptOf` (or the problem with it); a key that is not a list is a problem.
 */
export function twoListsEntries(
  y: LocatedYaml,
  object: Record<string, unknown>,
  keys: readonly [string, string],
  shape: string,
  problems: ProblemList,
  promptOf: (item: unknown, key: string, i: number) => string | InputProblem,
): TriggerEntry[] {
  const entries: TriggerEntry[] = [];
  for (const key of keys) {
    const list = object[key] ?? [];
    if (!Array.isArray(list)) {
      problems.add(y.problem([key], `"${key}" is ${kindOf(list)}, not a list`, `write it as ${shape}`));
      continue;
    }
    list.forEach((item: unknown, i) => {
      const prompt = promptOf(item, key, i);
      if (typeof prompt === 'string') entries.push({ at: [key, i], key, prompt, shouldTrigger: key === keys[0] });
      else problems.add(prompt);
    });
  }
  return entries;
}

export const triggerListsObject: Importer = {
  name: 'trigger-lists',
  shape: SHAPE,
  reads: ['tree'],
  recognises: (value) => isPlainObject(value) && KEYS.some((k) => k in value) && !('evals' in value),
  read(value, src, ctx) {
    const y = src as LocatedYaml;
    const object = value as Record<string, unknown>;
    const problems = new ProblemList();
    const entries = twoListsEntries(y, object, KEYS, SHAPE, problems, (prompt, key, i) =>
      typeof prompt === 'string' && prompt.trim() !== ''
        ? prompt
        : y.problem(
            [key, i],
            `"${key}" item ${i + 1} is ${typeof prompt === 'string' ? 'empty' : kindOf(prompt)}`,
            'write the request as a user would type it, as a JSON string',
          ),
    );
    problems.throwIfAny();
    if (entries.length === 0) throw new InputError(y.problem([], 'both lists are empty', `add a request to one: ${SHAPE}`));
    const uncarried: ImportNote[] = Object.keys(object)
      .filter((k) => !(KEYS as readonly string[]).includes(k))
      .map((k) => ({ at: [k], what: `"${k}"` }));
    const { kept, repeats } = triggerCases(entries, placeSkill(ctx, 'pair of trigger lists'), y, problems, 'request');
    problems.throwIfAny();
    return { format: 'trigger-lists', cases: kept, repeats, uncarried, src: y };
  },
};
