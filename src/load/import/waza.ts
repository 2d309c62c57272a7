/**
 * waza's eval suites: `eval.yaml` (`{name, skill, tasks: ["tasks/*.yaml"], graders}`) whose task files each hold
 * `{id, inputs: {prompt}}`, a task the skill should do (a positive case), offered the MCP servers its
 * `config.mcp_servers` starts by command; and its sibling `trigger_tests.yaml`
 * (`{skill, should_trigger_prompts: [{prompt}], should_not_trigger_prompts: [{prompt}]}`). Graders, expected outcomes
 * and confidence levels are named as not carried.
 */
import { isPlainObject } from '../../util/json.js';
import { dirname, relative } from 'node:path';
import { globSync } from 'tinyglobby';
import { InputError, ProblemList } from '../../util/input-error.js';
import { isWithin } from '../../util/paths.js';
import { parseYamlText, readTextFile, type LocatedYaml } from '../yaml-file.js';
import { idPart, kindOf, placeSkill, skillNamed, type ImportContext, type ImportedCase, type Importer, type ImportNote } from './format.js';
import { grantedServers } from './mcp-grants.js';
import { triggerCases } from './trigger-list.js';
import { twoListsEntries } from './trigger-lists-object.js';

/** The suite's skill: `skill:` when it names one of the family, else the one the file's place names. */
function suiteSkill(ctx: ImportContext, y: LocatedYaml, named: unknown, format: string): string {
  if (named !== undefined && (typeof named !== 'string' || named.trim() === ''))
    throw new InputError(y.problem(['skill'], `"skill" is ${kindOf(named)}`, 'name the skill the suite is for'));
  return typeof named === 'string' && ctx.skills.some((s) => s.dir === named || s.name === named)
    ? skillNamed(ctx, named)
    : placeSkill(ctx, format);
}

const TRIGGER_KEYS = ['should_trigger_prompts', 'should_not_trigger_prompts'] as const;
const TRIGGER_SHAPE = "waza's trigger_tests.yaml, {skill, should_trigger_prompts: [{prompt}], should_not_trigger_prompts: [{prompt}]}";

export const wazaTriggerTests: Importer = {
  name: 'waza-trigger-tests',
  shape: TRIGGER_SHAPE,
  reads: ['tree'],
  recognises: (value) => isPlainObject(value) && TRIGGER_KEYS.some((k) => k in value),
  read(value, src, ctx) {
    const y = src as LocatedYaml;
    const object = value as Record<string, unknown>;
    const problems = new ProblemList();
    const uncarried: ImportNote[] = [];
    const entries = twoListsEntries(y, object, TRIGGER_KEYS, TRIGGER_SHAPE, problems, (item, key, i) => {
      const prompt = isPlainObject(item) ? item.prompt : item;
      if (typeof prompt !== 'string' || prompt.trim() === '')
        return y.problem([key, i], `"${key}" item ${i + 1} has no prompt`, 'write - prompt: the request as a user would type it');
      if (isPlainObject(item))
        for (const k of Object.keys(item).filter((k) => k !== 'prompt' && k !== 'reason'))
          uncarried.push({ at: [key, i, k], what: `"${key}" item ${i + 1}: "${k}"` });
      return prompt;
    });
    problems.throwIfAny();
    if (entries.length === 0)
      throw new InputError(y.problem([], 'both lists of prompts are empty', `add a prompt to one: ${TRIGGER_SHAPE}`));
    const skill = suiteSkill(ctx, y, object.skill, 'waza trigger test');
    const { kept, repeats } = triggerCases(entries, skill, y, problems, 'prompt');
    problems.throwIfAny();
    return { format: 'waza-trigger-tests', cases: kept, repeats, uncarried, src: y };
  },
};

const EVAL_SHAPE = 'waza\'s eval.yaml, {name, skill, tasks: ["tasks/*.yaml"]}, each task file {id, inputs: {prompt}}';

