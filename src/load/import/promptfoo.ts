/**
 * promptfoo configs that test a skill: `tests: [{description, vars, assert: [{type: skill-used, value: <skill>}]}]`
 * (or `not-skill-used`), the prompt one inline template (`prompts: ['{{request}}']`) filled from each test's vars.
 * A `skill-used` test expects the skill, a `not-skill-used` one says it must not fire; `llm-rubric` assertions become
 * `expect.judge` items; a test with neither skill assertion, and every other assertion, is named as not carried.
 * A template that dumps a list of chat messages (`{{ messages | dump }}`, each `{role, content}` or `{user: …}`) is a
 * conversation: its last message, the user's, is the prompt, the turns before it the case's `history`. The MCP servers
 * its provider is granted (`config.mcp`) are each case's `mcp`. A template replaying its thread (`_conversation`) is
 * read for each thread's first test, with no earlier turn; a later test of a thread is named as not carried.
 */
import { isPlainObject } from '../../util/json.js';
import { InputError, ProblemList } from '../../util/input-error.js';
import type { HistoryTurn } from '../conversation.js';
import type { LocatedYaml } from '../yaml-file.js';
import { promptfooMcp } from './promptfoo-mcp.js';
import {
  idPart,
  kindOf,
  skillNamed,
  type ImportContext,
  type ImportedCase,
  type Importer,
  type ImportNote,
  type SourcePath,
  settledCases,
} from './format.js';

const SKILL_ASSERTIONS = ['skill-used', 'not-skill-used'];
const SHAPE = 'a promptfoo config whose tests assert skill-used or not-skill-used, with one inline prompt template';

const asList = (v: unknown): unknown[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The skill an assertion names, as its folder name: `plugin:skill` names its last part when the whole names no skill. */
function assertedSkill(ctx: ImportContext, value: string): string {
  const whole = skillNamed(ctx, value);
  return whole !== value || !value.includes(':') ? whole : skillNamed(ctx, value.split(':').at(-1)!);
}

/** The template filled from `vars`, or the name of a variable it uses that `vars` lacks. */
function filled(template: string, vars: Record<string, unknown>): { text: string } | { missing: string } {
  let missing: string | undefined;
  const text = template.replace(/\{\{\s*([A-Za-z_][\w.]*)\s*\}\}/g, (_, name: string) => {
    const v = vars[name];
    if (v === undefined || isPlainObject(v) || Array.isArray(v)) missing ??= name;
    return String(v ?? '');
  });
  return missing === undefined ? { text } : { missing };
}

/** The variable a template dumps whole (`{{ messages | dump }}`): a chat template, filled with a list of messages. */
const dumpedVariable = (template: string) => /^\s*\{\{\s*([A-Za-z_]\w*)\s*\|\s*dump\s*\}\}\s*$/.exec(template)?.[1];

/**
 * A template that replays the earlier turns of its thread (`{% for turn in _conversation %}…{% endfor %}`, or
 * `{{ _conversation }}`), as promptfoo renders it for a thread's first test: with no earlier turn.
 */
function firstTurnTemplate(template: string): string | undefined {
  if (!/\b_conversation\b/.test(template)) return undefined;
  return template
    .replace(/\{%-?\s*for\s+\w+\s+in\s+_conversation\s*-?%\}[\s\S]*?\{%-?\s*endfor\s*-?%\}/g, '')
    .replace(/\{\{[^}]*\b_conversation\b[^}]*\}\}/g, '')
    .trim();
}

/** The thread a test belongs to: its `metadata.conversationId`, else the one thread of every test without one. */
const threadOf = (t: Record<string, unknown>) =>
  isPlainObject(t.metadata) && (typeof t.metadata.conversationId === 'string' || typeof t.metadata.conversationId === 'number')
    ? String(t.metadata.conversationId)
    : undefined;

/** A chat message as promptfoo writes it, `{role, content}` or `{<role>: content}`: its role and text, or undefined. */
function message(m: unknown): { role: string; text: string } | undefined {
  if (!isPlainObject(m)) return undefined;
  if (typeof m.role === 'string' && typeof m.content === 'string') return { role: m.role, text: m.content };
  const [entry, ...more] = Object.entries(m);
  return entry && more.length === 0 && typeof entry[1] === 'string' ? { role: entry[0], text: entry[1] } : undefined;
}

