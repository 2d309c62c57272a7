import { mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeCode } from '../src/agents/claude-code/adapter.js';
import { parseClaudeStream } from '../src/agents/claude-code/parse.js';
import { listingProblem } from '../src/agents/init-isolation.js';
import { gradeTrial, type GradeOptions } from '../src/grade/outcome.js';
import { caseListingFindings, cutFromListing, listingBudgetFindings, listingChars } from '../src/lint/listing.js';
import type { LintSkill } from '../src/lint/types.js';
import { advice } from '../src/report/advice.js';
import { REPORTERS } from '../src/report/registry.js';
import { resumeChanges } from '../src/runner/resume.js';
import { agentNotes } from '../src/runner/reports.js';
import { resultsSchema, type GradableCase, type RunManifest } from '../src/run/schema.js';
import { buildResults } from '../src/verdict/results.js';
import { drift } from '../src/verdict/compare.js';
import { ClaudeStream } from './claude-stream.js';
import { baseProject, cleanup, expectRunRefused, makeProject, runInProcess, skillMd, type Files } from './helpers.js';
import { ATL_FAMILY, DECISION, handMadeManifest, trialMeta } from './run-fixtures.js';

const CONFIG = 'skillprobe.config.yaml';

describe('neighbours: bad input is one exact line, exit 2, nothing spawned', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));
  const put = (files: Files) => (f: Files) => Object.assign(f, { [CONFIG]: 'neighbours: others\n' }, files);
  const link = (rel: string, target: string) => (dir: string) => {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    symlinkSync(target, join(dir, rel));
  };
  const PDF = { 'others/pdf-tool/SKILL.md': skillMd('pdf-tool', 'Read, fill and merge PDF files.') };

  it.each<[string, (f: Files) => void, ((dir: string) => void) | undefined, string]>([
    [
      'a folder that is not there',
      put({}),
      undefined,
      `${CONFIG}:1:13: neighbours: others does not exist — point it at the folder that holds your other skills (<skill>/SKILL.md each), or remove \`neighbours\``,
    ],
    [
      'a file where the folder belongs',
      put({ others: 'not a folder\n' }),
      undefined,
      `${CONFIG}:1:13: neighbours: others is not a folder — point it at the folder that holds your other skills (<skill>/SKILL.md each), or remove \`neighbours\``,
    ],
    [
      'a neighbour that is not a valid skill',
      put({ 'others/pdf-tool/SKILL.md': '# pdf tool\n' }),
      undefined,
      'others/pdf-tool/SKILL.md:1:1: SKILL.md has no YAML frontmatter — start the file with `---`, then `name:` and `description:` lines, then `---`',
    ],
    [
      'a neighbour folder without SKILL.md',
      put({ 'others/pdf-tool/notes.md': 'notes\n' }),
      undefined,
      'others/pdf-tool: folder has no SKILL.md — add SKILL.md or move the folder out of the neighbours folder',
    ],
    [
      "a neighbour with a family skill's name",
      put({ 'others/alpha/SKILL.md': skillMd('alpha', 'Another alpha.') }),
      undefined,
      `others/alpha/SKILL.md:2:7: neighbour "alpha" has the name of the family's skill alpha, and its firings could not be told from the family's — rename the neighbour (its folder and \`name\`), or leave it out: a skill under test is never its own neighbour`,
    ],
    [
      'a link leaving the neighbour',
      put(PDF),
      link('others/pdf-tool/key', '../../skills/alpha/SKILL.md'),
      'symlink to ../../skills/alpha/SKILL.md leads outside the skill folder',
    ],
    [
      'a folder holding no skill',
      put({ 'others/README.md': 'nothing here\n' }),
      undefined,
      'others: no skills found — add at least one `<dir>/SKILL.md` under the neighbours folder',
    ],
  ])('%s', async (_name, change, make, message) => {
    const files = baseProject();
    change(files);
    const dir = makeProject(files);
    dirs.push(dir);
    make?.(dir);
    await expectRunRefused(dir, message);
  });

  it('lint reports the same problems as load findings', async () => {
    const files = baseProject();
    put({ 'others/alpha/SKILL.md': skillMd('alpha', 'Another alpha.') })(files);
    const dir = makeProject(files);
    dirs.push(dir);
    const r = await runInProcess(['lint', '--json'], { cwd: dir });
    const findings = JSON.parse(r.stdout) as { check: string; file: string; what: string }[];
    expect(findings.filter((f) => f.check === 'load').map((f) => `${f.file}: ${f.what}`)).toEqual([
      `others/alpha/SKILL.md: neighbour "alpha" has the name of the family's skill alpha, and its firings could not be told from the family's`,
    ]);
    expect(r.exitCode).toBe(1);
  });
});