export const wazaEval: Importer = {
  name: 'waza-eval',
  shape: EVAL_SHAPE,
  reads: ['tree'],
  recognises: (value) =>
    isPlainObject(value) && Array.isArray(value.tasks) && value.tasks.length > 0 && value.tasks.every((t) => typeof t === 'string'),
  read(value, src, ctx) {
    const y = src as LocatedYaml;
    const suite = value as Record<string, unknown>;
    const skill = suiteSkill(ctx, y, suite.skill, 'waza eval suite');
    const folder = dirname(ctx.path);
    const config = isPlainObject(suite.config) ? suite.config : {};
    // Its MCP servers are carried; its other settings (trials, timeouts, executor) are the run's, named.
    const mcpOnly = isPlainObject(suite.config) && Object.keys(config).every((k) => k === 'mcp_servers');
    const uncarried: ImportNote[] = Object.keys(suite)
      .filter((k) => !['name', 'description', 'skill', 'version', 'tasks'].includes(k) && !(k === 'config' && mcpOnly))
      .map((k) => ({
        at: [k],
        what: `"${k}" (waza's ${k === 'graders' ? 'graders run its own checks' : k === 'config' && 'mcp_servers' in config ? 'settings besides mcp_servers' : 'setting'})`,
      }));
    const problems = new ProblemList();
    if (config.mcp_servers !== undefined && !isPlainObject(config.mcp_servers))
      problems.add(
        y.problem(
          ['config', 'mcp_servers'],
          `"mcp_servers" is ${kindOf(config.mcp_servers)}`,
          'write each server by name: {<name>: {command, args}}',
        ),
      );
    const given = isPlainObject(config.mcp_servers)
      ? Object.entries(config.mcp_servers).map(([name, s]) => ({ name, s, at: ['config', 'mcp_servers', name] }))
      : [];
    const servers = grantedServers(y, given, uncarried, problems);
    problems.throwIfAny();
    const mcp = Object.keys(servers).length ? { mcp: servers } : {};
    const cases: ImportedCase[] = [];
    const alsoRead: { file: string; text: string }[] = [];
    (suite.tasks as string[]).forEach((pattern, i) => {
      const files = globSync(pattern, { cwd: folder, onlyFiles: true, absolute: true }).sort();
      // A task file is the suite's own: a pattern reaching out of its folder would read whatever it names into prompts.
      if (files.some((f) => !isWithin(f, folder)))
        throw new InputError(
          y.problem(
            ['tasks', i],
            `the task pattern "${pattern}" reaches outside the suite's folder`,
            'keep the task files beside eval.yaml',
          ),
        );
      if (files.length === 0)
        throw new InputError(
          y.problem(
            ['tasks', i],
            `the task pattern "${pattern}" matches no file (beside ${ctx.file})`,
            'fix the pattern, or add the task files',
          ),
        );
      for (const path of files) {
        const shown = relative(dirname(ctx.path), path);
        const file = `${dirname(ctx.file)}/${shown}`.replace(/^\.\//, '');
        const text = readTextFile(path, 'waza task file', { utf8: 'strict' });
        alsoRead.push({ file, text });
        const task = parseYamlText(file, text);
        const t = task.value;
        const prompt = isPlainObject(t) && isPlainObject(t.inputs) ? t.inputs.prompt : undefined;
        if (typeof prompt !== 'string' || prompt.trim() === '')
          throw new InputError(
            task.problem(
              isPlainObject(t) && isPlainObject(t.inputs) ? ['inputs'] : [],
              'the task has no inputs.prompt',
              'write inputs: { prompt: the task as a user would ask it }',
            ),
          );
        const id =
          isPlainObject(t) && (typeof t.id === 'string' || typeof t.id === 'number')
            ? idPart(t.id)
            : idPart(shown.replace(/\.ya?ml$/i, ''));
        cases.push({
          at: ['tasks', i],
          fields: mcp.mcp ? { mcp: ['config', 'mcp_servers'] } : {},
          id: `${skill}-${id}`,
          prompt,
          expect: { skill },
          tags: [],
          ...mcp,
        });
        for (const k of Object.keys(t as object).filter((k) => !['id', 'name', 'description', 'inputs'].includes(k)))
          uncarried.push({ at: ['tasks', i], what: `${shown}: "${k}"` });
      }
    });
    const byId = new Map<string, ImportedCase>();
    for (const c of cases) {
      if (byId.has(c.id)) throw new InputError(y.problem(c.at, `two task files have the id "${c.id}"`, 'give every task its own id'));
      byId.set(c.id, c);
    }
    return { format: 'waza-eval', cases, repeats: [], uncarried, src: y, alsoRead };
  },
};