/**
 * A test's conversation: its last message, the user's, the prompt; the user's and assistant's turns before it the
 * history (a system message is named as not carried). Undefined with the problem added when a message is of another shape.
 */
function conversation(
  y: LocatedYaml,
  at: SourcePath,
  messages: unknown[],
  name: string,
  uncarried: ImportNote[],
  problems: ProblemList,
): { prompt: string; promptAt: SourcePath; history: HistoryTurn[] } | undefined {
  const history: HistoryTurn[] = [];
  const read = messages.map((m, j) => ({ m: message(m), at: [...at, j] }));
  const wrong = read.find((r) => !r.m || !['user', 'assistant', 'system'].includes(r.m.role));
  if (wrong) {
    problems.add(
      y.problem(wrong.at, `${name}: a message is not {role: user|assistant|system, content: text}`, 'write it as {role: user, content: …}'),
    );
    return undefined;
  }
  const last = read.at(-1);
  if (!last || last.m!.role !== 'user') {
    problems.add(
      y.problem(last?.at ?? at, `${name}: the conversation does not end with the user's message`, "end it with the user's request"),
    );
    return undefined;
  }
  for (const { m, at: mAt } of read.slice(0, -1)) {
    if (m!.role === 'system')
      uncarried.push({ at: mAt, what: `${name}: a system message (a case's history holds the user's and assistant's turns)` });
    else history.push(m!.role === 'user' ? { user: m!.text } : { assistant: m!.text });
  }
  return { prompt: last.m!.text, promptAt: last.at, history };
}

