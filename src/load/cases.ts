import { createHash } from 'node:crypto';
import { dirname, relative, sep } from 'node:path';
import { globSync } from 'tinyglobby';
import { z } from 'zod';
import { authoredChecksSchema, authoredExpectFields, checkProblems } from '../checks/registry.js';
import { decisionProblem, resolveDecision } from './decision.js';
import {
  caseContextSchema,
  decisionParamsSchema,
  fixtureFilesSchema,
  instructionsSchema,
  mcpServersSchema,
  type DecisionConfig,
} from '../run/config-schema.js';
import { splitProblem } from './config.js';
import { InputError, ProblemList, type InputProblem } from '../util/input-error.js';
import { fromFolder } from '../util/paths.js';
import { caseFixtures, readFixtureFiles, readInstructions, suiteFixturesHash, type CaseFixtures, type SuiteFixtures } from './fixtures.js';
import { caseNeighbours, caseNeighboursHash } from './neighbours.js';
import { conversationProblems, followUpsSchema, historySchema } from './conversation.js';
import { loadMcpServers, type McpServer } from './mcp.js';
import { NO_SKILL, type Skill } from './skills.js';
import type { FamilyMember, ImportedCase, ImportedSet, Located } from './import/format.js';
import { isImportFile, isImportTree, readImport } from './import/registry.js';
import { parseYamlText, readTextFile, validateYaml, type LocatedYaml } from './yaml-file.js';

/** What cases are checked against: each skill's folder and frontmatter name (and its folder's path, when it loaded). */
type FamilyNames = readonly FamilyMember[];

/** A note on an imported file, where it was written. */
export type ImportNoteAt = Pick<InputProblem, 'file' | 'line' | 'col' | 'what'>;

/** Where a case's fields were written: a YAML case file's own paths, or an imported file's entry. */
type CaseLocator = Located;

/** An imported case's locator: `[_, field, …]` is where the entry wrote that field, else the entry itself. */
function importedLocator(src: Located, c: ImportedCase): CaseLocator {
  const inSource = (path: readonly (string | number)[]) => {
    const field = path[1] as keyof ImportedCase['fields'] | 'expect' | undefined;
    return (field !== undefined && c.fields[field as keyof ImportedCase['fields']]) || c.at;
  };
  return { problem: (path, what, todo) => src.problem(inSource(path), what, todo), locate: (path) => src.locate(inSource(path)) };
}

export { NO_SKILL };

/** Linux's limit on one argument (MAX_ARG_STRLEN), its terminating NUL included: the prompt is passed as one. */
const MAX_ARG_BYTES = 128 * 1024;
/** The longest file name: a case's id names its folder in the run folder. */
const MAX_NAME_BYTES = 255;

/** The splits `tune` divides cases into: tuned on, chosen by, and held out to judge the chosen description. */
export const TUNE_SPLITS = ['tune', 'select', 'holdout'] as const;
export type TuneSplit = (typeof TUNE_SPLITS)[number];

/**
 * `skill`: what should fire (a family member, or `none`: no skill may); `not`: a member that must not fire, its
 * siblings free to take the request; `judge`: yes/no rubric items a model judges of what the assistant wrote. One of
 * `skill` and `not`; a `not` case is negative, so it reads as `skill: none` with `not` beside it.
 */
const expectSchema = z
  .object({
    skill: z.string().min(1).optional(),
    not: z.string().min(1).optional(),
    /** The user turn the skill must fire by (the prompt is turn 1, each follow-up sent the next). */
    by: z.number().int().min(1, 'by is a user turn, 1 or more (the prompt is turn 1)').optional(),
    ...authoredExpectFields,
  })
  .strict()
  .superRefine((e, ctx) => {
    const todo = `write \`skill: <skill>\` (it should fire), \`skill: ${NO_SKILL}\` (no skill may) or \`not: <skill>\` (that one must not, its siblings may)`;
    if (e.skill === undefined && e.not === undefined) ctx.addIssue({ code: z.ZodIssueCode.custom, message: `names no skill — ${todo}` });
    if (e.skill !== undefined && e.not !== undefined)
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: `has both \`skill\` and \`not\` — keep one: ${todo}` });
  })
  .transform(({ skill, not, ...checks }) => ({ ...checks, skill: skill ?? NO_SKILL, ...(not !== undefined ? { not } : {}) }));

