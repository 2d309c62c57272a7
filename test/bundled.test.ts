import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeCode, trialEnv as claudeEnv } from '../src/agents/claude-code/adapter.js';
import { CLAUDE_BUNDLED_BY_VERSION, CLAUDE_BUNDLED_SKILLS } from '../src/agents/claude-code/field.js';
import { parseClaudeStream } from '../src/agents/claude-code/parse.js';
import { codex } from '../src/agents/codex/adapter.js';
import { CODEX_BUNDLED_SKILLS } from '../src/agents/codex/bundled.js';
import { codexConfigTable } from '../src/agents/codex/config.js';
import { codexFieldConfig, isSkillRead } from '../src/agents/codex/field.js';
import { gemini } from '../src/agents/gemini/adapter.js';
import { FIELD_REFUSAL } from '../src/agents/field-refusal.js';
import { listingProblem } from '../src/agents/init-isolation.js';
import type { AgentAdapter } from '../src/agents/types.js';
import { gradeTrial, offeredNeighbours, type GradeOptions } from '../src/grade/outcome.js';
import type { GradableCase, TrialMeta } from '../src/run/schema.js';
import { confusionMatrix } from '../src/stats/summary.js';
import { configSchema } from '../src/run/config-schema.js';
import { listingKey, probeArmListings, type TrialContext } from '../src/runner/trial.js';
import { WorkspacePool } from '../src/workspace/pool.js';
import { parse as parseToml } from 'smol-toml';
import { ClaudeStream } from './claude-stream.js';
import { baseProject, cleanup, makeProject, runInProcess, skillMd, spyBinary, testEnv, type Files } from './helpers.js';
import { trialMeta } from './run-fixtures.js';

/**
 * The field lists each CLI's bundled skills beside the family, as a default session does: the field's listing check
 * accepts exactly them beyond the family and the declared neighbours, a firing of one is graded as going to a
 * neighbour (never `other`), and the lab is as it was.
 */

const DECISION = { threshold: 0.9, delta: 0.1, alpha: 0.05, beta: 0.2, minTrials: 5, maxTrials: 50 };
const CHART = { dir: 'csv-chart', name: 'csv-chart' };
const PDF = { dir: 'pdf-tool', name: 'pdf-tool' };
const caseIn = (context: 'lab' | 'field', expect = 'csv-chart'): GradableCase => ({
  id: 'c',
  expect,
  exclusive: false,
  tags: [],
  decision: DECISION,
  ...(context === 'field' ? { context } : {}),
});
const options = (adapter: AgentAdapter, family = [CHART], neighbours = [PDF]): GradeOptions => ({
  family,
  neighbours,
  skillsFolder: adapter.skillsFolder,
  readCountsAsFiring: true,
  budgetStopsFail: true,
  conventions: adapter.grading,
});

describe('the skills a trial offered beside the family: declared neighbours, and in the field the CLI’s bundled skills', () => {
  it.each<[string, AgentAdapter, readonly string[]]>([
    ['Claude Code', claudeCode, CLAUDE_BUNDLED_SKILLS],
    ['Codex', codex, CODEX_BUNDLED_SKILLS],
    ['Gemini CLI', gemini, ['antigravity-support', 'skill-creator']],
  ])('%s', (_, adapter, bundled) => {
    expect(offeredNeighbours(caseIn('lab'), options(adapter)).map((n) => n.dir)).toEqual(['pdf-tool']);
    expect(offeredNeighbours(caseIn('field'), options(adapter)).map((n) => n.dir)).toEqual(['pdf-tool', ...bundled]);
  });

  it("a family skill's or a declared neighbour's name stays theirs", () => {
    const verify = { dir: 'verify', name: 'verify' };
    const loop = { dir: 'my-loop', name: 'loop' };
    const offered = offeredNeighbours(caseIn('field'), options(claudeCode, [CHART, verify], [loop])).map((n) => n.dir);
    expect(offered).toContain('my-loop');
    expect(offered.filter((n) => ['verify', 'loop'].includes(n))).toEqual([]);
  });
});