export const promptfooConfig: Importer = {
  name: 'promptfoo',
  shape: SHAPE,
  reads: ['tree'],
  recognises: (value) =>
    isPlainObject(value) &&
    Array.isArray(value.tests) &&
    [...value.tests, value.defaultTest].some(
      (t) => isPlainObject(t) && asList(t.assert).some((a) => isPlainObject(a) && SKILL_ASSERTIONS.includes(a.type as string)),
    ),
  read(value, src, ctx) {
    const y = src as LocatedYaml;
    const config = value as Record<string, unknown>;
    const prompts = asList(config.prompts);
    const template = prompts.length === 1 && typeof prompts[0] === 'string' && !prompts[0].startsWith('file://') ? prompts[0] : undefined;
    if (template === undefined)
      throw new InputError(
        y.problem(
          ['prompts'],
          `"prompts" is ${prompts.length === 1 ? `${kindOf(prompts[0])}${typeof prompts[0] === 'string' ? ' naming a file' : ''}` : `${prompts.length} prompts`}, where skillprobe reads one inline template`,
          "write the request's template inline, like prompts: ['{{request}}'], and each request in its test's vars",
        ),
      );
    const defaults = isPlainObject(config.defaultTest) ? config.defaultTest : {};
    const defaultVars = isPlainObject(defaults.vars) ? defaults.vars : {};
    const problems = new ProblemList();
    const uncarried: ImportNote[] = [];
    const cases: ImportedCase[] = [];
    const mcp = promptfooMcp(y, asList(config.providers), uncarried, problems);
    const chat = dumpedVariable(template);
    const firstTurn = firstTurnTemplate(template);
    // A thread's first test, by thread: its later tests answer replies the model gave, which no case can write down.
    const threads = new Map<string | undefined, number>();
    (config.tests as unknown[]).forEach((t, i) => {
      const at = ['tests', i];
      const name = `test ${i + 1}`;
      if (!isPlainObject(t))
        return problems.add(
          y.problem(at, `${name} is ${kindOf(t)}, not an object`, 'write {vars: {…}, assert: [{type: skill-used, value: <skill>}]}'),
        );
      if (firstTurn !== undefined) {
        const thread = threadOf(t);
        const first = threads.get(thread);
        if (first !== undefined)
          return uncarried.push({
            at,
            what: `${name}: a later turn of ${thread === undefined ? 'its thread' : `conversation "${thread}"`} (after test ${first + 1}, through \`_conversation\`): the replies before it are the model's own, where a case's history is written down, and promptfoo sends it whatever the model did, where a follow-up is sent only after a turn that did not act`,
          });
        threads.set(thread, i);
      }
      const asserts = [
        ...asList(defaults.assert).map((a, j) => ({ a, at: ['defaultTest', 'assert', j] })),
        ...asList(t.assert).map((a, j) => ({ a, at: [...at, 'assert', j] })),
      ];
      const skillAsserts = asserts.filter(({ a }) => isPlainObject(a) && SKILL_ASSERTIONS.includes(a.type as string));
      if (skillAsserts.length !== 1) {
        if (skillAsserts.length === 0)
          uncarried.push({ at, what: `${name}: it asserts neither skill-used nor not-skill-used, so it is no trigger case` });
        else
          problems.add(
            y.problem(
              skillAsserts[1]!.at,
              `${name} asserts which skill is used ${skillAsserts.length} times`,
              'keep one skill-used or not-skill-used assertion a test',
            ),
          );
        return;
      }
      const { a, at: assertAt } = skillAsserts[0]! as { a: Record<string, unknown>; at: (string | number)[] };
      if (typeof a.value !== 'string' || a.value.trim() === '')
        return problems.add(
          y.problem(
            [...assertAt, 'value'],
            `${name}: the ${a.type as string} assertion names ${kindOf(a.value)}`,
            'name one skill, like value: my-skill',
          ),
        );
      const vars = { ...defaultVars, ...(isPlainObject(t.vars) ? t.vars : {}) };
      // A chat template's list of messages is a conversation; any other value fills the template as text.
      const messages = chat === undefined ? undefined : vars[chat];
      const messagesAt = isPlainObject(t.vars) && chat! in t.vars ? [...at, 'vars', chat!] : ['defaultTest', 'vars', chat!];
      const talk = Array.isArray(messages) ? conversation(y, messagesAt, messages, name, uncarried, problems) : undefined;
      if (Array.isArray(messages) && !talk) return;
      const prompt = talk ? { text: talk.prompt } : filled(firstTurn ?? template, vars);
      if ('missing' in prompt)
        return problems.add(
          y.problem(
            [...at, 'vars'],
            `${name}: the prompt template uses {{${prompt.missing}}}, which its vars do not give as text`,
            `add ${prompt.missing}: the request, to its vars`,
          ),
        );
      if (prompt.text.trim() === '')
        return problems.add(y.problem([...at, 'vars'], `${name}: the prompt is empty`, 'write the request in its vars'));
      const judge: string[] = [];
      for (const { a: other, at: otherAt } of asserts.filter((x) => x !== skillAsserts[0])) {
        if (isPlainObject(other) && other.type === 'llm-rubric' && typeof other.value === 'string' && other.value.trim() !== '')
          judge.push(other.value.trim());
        else uncarried.push({ at: otherAt, what: `${name}: the ${isPlainObject(other) ? String(other.type) : kindOf(other)} assertion` });
      }
      const skill = assertedSkill(ctx, a.value);
      const positive = a.type === 'skill-used';
      cases.push({
        at,
        fields: {
          expect: [...assertAt, 'value'],
          prompt: talk?.promptAt ?? [...at, 'vars'],
          id: [...at, 'description'],
          ...(talk?.history.length ? { history: messagesAt } : {}),
          ...(mcp ? { mcp: mcp.at } : {}),
        },
        id:
          typeof t.description === 'string' && idPart(t.description).replace(/-/g, '') !== ''
            ? idPart(t.description)
            : `${skill}-test-${i + 1}`,
        prompt: prompt.text,
        expect: positive ? { skill, ...(judge.length ? { judge } : {}) } : { not: skill },
        tags: [],
        ...(talk?.history.length ? { history: talk.history } : {}),
        ...(mcp ? { mcp: mcp.servers } : {}),
      });
      if (!positive && judge.length)
        uncarried.push({ at, what: `${name}: its llm-rubric assertions (a not-skill-used case is judged on triggering only)` });
    });
    problems.throwIfAny();
    if (cases.length === 0) throw new InputError(y.problem(['tests'], 'no test asserts skill-used or not-skill-used', `write ${SHAPE}`));
    const { kept, repeats } = settledCases(cases, y, problems, {
      ids: { entry: 'test', key: 'description' },
      repeats: {
        noun: 'prompt',
        field: 'expectation',
        answer: (c) => ('skill' in c.expect ? `skill-used ${c.expect.skill}` : `not-skill-used ${c.expect.not}`),
      },
    });
    return { format: 'promptfoo', cases: kept, repeats, uncarried, src: y };
  },
};
