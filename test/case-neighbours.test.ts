import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeCode } from '../src/agents/claude-code/adapter.js';
import type { AgentAdapter, InvocationRequest } from '../src/agents/types.js';
import { neighbourSetKey, probeCaseListings, type TrialContext } from '../src/runner/trial.js';
import { WorkspacePool } from '../src/workspace/pool.js';
import { parseClaudeStream } from '../src/agents/claude-code/parse.js';
import { gradeTrial, type GradeOptions } from '../src/grade/outcome.js';
import { loadCases } from '../src/load/cases.js';
import { loadSkills } from '../src/load/skills.js';
import { configSchema } from '../src/run/config-schema.js';
import { runManifestSchema, type GradableCase, type RunManifest, type ShownEvidence } from '../src/run/schema.js';
import { codex } from '../src/agents/codex/adapter.js';
import { listingBudget } from '../src/runner/execute.js';
import { listingCutsFamily, neighboursNote } from '../src/report/wording.js';
import { resumeChanges } from '../src/runner/resume.js';
import { gradableCase } from '../src/trials/stored-case.js';
import { drift } from '../src/verdict/compare.js';
import { buildResults } from '../src/verdict/results.js';
import { ClaudeStream } from './claude-stream.js';
import { baseProject, cleanup, expectRunRefused, makeProject, runInProcess, skillMd, type Files } from './helpers.js';
import { ATL_FAMILY, DECISION, handMadeManifest, trialMeta } from './run-fixtures.js';

const CONFIG = 'skillprobe.config.yaml';
const dirs: string[] = [];
afterAll(() => cleanup(...dirs));

/** The base project with a case naming its own neighbours folder (`../extra`, from cases/), and the suite's `others`. */
const withCaseNeighbours = (files: Files): Files => ({
  ...baseProject(),
  [CONFIG]: 'neighbours: others\n',
  'others/pdf-tool/SKILL.md': skillMd('pdf-tool', 'Read, fill and merge PDF files.'),
  'cases/more.yaml': '- id: fill-form\n  prompt: "fill in the tax form"\n  expect: { skill: alpha }\n  neighbours: ../extra\n',
  ...files,
});
const FORM = { 'extra/form-filler/SKILL.md': skillMd('form-filler', 'Fill in forms, tax forms, applications and surveys.') };

describe("a case's neighbours: bad input is one exact line, exit 2, nothing spawned", () => {
  const link = (rel: string, target: string) => (dir: string) => {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    symlinkSync(target, join(dir, rel));
  };

  it.each<[string, Files, ((dir: string) => void) | undefined, string]>([
    [
      'a folder that is not there',
      {},
      undefined,
      "cases/more.yaml:4:15: neighbours: ../extra does not exist — point it at a folder of skills (<skill>/SKILL.md each), relative to the case file, or remove the case's `neighbours`",
    ],
    [
      'a file where the folder belongs',
      { extra: 'not a folder\n' },
      undefined,
      "cases/more.yaml:4:15: neighbours: ../extra is not a folder — point it at a folder of skills (<skill>/SKILL.md each), relative to the case file, or remove the case's `neighbours`",
    ],
    [
      'a neighbour that is not a valid skill',
      { 'extra/form-filler/SKILL.md': '# form filler\n' },
      undefined,
      'extra/form-filler/SKILL.md:1:1: SKILL.md has no YAML frontmatter',
    ],
    [
      "a neighbour with a family skill's name",
      { 'extra/alpha/SKILL.md': skillMd('alpha', 'Another alpha.') },
      undefined,
      `extra/alpha/SKILL.md:2:7: neighbour "alpha" has the name of the family's skill alpha, and its firings could not be told from the family's`,
    ],
    [
      "a neighbour with a suite neighbour's name",
      { 'extra/pdf-tool/SKILL.md': skillMd('pdf-tool', 'Another PDF tool.') },
      undefined,
      `extra/pdf-tool/SKILL.md:2:7: neighbour "pdf-tool" has the name of the suite's neighbour pdf-tool (config \`neighbours\`), which every case's trials list already — rename one of them, or leave it out of the case's folder: a case's neighbours add to the suite's`,
    ],
    [
      "a neighbour with another case's neighbour's name",
      {
        ...FORM,
        'extra2/form-filler/SKILL.md': skillMd('form-filler', 'A second form filler.'),
        'cases/zz.yaml': '- id: other-form\n  prompt: "fill a form"\n  expect: { skill: none }\n  neighbours: ../extra2\n',
      },
      undefined,
      `extra2/form-filler/SKILL.md:2:7: neighbour "form-filler" has the name of extra/form-filler/SKILL.md, another case's neighbour, and one name must mean one skill across the suite — name the two skills apart, or have both cases name one folder`,
    ],
    [
      'a link leaving the neighbour',
      FORM,
      link('extra/form-filler/key', '../../skills/alpha/SKILL.md'),
      'symlink to ../../skills/alpha/SKILL.md leads outside the skill folder',
    ],
  ])('%s', async (_name, files, make, message) => {
    const dir = makeProject(withCaseNeighbours(files));
    dirs.push(dir);
    make?.(dir);
    await expectRunRefused(dir, message);
  });

  it('two cases naming one folder share its skills, loaded once, with no problem', () => {
    const dir = makeProject(
      withCaseNeighbours({
        ...FORM,
        'cases/zz.yaml': '- id: other-form\n  prompt: "fill a form"\n  expect: { skill: none }\n  neighbours: ../extra\n',
      }),
    );
    dirs.push(dir);
    const suite = loadCases(join(dir, 'cases/*.yaml'), loadSkills(join(dir, 'skills')), configSchema.parse({}).decision);
    const own = suite.cases.filter((c) => c.neighbourSkills);
    expect(own.map((c) => [c.id, c.neighbourSkills!.map((k) => k.dir)])).toEqual([
      ['fill-form', ['form-filler']],
      ['other-form', ['form-filler']],
    ]);
    expect(own[0]!.neighbourSkills![0]).toBe(own[1]!.neighbourSkills![0]);
  });
});