/** A Claude Code field trial: the default menu, the listing with the bundled skills, nothing changed in the workspace. */
const FIELD_MENU = ['Task', 'Bash', 'Edit', 'NotebookEdit', 'Read', 'Skill', 'WebFetch', 'WebSearch', 'Write'];
/** What the init event of the version the stream names (ClaudeStream's) says beside the installed skills. */
const BUNDLED = CLAUDE_BUNDLED_BY_VERSION['2.1.197']!;
const FIELD_INIT = ['csv-chart', 'pdf-tool', ...BUNDLED.listed.filter((s) => s !== 'keybindings-help'), ...BUNDLED.initOnly];
const claudeField = (skills = FIELD_INIT) => new ClaudeStream('/ws', skills, FIELD_MENU);
const claudeLab = () => new ClaudeStream('/ws', ['csv-chart', 'pdf-tool', 'clear', 'init'], ['Glob', 'Grep', 'Read', 'Skill']);
const FIELD_META = trialMeta({ evidence: { workspaceChanged: [] } });
const claudeGrade = (s: ClaudeStream, c: GradableCase, meta: TrialMeta = trialMeta()) =>
  gradeTrial(parseClaudeStream(s.raw()), meta, c, 'skill', 1, options(claudeCode));

describe('grading a bundled skill firing (Claude Code transcripts)', () => {
  it.each<[string, ClaudeStream, GradableCase, TrialMeta, object]>([
    [
      'in the field, a bundled skill instead of the expected one: went to a neighbour',
      claudeField().skill('verify').result(),
      caseIn('field'),
      FIELD_META,
      { status: 'ok', fired: 'neighbour', firedColumn: 'neighbour:verify', passed: false, firings: [{ neighbour: 'verify' }] },
    ],
    [
      'in the field, a built-in prompt command the model is offered',
      claudeField().skill('security-review').result(),
      caseIn('field'),
      FIELD_META,
      { status: 'ok', fired: 'neighbour', firedColumn: 'neighbour:security-review', passed: false },
    ],
    [
      'in the field, the expected skill and then a bundled one: still passes (a non-exclusive case)',
      claudeField().skill('csv-chart').skill('loop').result(),
      caseIn('field'),
      FIELD_META,
      { status: 'ok', fired: 'expected', passed: true },
    ],
    [
      'in the field, a "no skill" case going to a bundled skill is no false trigger',
      claudeField().skill('code-review').result(),
      caseIn('field', 'none'),
      FIELD_META,
      { status: 'ok', fired: 'neighbour', firedColumn: 'neighbour:code-review', passed: true },
    ],
    [
      'in the field, a name nothing listed stays `other`',
      claudeField().skill('made-up').result(),
      caseIn('field'),
      FIELD_META,
      { status: 'ok', fired: 'other', firedColumn: 'other', passed: false },
    ],
    [
      'in the lab, the same bundled name was never installed: `other`, as before',
      claudeLab().skill('verify').result(),
      caseIn('lab'),
      trialMeta(),
      { status: 'ok', fired: 'other', firedColumn: 'other', passed: false, firings: [{ requested: 'verify' }] },
    ],
  ])('%s', (_, stream, c, meta, want) => {
    const o = claudeGrade(stream, c, meta);
    expect(o).toMatchObject(want);
    if (c.context !== 'field') expect(o.firings[0]).not.toHaveProperty('neighbour');
  });
});