export const caseSchema = z
  .object({
    id: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'id may hold only letters, digits, `.`, `_` and `-` — rename it (it becomes a folder name)'),
    prompt: z.string(),
    expect: expectSchema,
    tags: z.array(z.string().min(1)).default([]),
    /** Trap cases: the sibling(s) this prompt is built to be mistaken for (lint checks every pair has a trap each way). */
    against: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
      .transform((v) => (Array.isArray(v) ? v : [v]))
      .optional(),
    /** A positive case passes only if no other family member fired as well. */
    exclusive: z.boolean().default(false),
    /** `false`: this case's trials run to the end of their turn, though their outcome was settled before (over the config's `settle`). */
    settle: z.boolean().optional(),
    /** Command prefix for this case's plans (overrides the config's `commands`). */
    command: z.string().min(1).optional(),
    /** Decision overrides for this case (threshold, delta, alpha, beta, minTrials, maxTrials). */
    decision: decisionParamsSchema.optional(),
    plan: authoredChecksSchema.strict().optional(),
    /** Where this case's trials run (`lab` or `field`), over the config's `context`. */
    context: caseContextSchema.optional(),
    /** Pins the case to one of `tune`'s splits (else `tune` assigns it). */
    split: z.enum(TUNE_SPLITS).optional(),
    /** The user's files this case's workspace holds besides the suite's `workspace` (one of the same path replaces it). */
    files: z.union([fixtureFilesSchema, z.array(z.string().min(1)).min(1)]).optional(),
    /** The project's instruction file for this case, in place of the suite's. */
    instructions: instructionsSchema.optional(),
    /** A folder of more of the user's other skills (relative to the case file), listed in this case's trials beside the suite's. */
    neighbours: z.string().min(1).optional(),
    /** Earlier turns the trial starts from (`- user: …`, `- assistant: …`): context the model sees, never graded. */
    history: historySchema.optional(),
    /** Scripted user replies, sent in order when the assistant ends a turn without a skill firing or acting. */
    followUps: followUpsSchema.optional(),
    /** MCP servers offered in this case's trials beside the config's (relative paths: to the case file). */
    mcp: mcpServersSchema.optional(),
  })
  .strict();

export const casesFileSchema = z
  .array(caseSchema)
  .min(1, 'the file holds no cases — add at least one case (a YAML list of `- id: …` items)');

export type Case = z.output<typeof caseSchema> & {
  /** Where the case was written, for messages. */
  source: { file: string; line: number; at: Record<'id' | 'prompt', { line: number; col: number }> };
  /** The user's files its workspace holds (the suite's and its own), when it has any. */
  fixtures?: CaseFixtures;
  /** The skills of its own `neighbours` folder, loaded: installed in its trials beside the suite's neighbours. */
  neighbourSkills?: Skill[];
  /** The MCP servers its trials are offered: the config's, then its own; absent when none. */
  mcpServers?: McpServer[];
};

/** The config's MCP servers, which every case's trials are offered, and the PATH a real server's command is found on. */
export interface SuiteMcp {
  servers: readonly McpServer[];
  searchPath?: string;
}

export interface CaseSuite {
  cases: Case[];
  files: string[];
  /** sha256 over the case files' bytes. */
  hash: string;
  /** sha256 over every case's fixtures (`suiteFixturesHash`); absent when no case has any. */
  fixturesHash?: string;
  /** What imported files (an evals.json object, …) hold that their cases do not carry, each where it was written. */
  uncarried?: ImportNoteAt[];
  /** sha256 over every case's own neighbours (`suiteNeighboursHash`); absent when no case has any. */
  neighboursHash?: string;
}