describe("a case's neighbours are hashed per case, so an edit is drift", () => {
  const load = (dir: string) => loadCases(join(dir, 'cases/*.yaml'), loadSkills(join(dir, 'skills')), configSchema.parse({}).decision);

  it('stores the case’s own neighbours with their hash, and a suite-wide hash that an edit changes', () => {
    const dir = makeProject(withCaseNeighbours(FORM));
    dirs.push(dir);
    const first = load(dir);
    const def = (s: typeof first) =>
      gradableCase(
        s.cases.find((c) => c.id === 'fill-form')!,
        configSchema.parse({}),
      );
    expect(def(first).neighbours).toEqual([{ dir: 'form-filler', name: 'form-filler', hash: expect.any(String) }]);
    expect(
      gradableCase(
        first.cases.find((c) => c.id === 'pos-alpha')!,
        configSchema.parse({}),
      ),
    ).not.toHaveProperty('neighbours');
    expect(load(dir).neighboursHash).toBe(first.neighboursHash);
    writeFileSync(join(dir, 'extra/form-filler/SKILL.md'), skillMd('form-filler', 'Fill in forms, edited.'));
    const edited = load(dir);
    expect(edited.neighboursHash).not.toBe(first.neighboursHash);
    expect(def(edited).neighbours![0]!.hash).not.toBe(def(first).neighbours![0]!.hash);
    // The case file's bytes did not change: the edit is seen only through the neighbours' hash.
    expect(edited.hash).toBe(first.hash);
  });

  it('a suite whose cases have no neighbours of their own has no such hash', () => {
    const dir = makeProject(baseProject());
    dirs.push(dir);
    expect(load(dir)).not.toHaveProperty('neighboursHash');
  });

  const own = (hash: string): GradableCase => ({ ...fill, neighbours: [{ dir: 'form-filler', name: 'form-filler', hash }] });
  const fill: GradableCase = { id: 'fill-form', expect: 'atl-jira', exclusive: false, tags: [], decision: DECISION };
  const run = (c: GradableCase, caseNeighboursHash?: string) => handMadeManifest([c], 0, caseNeighboursHash ? { caseNeighboursHash } : {});

  it.each<[string, RunManifest, RunManifest, string[]]>([
    [
      'an edited neighbour',
      run(own('h1'), 'aaaaaaaaaa'),
      run(own('h2'), 'bbbbbbbbbb'),
      ["a case's neighbours (of fill-form: aaaaaaaa → bbbbbbbb)"],
    ],
    ['neighbours added', run(fill), run(own('h1'), 'aaaaaaaaaa'), ["a case's neighbours (of fill-form: none → aaaaaaaa)"]],
    ['neighbours removed', run(own('h1'), 'aaaaaaaaaa'), run(fill), ["a case's neighbours (of fill-form: aaaaaaaa → none)"]],
    ['the same neighbours', run(own('h1'), 'aaaaaaaaaa'), run(own('h1'), 'aaaaaaaaaa'), []],
  ])('resume names %s', (_name, stored, now, want) => {
    expect(resumeChanges(stored, now, undefined)).toEqual(want);
  });

  it('compare names the cases’ neighbours hash, only when a run had them', () => {
    const results = buildResults(run(fill), [], [], new Date(0));
    const fact = (a: RunManifest, b: RunManifest) =>
      drift({ manifest: a, results, dir: 'a' }, { manifest: b, results, dir: 'b' }).facts.find((f) => f.name === "cases' neighbours hash");
    expect(fact(run(own('h1'), 'aaaaaaaaaaaaaa'), run(own('h2'), 'bbbbbbbbbbbbbb'))).toMatchObject({
      base: 'aaaaaaaaaaaa',
      candidate: 'bbbbbbbbbbbb',
      differs: true,
    });
    expect(fact(run(fill), run(fill))).toBeUndefined();
  });
});