describe('a simulator profile may play a neighbour', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));

  it.each([
    ['pdf-tool', []],
    ['ghost', ['rule 1 behaviour 1: `skill: ghost` names no skill in the skills folder, so the simulator never plays it as written']],
  ])('a rule calling %s', async (skill, want) => {
    const dir = makeProject({
      ...baseProject(),
      [CONFIG]: 'neighbours: others\n',
      'others/pdf-tool/SKILL.md': skillMd('pdf-tool', 'Read, fill and merge PDF files.'),
      'sim.yaml': `seed: 1\nrules:\n  - { case: pos-alpha, do: [{ skill: ${skill} }] }\n  - { case: neg-weather, do: [{ answer: sunny }] }\n`,
    });
    dirs.push(dir);
    const r = await runInProcess(['lint', '--json', '--sim', 'sim.yaml'], { cwd: dir });
    const findings = JSON.parse(r.stdout) as { check: string; what: string }[];
    expect(findings.filter((f) => f.check === 'profile').map((f) => f.what)).toEqual(want);
  });
});

describe('the listing the CLI must show: the family (skill arm only) and the declared neighbours (both arms)', () => {
  it.each<[string, 'skill' | 'ablation', string[], boolean, string | undefined]>([
    ['family and neighbours, skill arm', 'skill', ['alpha', 'pdf-tool'], true, undefined],
    ['neighbours only, ablation arm', 'ablation', ['pdf-tool'], true, undefined],
    ['a neighbour missing, skill arm', 'skill', ['alpha'], true, 'skill arm: neighbours pdf-tool not loaded by the agent'],
    ['a neighbour missing, ablation arm', 'ablation', [], true, 'ablation arm: neighbours pdf-tool not loaded by the agent'],
    ['the family in the ablation arm', 'ablation', ['alpha', 'pdf-tool'], true, 'ablation arm: alpha visible to the agent'],
    [
      'an undeclared skill',
      'skill',
      ['alpha', 'pdf-tool', 'skill-creator'],
      true,
      'skills outside the family and its declared neighbours reached the model: skill-creator',
    ],
    // A listing with slash commands beside the skills (Claude Code's init event) is not checked for extras.
    ['an extra in a listing of more than skills', 'skill', ['alpha', 'pdf-tool', 'clear'], false, undefined],
  ])('%s', (_name, arm, listed, onlyInstalled, want) => {
    expect(listingProblem(listed, { arm, family: ['alpha'], neighbours: ['pdf-tool'] }, onlyInstalled)).toBe(want);
  });
});

const NOW = new Date('2026-12-01T00:00:00.000Z');
const NEIGHBOURS = [
  { dir: 'pdf-tool', name: 'pdf-tool', hash: 'p' },
  { dir: 'web-research', name: 'web-research', hash: 'w' },
];
const LISTED = ['atl', 'atl-jira', 'atl-confluence', 'pdf-tool', 'web-research'];
const jira: GradableCase = { id: 'jira-create', expect: 'atl-jira', exclusive: false, tags: [], decision: DECISION };
const weather: GradableCase = { id: 'neg-weather', expect: 'none', exclusive: false, tags: [], decision: DECISION };
const s = (skills = LISTED) => new ClaudeStream('/ws', skills);

/** Grades hand-built Claude Code trials of a run with the neighbours declared; its results and every reporter's text. */
function graded(trials: [GradableCase, ClaudeStream][]) {
  const defs = [...new Set(trials.map(([c]) => c))];
  const manifest: RunManifest = handMadeManifest(defs, trials.length, { neighbours: NEIGHBOURS, neighboursHash: 'nh' });
  const opts: GradeOptions = {
    family: ATL_FAMILY,
    neighbours: NEIGHBOURS,
    skillsFolder: claudeCode.skillsFolder,
    readCountsAsFiring: true,
    budgetStopsFail: true,
    conventions: claudeCode.grading,
  };
  const seen = new Map<string, number>();
  const outcomes = trials.map(([c, stream]) => {
    const n = (seen.get(c.id) ?? 0) + 1;
    seen.set(c.id, n);
    return gradeTrial(parseClaudeStream(stream.raw()), trialMeta(), c, 'skill', n, opts);
  });
  const results = buildResults(manifest, outcomes, [], NOW);
  const input = { manifest, results, runDir: 'runs/r1', agentNotes: agentNotes(manifest) };
  const reports = Object.fromEntries(
    Object.entries(REPORTERS).map(([name, make]) => [name, stripVTControlCharacters(make({ colour: false }).render(input))]),
  );
  return { manifest, outcomes, results, reports };
}