describe("the field's listing check accepts exactly the family, the declared neighbours and the CLI's bundled skills", () => {
  it.each<[string, string[], readonly string[], string | undefined]>([
    ['the family, a neighbour and a bundled skill', ['csv-chart', 'pdf-tool', 'verify'], ['verify'], undefined],
    ['none of the bundled skills (the CLI may list fewer)', ['csv-chart', 'pdf-tool'], ['verify'], undefined],
    [
      'a skill neither installed nor bundled',
      ['csv-chart', 'pdf-tool', 'verify', 'stranger'],
      ['verify'],
      "skills outside the family and its declared neighbours and the CLI's bundled skills reached the model: stranger",
    ],
    [
      'a bundled skill where the CLI brings none (the lab)',
      ['csv-chart', 'pdf-tool', 'verify'],
      [],
      'skills outside the family and its declared neighbours reached the model: verify',
    ],
  ])('%s', (_, listed, brings, want) => {
    expect(listingProblem(listed, { arm: 'skill', family: ['csv-chart'], neighbours: ['pdf-tool'] }, true, brings)).toBe(want);
  });

  const claudeProblem = (s: ClaudeStream, context?: 'field') =>
    claudeCode.grading.isolationProblem(parseClaudeStream(s.result().raw()), {
      arm: 'skill',
      family: ['csv-chart'],
      neighbours: ['pdf-tool'],
      workspaceChanged: [],
      ...(context ? { context } : {}),
    });

  it.each<[string, ClaudeStream, string | RegExp | undefined]>([
    ["Claude Code's field init event as measured (bundled skills, user-only ones, built-in commands)", claudeField(), undefined],
    ['a refused acting call beside them', claudeField().answeredCall('Bash', { command: 'ls' }, FIELD_REFUSAL), undefined],
    [
      'a skill from anywhere else (a user-level skill leaked in)',
      claudeField([...FIELD_INIT, 'home-skill']),
      /reached the model: home-skill$/,
    ],
    ['the family missing', claudeField(FIELD_INIT.filter((s) => s !== 'csv-chart')), 'skill arm: csv-chart not loaded by the agent'],
  ])('Claude Code in the field: %s', (_, s, want) => {
    const found = claudeProblem(s, 'field');
    if (want === undefined) expect(found).toBeUndefined();
    else expect(found).toMatch(want);
  });

  it('Claude Code in the lab: unchanged (its init event lists commands beside the skills, not checked for extras)', () => {
    expect(claudeProblem(claudeLab())).toBeUndefined();
  });
});

describe('the field lets each CLI list its bundled skills; the lab hides them as before', () => {
  const req = { callerEnv: {}, home: '/h', tmp: '/t', cliRetries: 0, deadlineMs: 60_000, simulator: undefined };
  it('Claude Code: no CLAUDE_CODE_DISABLE_BUNDLED_SKILLS in a field trial', () => {
    expect(claudeEnv(req)).toMatchObject({ CLAUDE_CODE_DISABLE_BUNDLED_SKILLS: '1' });
    expect(claudeEnv({ ...req, context: 'field' })).not.toHaveProperty('CLAUDE_CODE_DISABLE_BUNDLED_SKILLS');
  });

  it('Codex: [skills.bundled] on in the field config, off in the lab', () => {
    const config = { model: 'm', cliRetries: 0, deadlineMs: 60_000, simulator: undefined, callerEnv: {}, role: 'trial' as const };
    expect(codexConfigTable(config)).toMatchObject({ skills: { bundled: { enabled: false } } });
    expect(parseToml(codexFieldConfig(config, 'hook'))).toMatchObject({ skills: { bundled: { enabled: true } } });
  });
});