describe("a case's neighbours are graded as neighbours in its trials only", () => {
  const LISTED = ['atl', 'atl-jira', 'atl-confluence', 'form-filler'];
  const opts: GradeOptions = {
    family: ATL_FAMILY,
    neighbours: [],
    skillsFolder: claudeCode.skillsFolder,
    readCountsAsFiring: true,
    budgetStopsFail: true,
    conventions: claudeCode.grading,
  };
  const fill: GradableCase = {
    id: 'fill-form',
    expect: 'atl-jira',
    exclusive: false,
    tags: [],
    decision: DECISION,
    neighbours: [{ dir: 'form-filler', name: 'form-filler', hash: 'f' }],
  };
  const { neighbours: _none, ...plain } = fill;
  const grade = (c: GradableCase, listed: string[]) =>
    gradeTrial(parseClaudeStream(new ClaudeStream('/ws', listed).skill('form-filler').result().raw()), trialMeta(), c, 'skill', 1, opts);

  it.each<[string, GradableCase, string[], object]>([
    ['its own neighbour firing', fill, LISTED, { status: 'ok', fired: 'neighbour', firedColumn: 'neighbour:form-filler', passed: false }],
    // Where the case declares none, the skill is no neighbour: a name outside the suite's.
    ['the same skill in a case without it', plain, LISTED, { fired: 'other', firedColumn: 'other', passed: false }],
    ['its own neighbour missing from the listing', fill, ['atl', 'atl-jira', 'atl-confluence'], { status: 'isolation_error' }],
  ])('%s', (_name, c, listed, want) => {
    expect(grade(c, listed)).toMatchObject(want);
  });

  it('gets a confusion column, and the report names it with the listing its trials got', () => {
    const manifest = handMadeManifest([{ ...fill, listing: { chars: 900, byNameOnly: ['atl-jira'] } }], 1, {
      listing: { cli: 'Claude Code', chars: 700, budgetChars: 8000, byNameOnly: [] },
    });
    const results = buildResults(manifest, [grade(fill, LISTED)], [], new Date(0));
    expect(results.summary.confusion.columns).toContain('neighbour:form-filler');
    expect(neighboursNote(manifest)).toBe(
      'case fill-form lists its own form-filler too: 900 characters, so it lists atl-jira by name only: the model never sees its description',
    );
    // A case's listing cutting a family description is a warning, as the suite's is.
    expect(listingCutsFamily(manifest)).toBe(true);
    expect(listingCutsFamily({ ...manifest, cases: { ...manifest.cases, defs: [fill] } })).toBe(false);
  });
});

