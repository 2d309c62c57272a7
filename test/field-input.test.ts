import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codex } from '../src/agents/codex/adapter.js';
import { loadCases } from '../src/load/cases.js';
import { loadSkills } from '../src/load/skills.js';
import { checkContext } from '../src/runner/suite-checks.js';
import { ProblemList } from '../src/util/input-error.js';
import { collectConfig, loadConfig } from '../src/load/config.js';
import { configContexts, loadContextSuites } from '../src/runner/load-suite.js';
import { configSchema } from '../src/run/config-schema.js';
import { resumeChanges } from '../src/runner/resume.js';
import { baseProject, cleanup, makeProject, runInProcess, type Files } from './helpers.js';
import { handMadeManifest, syntheticRun } from './run-fixtures.js';
import { drift } from '../src/verdict/compare.js';
import type { RunToCompare } from '../src/verdict/comparison.js';

const dirs: string[] = [];
afterAll(() => cleanup(...dirs));

const project = (change: (f: Files) => void = () => {}) => {
  const files = { ...baseProject(), 'sim.yaml': 'rules: []\n' };
  change(files);
  const dir = makeProject(files);
  dirs.push(dir);
  return dir;
};

/** A bad-input row: what it is, the project, the flags, where the one line must point, and what it must say. */
type BadInput = [name: string, make: () => string, args: readonly string[], where: RegExp, says: RegExp];

describe('context: bad input is one line naming where, exit 2, nothing spawned', () => {
  it.each<BadInput>([
    ['`--context` misspelled', () => project(), ['--context', 'feild'], /--context/, /lab, field/],
    [
      '`context` misspelled in the config',
      () => project((f) => void (f['skillprobe.config.yaml'] = 'trials: 1\ncontext: feild\n')),
      [],
      /skillprobe\.config\.yaml:2:\d+/,
      /`context` is "feild" — use one of "lab", "field"/,
    ],
    [
      '`context` misspelled in a case',
      () => project((f) => void (f['cases/main.yaml'] += '- id: odd\n  prompt: "x"\n  expect: { skill: none }\n  context: outside\n')),
      [],
      /cases\/main\.yaml:11:\d+/,
      /`context` is "outside" — use one of "lab", "field"/,
    ],
    [
      'a list of contexts in a case',
      () => project((f) => void (f['cases/main.yaml'] += '- id: odd\n  prompt: "x"\n  expect: { skill: none }\n  context: [lab, field]\n')),
      [],
      /cases\/main\.yaml:11:\d+/,
      /names a list, and a case runs in one context — .*put `context: \[lab, field\]` in skillprobe\.config\.yaml or run with --context lab,field/,
    ],
    [
      'a context named twice in the config',
      () => project((f) => void (f['skillprobe.config.yaml'] = 'trials: 1\ncontext: [lab, lab]\n')),
      [],
      /skillprobe\.config\.yaml:2:\d+/,
      /names a context twice — name each of lab and field once/,
    ],
    [
      "a misspelled context in the config's list",
      () => project((f) => void (f['skillprobe.config.yaml'] = 'trials: 1\ncontext: [lab, feild]\n')),
      [],
      /skillprobe\.config\.yaml:2:\d+/,
      /"feild" — use one of "lab", "field"/,
    ],
    ...(
      [
        [['--last-failed'], '--last-failed'],
        [['--agent', 'claude-code,codex'], '--agent'],
      ] as const
    ).map(
      ([flags, file]) =>
        [
          `the config's context: [lab, field] with ${file}, as --context lab,field is`,
          () => project((f) => void (f['skillprobe.config.yaml'] = 'trials: 1\ncontext: [lab, field]\n')),
          [...flags],
          new RegExp(`^skillprobe: ${file}: `),
          /, and `context: \[lab, field\]` in skillprobe\.config\.yaml runs two — /,
        ] satisfies BadInput,
    ),
    [
      // A resumed run goes on as it ran (a lab,field folder says so in its agents.json): the config's list is not asked.
      "the config's context: [lab, field] beside --resume: only the folder is checked",
      () => project((f) => void (f['skillprobe.config.yaml'] = 'trials: 1\ncontext: [lab, field]\n')),
      ['--resume', 'runs/x'],
      /^skillprobe: runs\/x: no such run folder/m,
      /^(?![\s\S]*runs two)/,
    ],
    [
      "the config's context: [lab, field] with two agents in the config",
      () => project((f) => void (f['skillprobe.config.yaml'] = 'trials: 1\ncontext: [lab, field]\nagents: [claude-code, codex]\n')),
      [],
      /^skillprobe: agents: /,
      /`context: \[lab, field\]` in skillprobe\.config\.yaml runs one agent in both contexts, and the config names 2 agents/,
    ],
  ])('%s', async (_, make, args, where, says) => {
    const dir = make();
    const r = await runInProcess(['run', '--sim', 'sim.yaml', '--transcripts', 'runs', ...args], { cwd: dir });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(where);
    expect(r.stderr).toMatch(says);
  });

  it('a case in the field with an agent whose refusal of acting calls is not measured is refused where it asks', () => {
    // Every shipped agent runs the field: an agent without it (a new CLI, before its refusal is measured) is a stub.
    const lab = { ...codex, contexts: ['lab'] as const };
    const dir = project(
      (f) => void (f['cases/main.yaml'] += '- id: fielded\n  prompt: "x"\n  expect: { skill: none }\n  context: field\n'),
    );
    const loaded = { config: configSchema.parse({}), cwd: dir, fellBack: new Set<string>(), where: () => undefined };
    const suite = loadCases(join(dir, 'cases/*.yaml'), loadSkills(join(dir, 'skills')), loaded.config.decision);
    const problems = new ProblemList();
    checkContext(loaded, lab, suite, problems);
    expect(problems.items).toHaveLength(1);
    expect(problems.items[0]).toMatchObject({ line: 8, what: expect.stringMatching(/Codex CLI cannot run trials in the field yet/) });
    expect(problems.items[0]!.file).toMatch(/cases\/main\.yaml$/);
    const none = new ProblemList();
    checkContext(loaded, codex, suite, none);
    expect(none.items).toEqual([]);
  });

  it('rejudge refuses --context: a judge runs with no tool, in no context', async () => {
    const r = await runInProcess(['rejudge', 'runs/x', '--context', 'field'], { cwd: project() });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--context: a judge's requests run with no tool at all/);
  });
});