describe("Codex: a read of one of its bundled skills' SKILL.md", () => {
  const WS = '/tmp/t/ws';
  const BUNDLED_FILE = '/tmp/t/home/.codex/skills/.system/imagegen/SKILL.md';
  it.each([
    ['a bundled skill printed', `cat ${BUNDLED_FILE}`, true],
    ['a bundled skill paged', `sed -n 1,200p ${BUNDLED_FILE}`, true],
    ['a bundled skill and a family skill', `cat ${BUNDLED_FILE} .agents/skills/demo/SKILL.md`, true],
    ['a name Codex does not bundle', 'cat /tmp/t/home/.codex/skills/.system/ghost/SKILL.md', false],
    ['another file of a bundled skill', 'cat /tmp/t/home/.codex/skills/.system/imagegen/scripts/run.py', false],
    ['a user-level skill', 'cat /tmp/t/home/.codex/skills/mine/SKILL.md', false],
    ['a bundled read that also runs something', `cat ${BUNDLED_FILE}; touch x`, false],
  ])('is a skill read the field lets run: %s', (_, command, read) => {
    expect(isSkillRead(command, WS)).toBe(read);
  });

  const stream = (exitCode: number, output: string) =>
    [
      { type: 'thread.started', thread_id: 't' },
      { type: 'turn.started' },
      {
        type: 'item.completed',
        item: {
          id: 'i1',
          type: 'command_execution',
          command: `/bin/bash -lc 'cat ${BUNDLED_FILE}'`,
          aggregated_output: output,
          exit_code: exitCode,
          status: exitCode === 0 ? 'completed' : 'failed',
        },
      },
      { type: 'turn.completed', usage: { input_tokens: 1, output_tokens: 1 } },
    ]
      .map((e) => JSON.stringify(e))
      .join('\n') + '\n';
  const grade = (raw: string, c: GradableCase) => {
    const meta = trialMeta({ evidence: { skillNonces: { 'csv-chart': 'n1' } } });
    return gradeTrial(codex.parse(raw, meta), meta, c, 'skill', 1, options(codex));
  };

  it.each<[string, string, GradableCase, object]>([
    [
      'read in the field: the model went to that bundled skill',
      stream(0, '---\nname: imagegen\n---\nbody'),
      caseIn('field'),
      { fired: 'neighbour', firedColumn: 'neighbour:imagegen', firings: [{ neighbour: 'imagegen', via: 'invoke', status: 'loaded' }] },
    ],
    [
      'in the lab the file is not there: a skill outside the family, `other`',
      stream(1, 'cat: No such file or directory'),
      caseIn('lab'),
      { fired: 'other', firedColumn: 'other', firings: [{ requested: 'imagegen', status: 'unknown' }] },
    ],
  ])('%s', (_, raw, c, want) => {
    expect(grade(raw, c)).toMatchObject(want);
  });
});