/** A case's fixtures: the suite's, with its own `files` and `instructions` (relative to its file) read over them. */
function fixturesOf(
  c: z.output<typeof caseSchema>,
  i: number,
  file: { name: string; path: string },
  y: CaseLocator,
  from: SuiteFixtures,
  problems: ProblemList,
) {
  const place = (key: 'files' | 'instructions') => ({
    base: dirname(file.path),
    roots: from.roots,
    cwd: from.cwd,
    seal: from.seal,
    locate: (entry?: string) => ({ file: file.name, ...y.locate([i, key, ...(entry === undefined ? [] : [entry])]) }),
  });
  const own = {
    files: c.files === undefined ? [] : readFixtureFiles(c.files, place('files'), problems),
    ...(c.instructions === undefined ? {} : { instructions: readInstructions(c.instructions, place('instructions'), problems) }),
  };
  return caseFixtures(from.suite, own, { file: file.name, ...y.locate([i, c.files === undefined ? 'id' : 'files']) }, problems);
}

function checkCase(
  c: z.output<typeof caseSchema>,
  index: number,
  y: CaseLocator,
  skills: FamilyNames,
  decision: DecisionConfig,
  problems: ProblemList,
  maxTurns?: number,
): void {
  const bad = decisionProblem(resolveDecision(decision, c.tags, c.decision), decision.mode);
  if (bad) {
    const at = c.decision ? [index, 'decision'] : c.tags.some((t) => decision.tags[t]) ? [index, 'tags'] : [index, 'id'];
    problems.add(y.problem(at, ...splitProblem(`case "${c.id}": ${bad}`)));
  }
  const known = new Set(skills.flatMap((s) => [s.dir, s.name]));
  if (c.prompt.trim() === '') {
    problems.add(y.problem([index, 'prompt'], `case "${c.id}" has an empty prompt`, 'write the request as a user would type it'));
  }
  const promptBytes = Buffer.byteLength(c.prompt);
  if (c.prompt.includes('\0')) {
    problems.add(
      y.problem(
        [index, 'prompt'],
        `case "${c.id}": the prompt holds a NUL character, which no program can receive in an argument`,
        'remove it',
      ),
    );
  } else if (promptBytes >= MAX_ARG_BYTES) {
    problems.add(
      y.problem(
        [index, 'prompt'],
        `case "${c.id}": the prompt is ${promptBytes} bytes, but one argument to a program holds at most ${MAX_ARG_BYTES - 1} (Linux)`,
        'shorten it',
      ),
    );
  }
  const idBytes = Buffer.byteLength(c.id);
  if (idBytes > MAX_NAME_BYTES) {
    problems.add(
      y.problem(
        [index, 'id'],
        `case id is ${idBytes} bytes, but it names a folder and file names hold at most ${MAX_NAME_BYTES}`,
        'shorten it',
      ),
    );
  }
  const slash = /^\s*\/([A-Za-z0-9:_-]+)/.exec(c.prompt);
  if (slash) {
    problems.add(
      y.problem(
        [index, 'prompt'],
        `case "${c.id}" starts with "/${slash[1]}", which the CLI expands before the model sees it, so nothing is tested`,
        'phrase the prompt as a request in words',
      ),
    );
  }
  if (c.expect.not !== undefined && !known.has(c.expect.not)) {
    problems.add(
      y.problem(
        [index, 'expect', 'not'],
        `case "${c.id}" says skill "${c.expect.not}" must not fire, but it is not in the skills folder`,
        `use one of ${[...known].sort().join(', ')}`,
      ),
    );
  }
  if (c.expect.skill !== NO_SKILL && !known.has(c.expect.skill)) {
    problems.add(
      y.problem(
        [index, 'expect', 'skill'],
        `case "${c.id}" expects skill "${c.expect.skill}", which is not in the skills folder`,
        `use one of ${[...known].sort().join(', ')}, or "${NO_SKILL}" for a negative case`,
      ),
    );
  }
  c.against?.forEach((other, j) => {
    const at = [index, 'against', ...(c.against!.length > 1 ? [j] : [])];
    if (!known.has(other))
      problems.add(
        y.problem(
          at,
          `case "${c.id}" is a trap against "${other}", which is not in the skills folder`,
          `use one of ${[...known].sort().join(', ')}`,
        ),
      );
    else if (other === c.expect.skill)
      problems.add(y.problem(at, `case "${c.id}" is a trap against the skill it expects`, 'name the sibling it could be mistaken for'));
  });
  if (c.plan && c.expect.skill === NO_SKILL) {
    problems.add(y.problem([index, 'plan'], `case "${c.id}" is negative but has plan checks`, 'remove `plan`, or expect a skill'));
  }
  if (c.plan) for (const p of checkProblems(c.plan)) problems.add(y.problem([index, 'plan', ...p.at], p.what, p.todo));
  for (const p of conversationProblems(c, c.expect.skill === NO_SKILL, maxTurns, (at, what, todo) => y.problem([index, ...at], what, todo)))
    problems.add(p);
}

