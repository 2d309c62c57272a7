/**
 * The agentskills.io / skill-creator `evals.json` object, kept at `<skill>/evals/evals.json`:
 * `{skill_name, evals: [{id, prompt, expected_output, files, expectations, expected_skill?}]}`. Each eval is a
 * positive case of `expected_skill` (else `skill_name`, else the skill whose folder holds the file), its `files` (relative to
 * the skill's folder) the case's files, its `expectations` `expect.judge` items. An eval written as a trigger entry
 * (`{prompt|query, should_trigger}`, skill-creator's other layout of a trigger list) is read as one.
 */
import { isPlainObject } from '../../util/json.js';
import { resolve } from 'node:path';
import { InputError, ProblemList } from '../../util/input-error.js';
import type { LocatedYaml } from '../yaml-file.js';
import {
  idPart,
  kindOf,
  placeSkill,
  skillNamed,
  skillRoot,
  type ImportContext,
  type ImportedCase,
  type Importer,
  type ImportNote,
  sameIds,
} from './format.js';
import { triggerCases, triggerEntry, type TriggerEntry } from './trigger-list.js';

const SHAPE = 'skill-creator\'s evals.json object, {"skill_name": …, "evals": [{"id": 1, "prompt": "…", "expectations": […]}]}';

/** The keys an eval's case carries; any other is named as not carried. */
const CARRIED = new Set(['id', 'prompt', 'files', 'expectations', 'expected_skill']);

/** A list of non-empty strings at `at`, or undefined with the problem added. */
function texts(y: LocatedYaml, at: (string | number)[], value: unknown, what: string, problems: ProblemList): string[] | undefined {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v.trim() === '')) {
    const i = Array.isArray(value) ? value.findIndex((v) => typeof v !== 'string' || v.trim() === '') : -1;
    problems.add(
      y.problem(
        i < 0 ? at : [...at, i],
        `${what} ${i < 0 ? `is ${kindOf(value)}` : `item ${i + 1} is ${typeof (value as unknown[])[i] === 'string' ? 'empty' : kindOf((value as unknown[])[i])}`}`,
        `write a JSON array of non-empty strings`,
      ),
    );
    return undefined;
  }
  return value as string[];
}

/** An eval's case, or undefined with its problems added; what it holds that no case carries, in `uncarried`. */
function evalCase(
  y: LocatedYaml,
  i: number,
  e: Record<string, unknown>,
  ctx: ImportContext,
  skill: () => string,
  uncarried: ImportNote[],
  problems: ProblemList,
) {
  const at = ['evals', i];
  const name = `eval ${i + 1}`;
  const before = problems.items.length;
  const { id, prompt, files, expectations, expected_skill: expected } = e;
  if (prompt === undefined) problems.add(y.problem(at, `${name} has no "prompt"`, 'add "prompt": the task as a user would ask it'));
  else if (typeof prompt !== 'string' || prompt.trim() === '')
    problems.add(
      y.problem(
        [...at, 'prompt'],
        `${name}: "prompt" is ${typeof prompt === 'string' ? 'empty' : kindOf(prompt)}`,
        'write the task as a JSON string',
      ),
    );
  if (id !== undefined && typeof id !== 'number' && (typeof id !== 'string' || idPart(id).replace(/-/g, '') === ''))
    problems.add(
      y.problem(
        [...at, 'id'],
        `${name}: "id" is ${kindOf(id)}`,
        'write a number (skill-creator numbers its evals 1, 2, …) or a short name',
      ),
    );
  if (expected !== undefined && (typeof expected !== 'string' || expected.trim() === ''))
    problems.add(
      y.problem(
        [...at, 'expected_skill'],
        `${name}: "expected_skill" is ${kindOf(expected)}`,
        'write the name of the skill that should fire',
      ),
    );
  const judge =
    expectations === undefined ? undefined : texts(y, [...at, 'expectations'], expectations, `${name}: "expectations"`, problems);
  const fileList = files === undefined ? undefined : texts(y, [...at, 'files'], files, `${name}: "files"`, problems);
  if (problems.items.length > before) return undefined;
  for (const key of Object.keys(e).filter((k) => !CARRIED.has(k)))
    uncarried.push({
      at: [...at, key],
      what:
        key === 'expected_output'
          ? `${name}: "expected_output" (a description of success for a reader; the cases carry yes/no \`expect.judge\` items, so add one that asks it)`
          : `${name}: "${key}"`,
    });
  const owner = typeof expected === 'string' ? skillNamed(ctx, expected) : skill();
  const root = skillRoot(ctx, owner);
  const c: ImportedCase = {
    at,
    fields: {
      id: [...at, 'id'],
      prompt: [...at, 'prompt'],
      ...(expected !== undefined ? { expect: [...at, 'expected_skill'] } : {}),
      ...(judge ? { judge: [...at, 'expectations'] } : {}),
      ...(fileList ? { files: [...at, 'files'] } : {}),
    },
    id: `${owner}-eval-${idPart((id as string | number | undefined) ?? i + 1)}`,
    prompt: prompt as string,
    expect: { skill: owner, ...(judge?.length ? { judge } : {}) },
    tags: [],
    ...(fileList?.length ? { files: fileList.map((f) => resolve(root, f)) } : {}),
  };
  return c;
}

export const evalsObject: Importer = {
  name: 'evals-json',
  shape: SHAPE,
  reads: ['tree'],
  recognises: (value) => isPlainObject(value) && 'evals' in value,
  read(value, src, ctx) {
    const y = src as LocatedYaml;
    const { evals, skill_name: skillName } = value as Record<string, unknown>;
    if (!Array.isArray(evals))
      throw new InputError(y.problem(['evals'], `"evals" is ${kindOf(evals)}, not a list`, `write it as ${SHAPE}`));
    if (evals.length === 0) throw new InputError(y.problem(['evals'], '"evals" holds no evals', `add at least one: ${SHAPE}`));
    if (skillName !== undefined && typeof skillName !== 'string')
      throw new InputError(
        y.problem(['skill_name'], `"skill_name" is ${kindOf(skillName)}`, "write the skill's name, as its SKILL.md gives it"),
      );
    const known = skillName !== undefined && ctx.skills.some((s) => s.dir === skillName || s.name === skillName);
    const skill = () =>
      known ? skillNamed(ctx, skillName!) : placeSkill(ctx, `evals.json object (skill_name "${skillName ?? ''}" names no skill)`);
    const problems = new ProblemList();
    const uncarried: ImportNote[] = [];
    const tasks: ImportedCase[] = [];
    const triggers: TriggerEntry[] = [];
    evals.forEach((e: unknown, i) => {
      if (!isPlainObject(e))
        return problems.add(
          y.problem(['evals', i], `eval ${i + 1} is ${kindOf(e)}, not an object`, 'write {"id": …, "prompt": "…", "expectations": […]}'),
        );
      if ('should_trigger' in e) {
        const t = triggerEntry(y, ['evals', i], e, ['prompt', 'query'], problems);
        if (t) triggers.push(t);
        return;
      }
      const c = evalCase(y, i, e, ctx, skill, uncarried, problems);
      if (c) tasks.push(c);
    });
    problems.throwIfAny();
    sameIds(tasks, y, { entry: 'eval', key: 'id' }).forEach((p) => problems.add(p));
    const { kept, repeats } = triggers.length ? triggerCases(triggers, skill(), y, problems) : { kept: [], repeats: [] };
    problems.throwIfAny();
    return { format: 'evals-json', cases: [...tasks, ...kept], repeats, uncarried, src: y };
  },
};