describe('grading a neighbour firing: its own fired value and column, never `other`', () => {
  it.each<[string, GradableCase, ClaudeStream, object]>([
    [
      'a neighbour instead of the expected skill',
      jira,
      s().skill('pdf-tool').result(),
      { status: 'ok', fired: 'neighbour', firedColumn: 'neighbour:pdf-tool', passed: false },
    ],
    ['the expected skill', jira, s().skill('atl-jira').result(), { fired: 'expected', firedColumn: 'atl-jira', passed: true }],
    [
      'the expected skill and a neighbour',
      jira,
      s().skill('atl-jira').skill('pdf-tool').result(),
      { fired: 'expected', firedColumn: 'multiple', passed: true },
    ],
    ['a sibling and a neighbour', jira, s().skill('atl-confluence').skill('pdf-tool').result(), { fired: 'sibling', passed: false }],
    [
      'a name the suite never installed',
      jira,
      s().skill('ghost', undefined, { status: 'unknown' }).result(),
      { fired: 'other', firedColumn: 'other' },
    ],
    [
      'a neighbour on a negative case',
      weather,
      s().skill('web-research').result(),
      { fired: 'neighbour', firedColumn: 'neighbour:web-research', passed: true },
    ],
    [
      'a read of a neighbour\u2019s SKILL.md',
      jira,
      s().read('/ws/.claude/skills/pdf-tool/SKILL.md', '---\nname: pdf-tool\n---').result(),
      { fired: 'neighbour', firedColumn: 'neighbour:pdf-tool' },
    ],
    [
      'a declared neighbour the CLI did not list',
      jira,
      s(['atl', 'atl-jira', 'atl-confluence', 'pdf-tool']).skill('atl-jira').result(),
      { status: 'isolation_error', passed: null },
    ],
  ])('%s', (_name, c, stream, want) => {
    expect(graded([[c, stream]]).outcomes[0]).toMatchObject(want);
  });
});