/**
 * Each of an imported file's cases as a case file's, its `files` relative to `folder` (where the case file would be),
 * located at its entry; a case the schema refuses is a problem there.
 */
function eachImportedCase(
  set: ImportedSet,
  folder: string,
  problems: ProblemList,
  use: (c: z.output<typeof caseSchema>, at: CaseLocator) => void,
): void {
  for (const c of set.cases) {
    const at = importedLocator(set.src, c);
    const parsed = caseSchema.safeParse(importedCaseFields(c, folder));
    if (parsed.success) use(parsed.data, at);
    else
      for (const issue of parsed.error.issues)
        problems.add(
          at.problem([0, ...issue.path.slice(issue.path[0] === 'expect' ? 1 : 0)], `case "${c.id}": ${issue.message}`, 'fix the entry'),
        );
  }
}

/** An imported case as a case file writes it: its files relative to `folder`. */
export function importedCaseFields(c: ImportedCase, folder: string) {
  return {
    id: c.id,
    prompt: c.prompt,
    expect: c.expect,
    tags: c.tags,
    ...(c.files ? { files: c.files.map((f) => relative(folder, f).split(sep).join('/')) } : {}),
    ...(c.history ? { history: c.history } : {}),
    ...(c.mcp ? { mcp: c.mcp } : {}),
  };
}

/** Refuses an imported file's cases (for `import`) with every problem loading them from `folder` would find, located in the file. */
export function checkImportedCases(set: ImportedSet, folder: string, skills: FamilyNames, decision: DecisionConfig): void {
  const problems = new ProblemList();
  eachImportedCase(set, folder, problems, (c, at) => checkCase(c, 0, at, skills, decision, problems));
  problems.throwIfAny();
}

/**
 * Loads and cross-checks every case file; every problem is reported with file:line:col. With `fixtures`, each case's
 * files are read too (the suite's, then its own); without, they are left unread (import). A case's own `neighbours`
 * are loaded and kept apart from the family and from `suiteNeighbours`. Relative patterns are taken from `cwd`, the
 * user's working folder, and the files named relative to it; without it, patterns must be absolute and the files are
 * named absolute. With `maxTurns`, a case whose conversation can take more user turns is refused.
 */