describe("lint with a case's own neighbours", () => {
  it('names the family description they cut at the case, loads them as run does, and lets a profile play them', async () => {
    const dir = makeProject(
      withCaseNeighbours({
        // Six neighbours of 1,400 characters, before the family in name order, fill Claude Code's ~8,000: both are cut.
        ...Object.fromEntries(
          [1, 2, 3, 4, 5, 6].map((i) => [`extra/aa-${i}/SKILL.md`, skillMd(`aa-${i}`, `Handle case ${i} ${'x'.repeat(1400)}`)]),
        ),
        'sim.yaml': 'seed: 1\nrouter: {}\nrules:\n  - { case: fill-form, do: [{ skill: aa-1 }] }\n',
      }),
    );
    dirs.push(dir);
    const r = await runInProcess(['lint', '--json', '--sim', 'sim.yaml'], { cwd: dir });
    const findings = JSON.parse(r.stdout) as { check: string; file: string; line: number; what: string }[];
    expect(findings.filter((f) => f.check === 'load' || f.check === 'profile')).toEqual([]);
    const cut = findings.filter((f) => f.check === 'listing-budget' && f.what.startsWith('case "fill-form"'));
    expect(cut.map((f) => [f.file, f.line, f.what.match(/list (\S+) by name only/)?.[1]])).toEqual([
      ['cases/more.yaml', 1, 'alpha'],
      ['cases/more.yaml', 1, 'alpha-beta'],
    ]);
  });
});

describe('a CLI whose trials do not record their listing is probed once per set of a case’s own neighbours', () => {
  it('installs the set in the probe’s workspace of each arm, beside the suite’s neighbours, and probes each set once', async () => {
    const dir = makeProject(withCaseNeighbours(FORM));
    dirs.push(dir);
    const skills = loadSkills(join(dir, 'skills'));
    const suite = loadCases(join(dir, 'cases/*.yaml'), skills, configSchema.parse({}).decision);
    const probed: string[][] = [];
    // The probe reads what the workspace's skills folder holds, as `gemini skills list` does.
    const adapter = {
      ...claudeCode,
      async probeListing(req: InvocationRequest): Promise<ShownEvidence> {
        const listed = readdirSync(join(req.workspace, claudeCode.skillsFolder)).sort();
        probed.push(listed);
        return { source: 'probe', skills: listed, contextFiles: [] };
      },
    } as AgentAdapter;
    const workspaces = new WorkspacePool({
      root: dir,
      skills,
      neighbours: loadSkills(join(dir, 'others')),
      skillsFolder: claudeCode.skillsFolder,
      keep: false,
      prefetch: 0,
    });
    const ctx = {
      adapter,
      binary: 'claude',
      config: configSchema.parse({}),
      skills,
      store: undefined as never,
      callerEnv: {},
      keepWorkspaces: false,
      workspaces,
      signal: new AbortController().signal,
      role: 'trial',
    } satisfies TrialContext;
    try {
      const listings = await probeCaseListings(ctx, ['skill', 'ablation'], ['lab'], [...suite.cases, ...suite.cases]);
      const own = suite.cases.find((c) => c.id === 'fill-form')!.neighbourSkills!;
      expect([...listings.keys()]).toEqual([neighbourSetKey(own)]);
      expect(listings.get(neighbourSetKey(own))).toMatchObject({
        'lab/skill': { skills: ['alpha', 'alpha-beta', 'form-filler', 'pdf-tool'] },
        'lab/ablation': { skills: ['form-filler', 'pdf-tool'] },
      });
      expect(probed).toHaveLength(2);
      expect(await probeCaseListings({ ...ctx, adapter: claudeCode }, ['skill'], ['lab'], suite.cases)).toEqual(new Map());
    } finally {
      await workspaces.drain();
    }
  });
});

describe('a listing with no budget (Codex, Gemini list every skill whole)', () => {
  it('is stored without one, so run.json reads back, and the report says the CLI lists every skill whole', () => {
    const budget = listingBudget(codex.skillListing);
    expect(budget).toEqual({ cli: 'Codex CLI' });
    expect(listingBudget(claudeCode.skillListing)).toEqual({ cli: 'Claude Code', budgetChars: 8000 });
    const manifest = handMadeManifest([], 1, {
      neighbours: [{ dir: 'form-filler', name: 'form-filler', hash: 'f' }],
      listing: { ...budget, chars: 700, byNameOnly: [] },
      familyListing: { ...budget, chars: 500 },
    });
    const stored = JSON.parse(JSON.stringify(manifest)) as unknown;
    expect(runManifestSchema.safeParse(stored).success).toBe(true);
    expect(neighboursNote(manifest)).toContain('the skill listing takes 700 characters (Codex CLI lists every skill whole)');
  });
});