describe('a neighbour taking a case: counted, its share with an interval, advice, and a line in every reporter', () => {
  // 3 of 10 trials go to pdf-tool: 0.30, Wilson 95% [0.11, 0.60].
  const trials: [GradableCase, ClaudeStream][] = [
    ...Array.from({ length: 7 }, (): [GradableCase, ClaudeStream] => [jira, s().skill('atl-jira').result()]),
    ...Array.from({ length: 3 }, (): [GradableCase, ClaudeStream] => [jira, s().skill('pdf-tool').result()]),
  ];
  const run = graded(trials);
  const row = run.results.summary.cases.find((r) => r.caseId === 'jira-create')!;

  it('a progress line says where the trial went', async () => {
    const { explainOutcome } = await import('../src/report/explain.js');
    expect(explainOutcome(run.outcomes[7]!, jira)).toBe('fail: went to a neighbour: pdf-tool');
    expect(explainOutcome(graded([[jira, s().skill('ghost', undefined, { status: 'unknown' }).result()]]).outcomes[0]!, jira)).toBe(
      'fail: called a skill outside the family: ghost',
    );
  });

  it('counts it apart from "did not fire" and from `other`', () => {
    expect(row.fired).toMatchObject({ expected: 7, neighbour: 3, other: 0, none: 0 });
    expect(row.failures.neighbour).toEqual({ trials: 3, example: 8 });
    expect(row.failures.didNotFire.trials).toBe(0);
    expect(row.failures.firedNeighbours).toHaveLength(1);
    const [top] = row.failures.firedNeighbours;
    expect(top).toMatchObject({ skill: 'pdf-tool', trials: 3, share: { successes: 3, n: 10 } });
    expect(top!.share.p).toBeCloseTo(0.3, 10);
    expect(top!.share.lo).toBeCloseTo(0.1078, 3);
    expect(top!.share.hi).toBeCloseTo(0.6032, 3);
  });

  it('gives each neighbour its column in the confusion matrix', () => {
    const m = run.results.summary.confusion;
    expect(m.columns).toEqual([
      'atl',
      'atl-jira',
      'atl-confluence',
      'neighbour:pdf-tool',
      'neighbour:web-research',
      'none',
      'multiple',
      'other',
    ]);
    expect(m.cells['atl-jira']!['neighbour:pdf-tool']).toMatchObject({ successes: 3, n: 10 });
  });

  it('advises sharpening the description against the neighbour', () => {
    const v = run.results.verdicts.find((x) => x.caseId === 'jira-create')!;
    expect(advice(row, v)).toEqual({
      text: "neighbour pdf-tool took 30% of this case's trials: sharpen atl-jira's description against it (say what atl-jira does that pdf-tool does not)",
      example: 8,
    });
  });

  it.each(['terminal', 'markdown', 'junit', 'html'])('%s says which neighbour, how often, and its interval', (name) => {
    expect(run.reports[name]).toMatch(/neighbour pdf-tool fired in 3 of 10: 0\.30 \\?\[0\.11, 0\.60\\?\]/);
  });

  it('the terminal case table counts the trials a neighbour took in a column of their own', () => {
    const table = run.reports.terminal!.split('\n');
    const head = table.findIndex((l) => /sibling\s+neighbour/.test(l));
    expect(head).toBeGreaterThan(-1);
    expect(table[head + 2]).toMatch(/^jira-create\s+10\s+7\s+0\s+0\s+0\s+3\s+·\s+0\s+0\s+0$/);
  });

  it('json carries it, and the stored results read back', () => {
    const back = resultsSchema.parse(JSON.parse(run.reports.json!));
    expect(back.summary.cases[0]!.failures.firedNeighbours[0]!.skill).toBe('pdf-tool');
  });

  it('results written before neighbours read with none', () => {
    const old = JSON.parse(run.reports.json!) as { summary: { cases: Record<string, Record<string, unknown>>[] } };
    for (const c of old.summary.cases) {
      delete c.failures!.neighbour;
      delete c.failures!.firedNeighbours;
      delete c.fired!.neighbour;
    }
    const back = resultsSchema.parse(old);
    expect(back.summary.cases[0]!.failures).toMatchObject({ neighbour: { trials: 0 }, firedNeighbours: [] });
    expect(back.summary.cases[0]!.fired.neighbour).toBe(0);
  });
});