export function loadCases(
  patterns: string | string[],
  skills: FamilyNames,
  decision: DecisionConfig,
  fixtures?: SuiteFixtures,
  suiteNeighbours: readonly Skill[] = [],
  cwd?: string,
  maxTurns?: number,
  mcp: SuiteMcp = { servers: [] },
): CaseSuite {
  const list = Array.isArray(patterns) ? patterns : [patterns];
  const files = globSync(list, { cwd, absolute: cwd === undefined, onlyFiles: true, expandDirectories: false }).sort();
  if (files.length === 0) {
    throw new InputError({
      file: list.join(', '),
      what: 'no case files matched',
      todo: 'check `cases` in skillprobe.config.yaml or --cases',
    });
  }
  const problems = new ProblemList();
  const cases: Case[] = [];
  const seen = new Map<string, string>();
  const uncarried: ImportNoteAt[] = [];
  const hash = createHash('sha256');
  const neighbourFolders = new Map<string, Skill[] | undefined>();
  const add = (c: z.output<typeof caseSchema>, i: number, file: string, y: CaseLocator) => {
    const pos = y.locate([i]);
    const first = seen.get(c.id);
    if (first) {
      problems.add(y.problem([i, 'id'], `duplicate case id "${c.id}" (first defined at ${first})`, 'give every case a unique id'));
    } else {
      seen.set(c.id, `${file}:${pos.line}`);
    }
    checkCase(c, i, y, skills, decision, problems, maxTurns);
    const own = fixtures && fixturesOf(c, i, { name: file, path: fromFolder(cwd, file) }, y, fixtures, problems);
    const neighbourSkills =
      c.neighbours === undefined
        ? undefined
        : caseNeighbours(
            dirname(fromFolder(cwd, file)),
            { file, ...y.locate([i, 'neighbours']), given: c.neighbours },
            { family: skills, suite: suiteNeighbours },
            neighbourFolders,
            problems,
            cwd,
          );
    const ownMcp =
      c.mcp === undefined
        ? []
        : loadMcpServers(
            c.mcp,
            {
              base: dirname(fromFolder(cwd, file)),
              cwd,
              searchPath: mcp.searchPath,
              locate: (at) => ({ file, ...y.locate([i, 'mcp', ...at]) }),
            },
            problems,
            mcp.servers,
          );
    const mcpServers = [...mcp.servers, ...ownMcp];
    cases.push({
      ...c,
      source: { file, line: pos.line, at: { id: y.locate([i, 'id']), prompt: y.locate([i, 'prompt']) } },
      ...(own ? { fixtures: own } : {}),
      ...(neighbourSkills?.length ? { neighbourSkills } : {}),
      ...(mcpServers.length ? { mcpServers } : {}),
    });
  };
  for (const file of files) {
    const text = readTextFile(file, 'case file', { utf8: 'strict', cwd });
    hash.update(file).update('\0').update(text).update('\0');
    problems.collect(() => {
      const ctx = { file, path: fromFolder(cwd, file), skills };
      const imported = (parsed?: LocatedYaml) => {
        const set = readImport(text, ctx, parsed);
        // A change to a task or grader file is a change of the suite, as one of the file itself is.
        for (const other of set.alsoRead ?? []) hash.update(other.file).update('\0').update(other.text).update('\0');
        for (const r of set.repeats)
          problems.add(set.src.problem(r.at, r.what, 'remove it (`skillprobe import` drops repeats as it writes the cases)'));
        eachImportedCase(set, dirname(fromFolder(cwd, file)), problems, (c, at) => add(c, 0, file, at));
        uncarried.push(...set.uncarried.map((n) => ({ ...set.src.locate(n.at), file, what: `${n.what}: not carried into the cases` })));
      };
      if (isImportFile(file)) return imported();
      const y = parseYamlText(file, text);
      // A YAML case file is a list; an object of a format another tool writes (promptfoo, waza) is imported.
      if (isImportTree(y.value, ctx)) return imported(y);
      validateYaml(y, casesFileSchema, 'case').forEach((c, i) => add(c, i, file, y));
    });
  }
  problems.throwIfAny();
  const fixturesHash = suiteFixturesHash(cases);
  const neighboursHash = caseNeighboursHash(cases);
  return {
    cases,
    files,
    hash: hash.digest('hex'),
    ...(fixturesHash ? { fixturesHash } : {}),
    ...(uncarried.length ? { uncarried } : {}),
    ...(neighboursHash ? { neighboursHash } : {}),
  };
}
