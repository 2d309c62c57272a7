/**
 * Skillgrade's `eval.yaml`: `tasks: [{name, instruction, graders: [{type: deterministic | llm_rubric, …}]}]`, each
 * task an instruction the skill should carry out (a positive case of the skill the file's place names); an
 * `llm_rubric` grader's rubric becomes an `expect.judge` item, every other grader and setting is named as not carried.
 */
import { isPlainObject } from '../../util/json.js';
import { InputError, ProblemList } from '../../util/input-error.js';
import { MAX_ITEM_CHARS } from '../../checks/judge.js';
import type { LocatedYaml } from '../yaml-file.js';
import { idPart, kindOf, placeSkill, type ImportedCase, type Importer, type ImportNote, settledCases } from './format.js';

const SHAPE = "Skillgrade's eval.yaml, {tasks: [{name, instruction, graders: […]}]}";
const KEPT = new Set(['name', 'instruction', 'graders']);

export const skillgradeEval: Importer = {
  name: 'skillgrade',
  shape: SHAPE,
  reads: ['tree'],
  recognises: (value) =>
    isPlainObject(value) && Array.isArray(value.tasks) && value.tasks.some((t) => isPlainObject(t) && 'instruction' in t),
  read(value, src, ctx) {
    const y = src as LocatedYaml;
    const tasks = (value as { tasks: unknown[] }).tasks;
    const skill = placeSkill(ctx, 'Skillgrade eval');
    const problems = new ProblemList();
    const uncarried: ImportNote[] = [];
    const cases: ImportedCase[] = [];
    tasks.forEach((t, i) => {
      const at = ['tasks', i];
      const name = `task ${i + 1}`;
      if (!isPlainObject(t))
        return problems.add(y.problem(at, `${name} is ${kindOf(t)}, not an object`, 'write {name, instruction, graders}'));
      if (typeof t.instruction !== 'string' || t.instruction.trim() === '')
        return problems.add(y.problem(at, `${name} has no instruction`, 'write instruction: the task as a user would ask it'));
      if (typeof t.name !== 'string' || idPart(t.name).replace(/-/g, '') === '')
        return problems.add(y.problem(at, `${name} has no name`, 'give it name: a short id, like fix-linting'));
      const judge: string[] = [];
      (Array.isArray(t.graders) ? t.graders : []).forEach((g: unknown, j) => {
        const rubric = isPlainObject(g) && g.type === 'llm_rubric' && typeof g.rubric === 'string' ? g.rubric.trim() : undefined;
        if (rubric && rubric.length <= MAX_ITEM_CHARS) judge.push(rubric);
        else
          uncarried.push({
            at: [...at, 'graders', j],
            what: `${name}: its ${isPlainObject(g) ? String(g.type) : kindOf(g)} grader${rubric ? ` (a rubric of ${rubric.length} characters; a judge item holds ${MAX_ITEM_CHARS}: split it into yes/no questions)` : ''}`,
          });
      });
      for (const k of Object.keys(t).filter((k) => !KEPT.has(k))) uncarried.push({ at: [...at, k], what: `${name}: "${k}"` });
      cases.push({
        at,
        fields: { id: [...at, 'name'], prompt: [...at, 'instruction'], ...(judge.length ? { judge: [...at, 'graders'] } : {}) },
        id: idPart(t.name),
        prompt: t.instruction,
        expect: { skill, ...(judge.length ? { judge } : {}) },
        tags: [],
      });
    });
    problems.throwIfAny();
    if (cases.length === 0) throw new InputError(y.problem(['tasks'], 'no task has an instruction', `write ${SHAPE}`));
    const { kept, repeats } = settledCases(cases, y, problems, {
      ids: { entry: 'task', key: 'name' },
      repeats: { noun: 'instruction', field: 'skill', answer: (c) => ('skill' in c.expect ? c.expect.skill : '') },
    });
    return { format: 'skillgrade', cases: kept, repeats, uncarried, src: y };
  },
};