describe("a CLI's own listing, probed once per arm and context, is each trial's evidence of its arm and context", () => {
  it('probes the field as its trials are prepared (the bundled skills listed), apart from the lab', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sp-listing-'));
    const prepared: (string | undefined)[] = [];
    const adapter: AgentAdapter = {
      ...gemini,
      prepareTrial: async (req) => (prepared.push(req.context), {}),
      probeListing: async (req) => ({
        source: 'probe',
        skills: req.context === 'field' ? ['csv-chart', 'skill-creator'] : ['csv-chart'],
        contextFiles: [],
      }),
    };
    const ctx = {
      adapter,
      config: configSchema.parse({ agent: 'gemini' }),
      callerEnv: {},
      role: 'trial',
      workspaces: new WorkspacePool({ root, skills: [], skillsFolder: adapter.skillsFolder, keep: false, prefetch: 0 }),
    } as unknown as TrialContext;
    try {
      const listings = await probeArmListings(ctx, ['skill'], ['lab', 'field']);
      expect(prepared).toEqual([undefined, 'field']);
      expect(listings[listingKey('skill', 'lab')]?.skills).toEqual(['csv-chart']);
      expect(listings[listingKey('skill', 'field')]?.skills).toEqual(['csv-chart', 'skill-creator']);
    } finally {
      await ctx.workspaces.drain();
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('the confusion matrix: a column per bundled skill that took a trial, none for the others', () => {
  const outcome = (firedColumn: string) =>
    ({ caseId: 'c', arm: 'skill', n: 1, status: 'ok', passed: false, firings: [], firedColumn, fired: 'neighbour' }) as never;
  it.each<[string, string[], string[]]>([
    ['no bundled skill fired', ['csv-chart', 'neighbour:pdf-tool'], ['csv-chart', 'neighbour:pdf-tool', 'none', 'multiple', 'other']],
    [
      'two bundled skills fired, once each',
      ['neighbour:verify', 'neighbour:loop', 'neighbour:verify'],
      ['csv-chart', 'neighbour:pdf-tool', 'neighbour:loop', 'neighbour:verify', 'none', 'multiple', 'other'],
    ],
  ])('%s', (_, fired, columns) => {
    const m = confusionMatrix([caseIn('field')], fired.map(outcome), ['csv-chart'], 0.95, ['pdf-tool']);
    expect(m.columns).toEqual(columns);
    if (fired.includes('neighbour:verify')) expect(m.cells['csv-chart']!['neighbour:verify']!.p).toBeCloseTo(2 / 3);
  });
});

describe('a skill named like one the agent bundles, in a field run: refused at its name, exit 2, nothing spawned', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));
  const run = async (files: Files, args: string[] = []) => {
    const dir = makeProject({ ...baseProject(), ...files });
    dirs.push(dir);
    const spy = spyBinary(dir);
    const r = await runInProcess(['run', '--agent-binary', spy.path, '--transcripts', 'runs', ...args], {
      cwd: dir,
      env: testEnv({ ANTHROPIC_API_KEY: 'dummy' }),
    });
    return { r, spawned: existsSync(spy.marker) };
  };
  const VERIFY = { 'skills/verify/SKILL.md': skillMd('verify', 'Verify alpha records.') };

  it.each<[string, Files, string[], string]>([
    [
      'a family skill, the config in the field',
      { ...VERIFY, 'skillprobe.config.yaml': 'context: field\n' },
      [],
      `skills/verify/SKILL.md:2:7: skill "verify" has the name of Claude Code's bundled skill verify, which a field trial lists beside it: a firing of that name could not be told whose it was — rename the skill (its folder and \`name\`), or run it in the lab only (context: lab)`,
    ],
    [
      'a neighbour, the field asked by flag',
      { 'others/loop/SKILL.md': skillMd('loop', 'Loop over alpha records.'), 'skillprobe.config.yaml': 'neighbours: others\n' },
      ['--context', 'field'],
      `others/loop/SKILL.md:2:7: skill "loop" has the name of Claude Code's bundled skill loop`,
    ],
    [
      'one case in the field',
      { ...VERIFY, 'cases/field.yaml': '- id: f\n  prompt: "x"\n  expect: { skill: none }\n  context: field\n' },
      [],
      `skills/verify/SKILL.md:2:7: skill "verify" has the name of Claude Code's bundled skill verify`,
    ],
  ])('%s', async (_, files, args, message) => {
    const { r, spawned } = await run(files, args);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n'), 'one line').toHaveLength(1);
    expect(r.stderr).toContain(message);
    expect(spawned).toBe(false);
  });

  it('in the lab the CLI lists no bundled skill, so the name is free', async () => {
    const lab = makeProject({ ...baseProject(), ...VERIFY });
    const fielded = makeProject({ ...baseProject(), ...VERIFY, 'skillprobe.config.yaml': 'context: field\n' });
    dirs.push(lab, fielded);
    const inLab = await runInProcess(['plan'], { cwd: lab });
    expect(inLab.exitCode, inLab.stderr).toBe(0);
    const field = await runInProcess(['plan'], { cwd: fielded });
    expect([inLab.stderr, field.exitCode, field.stderr]).toEqual(['', 2, expect.stringContaining('bundled skill verify')]);
  });

  it('a config in the field whose every case runs in the lab runs no field trial, so the name is free', async () => {
    const labCases = '- id: a\n  prompt: "x"\n  expect: { skill: alpha }\n  context: lab\n';
    const dir = makeProject({ ...baseProject(), ...VERIFY, 'cases/main.yaml': labCases, 'skillprobe.config.yaml': 'context: field\n' });
    dirs.push(dir);
    const r = await runInProcess(['plan'], { cwd: dir });
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
  });
});