describe('the report says which neighbours were listed, and which family descriptions the listing cut', () => {
  const listing = { cli: 'Claude Code', chars: 8055, budgetChars: 8000, byNameOnly: ['atl-jira'] };
  const manifest = handMadeManifest([jira], 0, { neighbours: NEIGHBOURS, neighboursHash: 'nh', listing });
  const results = buildResults(manifest, [], [], NOW);
  const input = { manifest, results, runDir: 'runs/r1', agentNotes: agentNotes(manifest) };
  const note =
    "neighbours: 2 skills of the user's listed beside the family in both arms (pdf-tool, web-research); the skill listing takes 8055 of the ~8000 characters Claude Code gives it, so it lists atl-jira by name only: the model never sees its description";

  it.each(['terminal', 'markdown', 'html'] as const)('%s', (name) => {
    const text = stripVTControlCharacters(REPORTERS[name]({ colour: false }).render(input)).replace(/\s*\n\s*/g, ' ');
    // As each format escapes it: markdown a `~`, html an apostrophe.
    expect(text.replace(/\\~/g, '~').replace(/&#39;/g, "'")).toContain(note);
  });

  it('a run without neighbours says nothing of them', () => {
    const plain = handMadeManifest([jira], 0);
    const text = REPORTERS.terminal({ colour: false }).render({ ...input, manifest: plain, results: buildResults(plain, [], [], NOW) });
    expect(text).not.toMatch(/neighbour/);
  });

  it('run.json records the listing the family shares with the neighbours', async () => {
    const { newManifest } = await import('../src/runner/execute.js');
    const { loadNeighbours } = await import('../src/load/neighbours.js');
    const { loadSkills } = await import('../src/load/skills.js');
    const { configSchema } = await import('../src/run/config-schema.js');
    const root = join(import.meta.dirname, '..');
    const skills = loadSkills(join(root, 'skills'));
    const neighbours = loadNeighbours(join(root, 'examples/neighbours'), skills);
    const suite = { cases: [], files: [], hash: 'h' };
    const base = { config: configSchema.parse({}), skills, suite, adapter: claudeCode, binary: 'claude' };
    const m = newManifest({ ...base, neighbours }, {});
    expect(m.neighbours?.map((n) => n.dir)).toEqual(['git-commit', 'pdf-tool', 'spreadsheet', 'web-research']);
    expect(m.listing).toEqual({
      cli: 'Claude Code',
      chars: listingChars([...skills, ...neighbours], claudeCode.skillListing),
      budgetChars: 8000,
      byNameOnly: [],
    });
    // Six long neighbours push the family out of the listing.
    const long = neighbours.map((n, i) => ({ ...n, dir: `zz-${i}`, description: 'x'.repeat(1536) }));
    const crowded = newManifest({ ...base, neighbours: [...long, ...long.map((n) => ({ ...n, dir: `${n.dir}b` }))] }, {});
    expect(crowded.listing?.byNameOnly).toEqual([]);
    const first = newManifest({ ...base, neighbours: [...long, ...long].map((n, i) => ({ ...n, dir: `aa-${i}` })) }, {});
    expect(first.listing?.byNameOnly).toEqual(skills.map((k) => k.dir).sort());
    expect(newManifest(base, {})).not.toHaveProperty('listing');
  });
});

describe('a change of neighbours is drift', () => {
  const base = handMadeManifest([], 0, { neighbours: NEIGHBOURS, neighboursHash: 'aaaaaaaaaaaa' });
  const edited = handMadeManifest([], 0, {
    neighbours: [NEIGHBOURS[0]!, { ...NEIGHBOURS[1]!, hash: 'w2' }],
    neighboursHash: 'bbbbbbbbbbbb',
  });
  const none = handMadeManifest([], 0);

  it.each<[string, RunManifest, RunManifest, string[]]>([
    ['an edited neighbour', base, edited, ['neighbours (web-research: aaaaaaaa → bbbbbbbb)']],
    ['neighbours added', none, base, ['neighbours (pdf-tool, web-research: none → aaaaaaaa)']],
    ['neighbours removed', base, none, ['neighbours (pdf-tool, web-research: aaaaaaaa → none)']],
    ['the same neighbours', base, base, []],
  ])('resume names %s', (_name, stored, now, want) => {
    expect(resumeChanges(stored, now, undefined)).toEqual(want);
  });

  it('compare names the neighbours hash, only when a run had neighbours', () => {
    const results = buildResults(base, [], [], NOW);
    const fact = (a: RunManifest, b: RunManifest) =>
      drift({ manifest: a, results, dir: 'a' }, { manifest: b, results, dir: 'b' }).facts.find((f) => f.name === 'neighbours hash');
    expect(fact(base, edited)).toMatchObject({ base: 'aaaaaaaaaaaa', candidate: 'bbbbbbbbbbbb', differs: true });
    expect(fact(none, none)).toBeUndefined();
  });
});

describe('the listing budget with the neighbours', () => {
  const LISTING = claudeCode.skillListing;
  // The cut of each description is not under test in the table: no description reaches it there.
  const UNCAPPED = { ...LISTING, descriptionCap: 100_000 };
  const at = { file: 'skills/x/SKILL.md', line: 3, col: 14 };
  const skill = (dir: string, chars: number): LintSkill => ({
    dir,
    name: dir,
    description: 'd'.repeat(chars),
    links: [],
    at: { name: at, description: { ...at, file: `skills/${dir}/SKILL.md` }, allowedTools: at },
  });
  // Each entry is `- <dir>: ` plus its description and a newline.
  const entry = (dir: string, chars: number) => `- ${dir}: `.length + chars + 1;

  it.each<[string, [string, number][], string[]]>([
    [
      'all fit',
      [
        ['a', 100],
        ['b', 100],
      ],
      [],
    ],
    [
      'the budget exactly',
      [
        ['a', 4000 - entry('a', 0)],
        ['b', 4000 - entry('b', 0)],
      ],
      [],
    ],
    [
      'one character over: the last in name order is cut',
      [
        ['a', 4000 - entry('a', 0)],
        ['b', 4001 - entry('b', 0)],
      ],
      ['b'],
    ],
    [
      'everything after the first cut is name-only',
      [
        ['c', 10],
        ['a', 7995],
        ['b', 10],
      ],
      ['a', 'b', 'c'],
    ],
  ])('%s', (_name, skills, cut) => {
    expect(
      cutFromListing(
        skills.map(([d, n]) => skill(d, n)),
        UNCAPPED,
      ),
    ).toEqual(cut);
  });

  it('names each family skill the neighbours push out of the listing, and none without neighbours', () => {
    const family = [skill('alpha', 1000), skill('zeta', 1000)];
    const neighbours = [skill('beta', 1500), skill('gamma', 1500), skill('omega', 1500), skill('pi', 1500)];
    expect(listingBudgetFindings(family, LISTING)).toEqual([]);
    const findings = listingBudgetFindings(family, LISTING, neighbours);
    expect(findings.map((f) => [f.file, f.what])).toEqual([
      [
        'skills/alpha/SKILL.md',
        `the family's and its 4 neighbours' descriptions take 8055 of the ~8000 characters Claude Code gives the whole skill listing; past it, skills are listed by name only`,
      ],
      [
        'skills/zeta/SKILL.md',
        'with the 4 neighbours listed too, Claude Code would list zeta by name only: the model would not see this description',
      ],
    ]);
  });

  // A case's own neighbours: a budget small enough that two family skills of 60 characters and a neighbour fill it.
  const SMALL = { ...UNCAPPED, budgetChars: 300 };
  const caseFamily = [skill('b-one', 60), skill('d-two', 60)];
  const caseAt = { file: 'cases/main.yaml', line: 7, col: 7 };

  it.each<[string, number[], number[], string[]]>([
    // Entries are `- <dir>: <description>\n`: 8 + 60 + 3 per family skill.
    ['no neighbours of its own', [], [], []],
    ['own neighbours that fit', [], [40], []],
    ['own neighbours that push the last family skill out', [], [160], ['d-two']],
    ['the suite already pushes it out: not the case’s finding', [160], [40], []],
  ])("a case's own neighbours: %s", (_name, suiteChars, ownChars, cut) => {
    const suite = suiteChars.map((n, i) => skill(`a-suite-${i}`, n));
    const own = ownChars.map((n, i) => skill(`a-own-${i}`, n));
    const findings = caseListingFindings(caseFamily, SMALL, suite, [{ id: 'fill-form', at: caseAt, neighbours: own }]);
    expect(findings.map((f) => f.what.match(/list (\S+) by name only/)?.[1])).toEqual(cut);
    for (const f of findings) expect(f).toMatchObject({ ...caseAt, check: 'listing-budget', severity: 'warning' });
    // What the finding says is what the run records as cut.
    expect(cutFromListing([...caseFamily, ...suite, ...own], SMALL).filter((d) => d.startsWith('b-') || d.startsWith('d-'))).toEqual(
      expect.arrayContaining(cut),
    );
  });
});

describe('tune spends nothing on a description the listing with the neighbours would cut', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));

  it.each<[string, number, string | undefined]>([
    ['no neighbours', 0, undefined],
    ['six long neighbours', 6, "the family's listing with its 6 neighbours would take 9346 of the 8000 characters Claude Code gives it"],
  ])('%s', async (_name, count, problem) => {
    const { candidateProblem } = await import('../src/runner/tune-family.js');
    const { loadSkills } = await import('../src/load/skills.js');
    const dir = makeProject(baseProject());
    dirs.push(dir);
    const family = loadSkills(join(dir, 'skills'));
    const neighbours = Array.from({ length: count }, (_, i) => ({ ...family[0]!, dir: `n${i}`, description: 'x'.repeat(1536) }));
    const tuned = family.find((k) => k.dir === 'alpha')!;
    const checked = await candidateProblem(family, tuned, 'Handle alpha records.', join(dir, 'candidate'), dir, claudeCode, neighbours);
    expect('problem' in checked ? checked.problem : undefined).toBe(problem);
  });
});

describe('the example pack of neighbours', () => {
  it('loads as valid skills, named apart from the demo family', async () => {
    const { loadNeighbours } = await import('../src/load/neighbours.js');
    const { loadSkills } = await import('../src/load/skills.js');
    const root = join(import.meta.dirname, '..');
    const family = loadSkills(join(root, 'skills'));
    const pack = loadNeighbours(join(root, 'examples/neighbours'), family);
    expect(pack.map((n) => n.dir)).toEqual(['git-commit', 'pdf-tool', 'spreadsheet', 'web-research']);
  });
});