describe('context: [lab, field] in the config is --context lab,field', () => {
  const resolved = (dir: string, context?: string) => {
    const problems = new ProblemList();
    const loaded = collectConfig(undefined, { context }, problems, dir);
    return { contexts: loaded?.contexts, context: loaded?.config.context, problems: problems.items };
  };
  const withContext = (value: string) => project((f) => void (f['skillprobe.config.yaml'] = `context: ${value}\n`));

  it.each([
    ['[lab, field]', undefined, { contexts: ['lab', 'field'], context: undefined }],
    ['[field, lab]', undefined, { contexts: ['field', 'lab'], context: undefined }],
    ['[field]', undefined, { contexts: undefined, context: 'field' }],
    ['[lab]', undefined, { contexts: undefined, context: undefined }],
    ['field', undefined, { contexts: undefined, context: 'field' }],
    // The command line overrides the config: one context named there is one run.
    ['[lab, field]', 'field', { contexts: undefined, context: 'field' }],
    ['[lab, field]', 'lab', { contexts: undefined, context: undefined }],
  ])('context: %s with --context %s', (value, flag, expected) => {
    expect(resolved(withContext(value), flag)).toEqual({ ...expected, problems: [] });
  });

  it('names the config file as where both were asked for, and none when --context names one', () => {
    const dir = withContext('[lab, field]');
    expect(configContexts({ cwd: dir, overrides: {} })).toEqual({
      contexts: ['lab', 'field'],
      from: '`context: [lab, field]` in skillprobe.config.yaml',
    });
    expect(configContexts({ cwd: dir, overrides: { context: 'field' } })).toBeUndefined();
    expect(configContexts({ cwd: withContext('field'), overrides: {} })).toBeUndefined();
  });

  it('loads the suite once per context, each run storing its one context, a case’s own set aside', () => {
    const dir = project((f) => {
      f['skillprobe.config.yaml'] = 'context: [lab, field]\n';
      f['cases/main.yaml'] += '- id: fielded\n  prompt: "x"\n  expect: { skill: none }\n  context: field\n';
    });
    const opts = { cwd: dir, sim: 'sim.yaml', overrides: {}, callerEnv: { ...process.env, ANTHROPIC_API_KEY: 'dummy' } };
    const from = configContexts(opts)!;
    const suites = loadContextSuites(opts, from.contexts, from.from);
    expect(suites.map((s) => s.config.context)).toEqual([undefined, 'field']);
    expect(suites.flatMap((s) => s.suite.cases.map((c) => c.context))).toEqual(Array(6).fill(undefined));
  });
});

describe('context in run.json', () => {
  it('`lab` is no context at all, so a run naming it is the run made before contexts', () => {
    const dir = project();
    expect(loadConfig(undefined, { context: 'lab' }, dir).config).not.toHaveProperty('context');
    expect(loadConfig(undefined, { context: 'field' }, dir).config.context).toBe('field');
  });

  it('a resume that changes the context is refused, naming it', () => {
    const lab = handMadeManifest([], 1, { config: configSchema.parse({}) });
    const field = handMadeManifest([], 1, { config: configSchema.parse({ context: 'field' }) });
    expect(resumeChanges(lab, field, undefined)).toEqual(['config (context)']);
    expect(resumeChanges(lab, handMadeManifest([], 1, { config: configSchema.parse({}) }), undefined)).toEqual([]);
  });
});

describe('compare names a change of context', () => {
  const inField = (run: RunToCompare, ids: string[]): RunToCompare => ({
    ...run,
    manifest: {
      ...run.manifest,
      cases: {
        ...run.manifest.cases,
        defs: run.manifest.cases.defs.map((c) => (ids.includes(c.id) ? { ...c, context: 'field' as const } : c)),
      },
    },
  });
  const lab = () => syntheticRun({ a: { passes: 9, n: 10 }, b: { passes: 9, n: 10 } });

  it.each([
    ['lab against the field', [], ['a', 'b'], { base: 'lab', candidate: 'field', differs: true }],
    ['one case moved to the field', [], ['a'], { base: 'lab', candidate: 'field for 1 of 2 cases, lab for the rest', differs: true }],
    ['the field on both sides', ['a', 'b'], ['a', 'b'], { base: 'field', candidate: 'field', differs: false }],
  ])('%s', (_, base, candidate, expected) => {
    expect(drift(inField(lab(), base), inField(lab(), candidate)).facts.find((f) => f.name === 'context')).toEqual({
      name: 'context',
      ...expected,
    });
  });

  it('two lab runs show no context fact (as before contexts)', () => {
    expect(drift(lab(), lab()).facts.map((f) => f.name)).not.toContain('context');
  });
});
