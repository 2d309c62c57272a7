import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeCode } from '../src/agents/claude-code/adapter.js';
import { balanceFindings } from '../src/lint/balance.js';
import { LISTING_WARN_SHARE, listingBudgetFindings, listingChars } from '../src/lint/listing.js';

import {
  descriptionOverlaps,
  descriptionTerms,
  OVERLAP_WARNING,
  overlapFindings,
  overlapTable,
  ownDescription,
  SIBLING_SCORE,
} from '../src/lint/overlap.js';
import { todoPromptFindings } from '../src/lint/prompts.js';
import { renderFindings, renderFindingsJson } from '../src/lint/render.js';
import { allowedToolNames, allowedToolsFindings } from '../src/lint/tools.js';
import type { Finding, LintCase, LintSkill } from '../src/lint/types.js';
import { formatProblem } from '../src/util/input-error.js';
import { parseYamlText, validateYaml } from '../src/load/yaml-file.js';
import { profileReferenceProblems, profileSchema } from '../src/sim/profile.js';
import { baseProject, cleanup, makeProject, runInProcess, skillMd, testEnv, type Files } from './helpers.js';

const LISTING = claudeCode.skillListing;

const skill = (dir: string, description: string, allowedTools?: string): LintSkill => {
  const file = `skills/${dir}/SKILL.md`;
  return {
    dir,
    name: dir,
    description,
    allowedTools,
    links: [],
    at: { name: { file, line: 2, col: 7 }, description: { file, line: 3, col: 14 }, allowedTools: { file, line: 4, col: 16 } },
  };
};

const kase = (id: string, expect: string, extra: Partial<Pick<LintCase, 'prompt' | 'against' | 'tags'>> = {}): LintCase => ({
  id,
  prompt: extra.prompt ?? `a request for ${id}`,
  expect,
  against: extra.against ?? [],
  tags: extra.tags ?? [],
  at: { id: { file: 'cases/main.yaml', line: 5, col: 7 }, prompt: { file: 'cases/main.yaml', line: 6, col: 11 } },
});

const JIRA = 'Create, find, move and comment on Jira issues with the atl CLI. Use for bugs, tickets, sprints and boards.';
const CONFLUENCE = 'Create, find and update Confluence pages and spaces with the atl CLI. Use for docs, wiki pages and meeting notes.';
const CSV = 'Summarise a CSV export into a Markdown report with row counts and per-column totals.';
const WEATHER = 'Fetch the weather forecast for a city, with temperature and rain.';

describe('descriptionTerms', () => {
  it.each([
    ['Use when the user asks about Jira issues', ['jira', 'issue']],
    ['Summaries of pages and spaces', ['summary', 'page', 'space']],
    ['Shows status, class and bus routes', ['show', 'status', 'class', 'bus', 'route']],
    ['The 3 files, e.g. CSV', ['file', 'csv']],
  ])('%s', (text, terms) => {
    expect(descriptionTerms(text)).toEqual(terms);
  });
});

describe('description overlap: a score in [0, 1] per pair, with the shared words', () => {
  const score = (family: string[], a: number, b: number) =>
    descriptionOverlaps(family.map((d, i) => skill(`s${i}`, d))).find((p) => p.a === a && p.b === b)!;

  it.each([
    { name: 'near-duplicates', family: [JIRA, JIRA.replace('Jira issues', 'Jira tickets'), CSV], high: true },
    {
      name: 'the same words in another order',
      family: ['Create and search Jira tickets and sprints.', 'Search sprints and create tickets in Jira.', WEATHER],
      high: true,
    },
    {
      name: 'one skill a subset of the other',
      family: ['Export Grafana dashboards as JSON.', 'Export Grafana dashboards as JSON or PNG snapshots.'],
      high: true,
    },
    { name: 'unrelated skills', family: [CSV, WEATHER], high: false },
    {
      name: 'stop words alone in common',
      family: ['Use this when the user wants it.', 'Use this when the user asks for it and more.'],
      high: false,
    },
    { name: 'siblings that only share their tool', family: [JIRA, CONFLUENCE, CSV], high: false },
  ])('$name', ({ family, high }) => {
    const p = score(family, 0, 1);
    expect(p.score).toBeGreaterThanOrEqual(0);
    expect(p.score).toBeLessThanOrEqual(1);
    if (high) expect(p.score).toBeGreaterThan(OVERLAP_WARNING);
    else expect(p.score).toBeLessThanOrEqual(OVERLAP_WARNING);
  });

  it('is 1 for identical descriptions and 0 without a shared word', () => {
    expect(score([CSV, CSV], 0, 1).score).toBeCloseTo(1, 10);
    expect(score([CSV, WEATHER], 0, 1)).toMatchObject({ score: 0, shared: [] });
  });

  it('ranks shared words by how distinctive they are: a word every sibling uses comes last', () => {
    const p = score([JIRA, CONFLUENCE, 'Set up the atl CLI and its login.'], 0, 1);
    expect(p.shared).toEqual(expect.arrayContaining(['create', 'find', 'atl', 'cli']));
    expect(p.shared.indexOf('create')).toBeLessThan(p.shared.indexOf('atl'));
  });

  it('warns per similar pair, at the first description, with the score and the words', () => {
    const family = [skill('jira-a', JIRA), skill('jira-b', JIRA.replace('Jira issues', 'Jira tickets')), skill('csv', CSV)];
    const found = overlapFindings(family);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ severity: 'warning', check: 'overlap', file: 'skills/jira-a/SKILL.md', line: 3, col: 14 });
    expect(found[0]!.what).toMatch(/jira-a and jira-b read alike \(similarity 0\.\d\d; shared: ticket, atl, board, bug, cli, comment, …\)/);
    expect(overlapFindings([skill('jira', JIRA), skill('csv', CSV), skill('weather', WEATHER)])).toEqual([]);
  });

  it('prints a score for every pair that shares a distinctive word, most alike first, below the warning threshold too', () => {
    const table = overlapTable([
      skill('jira', JIRA),
      skill('jira-b', JIRA.replace('Jira issues', 'Jira tickets')),
      skill('csv', CSV),
      skill('weather', WEATHER),
    ]);
    const rows = table.split('\n').filter((l) => l.startsWith('  '));
    expect(rows[0]).toMatch(/^ {2}jira ~ jira-b\s+0\.\d\d {2}ticket, atl, /);
    const scores = rows.map((r) => Number(/ (\d\.\d\d) /.exec(r)![1]));
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(table).not.toMatch(/weather ~|~ weather/); // shares no distinctive word with the others
    expect(overlapTable([skill('csv', CSV), skill('weather', WEATHER)])).toBe('');
  });
});

describe('the report’s advice and lint agree: a sentence naming a sibling separates the two, it does not make them alike', () => {
  const pair = (a: string, b: string) => descriptionOverlaps([skill('atl-jira', a), skill('atl-confluence', b), skill('csv', CSV)])[0]!;
  const ISSUES = 'Create, find, move and comment on Jira issues with the atl CLI (atl jira …). Use for bugs, tickets and sprints.';
  const PAGES = 'Create, find and update Confluence pages and spaces with the atl CLI (atl confluence …). Use for docs and wiki.';

  it.each([
    ['use X for …', 'Use atl-confluence for Confluence pages, spaces and docs.', 'Use atl-jira for Jira issues, tickets and sprints.'],
    [
      'for …, use X instead',
      'For Confluence pages and wiki docs, use atl-confluence instead.',
      'For Jira tickets, bugs and sprints, use atl-jira instead.',
    ],
    [
      'one sentence, two clauses',
      'Not for pages or spaces; use atl-confluence for those.',
      'Not for issues or sprints; use atl-jira for those.',
    ],
    ['in parentheses', '(Pages and spaces: use atl-confluence.)', '(Issues and sprints: use atl-jira.)'],
  ])('%s: below the warning before and after the advice', (_, toJira, toConfluence) => {
    const before = pair(ISSUES, PAGES).score;
    const after = pair(`${ISSUES} ${toJira}`, `${PAGES} ${toConfluence}`).score;
    expect(before).toBeLessThanOrEqual(OVERLAP_WARNING);
    expect(after).toBeLessThanOrEqual(OVERLAP_WARNING);
    expect(after).toBeCloseTo(before, 10);
  });

  it('the sibling’s words without its name still count', () => {
    const toJira = 'Also handles Confluence pages, spaces and docs.';
    const toConfluence = 'Also handles Jira issues, tickets and sprints.';
    expect(pair(`${ISSUES} ${toJira}`, `${PAGES} ${toConfluence}`).score).toBeGreaterThan(OVERLAP_WARNING);
  });

  const FAMILY = [skill('atl', 'Router.'), skill('atl-jira', 'Issues.'), skill('atl-confluence', 'Pages.')];
  it.each([
    ['a sentence naming a sibling is left out', skill('atl-jira', 'Jira issues. Use atl-confluence for pages.'), 'Jira issues.'],
    ['the tool a skill is named after is no sibling', skill('atl-jira', 'Issues via the atl CLI.'), 'Issues via the atl CLI.'],
    ['a longer name is another name (not atl-jira)', skill('atl-confluence', 'Pages, not atl-jira-cloud.'), 'Pages, not atl-jira-cloud.'],
    ['the router names its sub-skills', skill('atl', 'Set up atl. For issues use atl-jira. Login.'), 'Set up atl. Login.'],
  ])('%s', (_, own, kept) => {
    const family = FAMILY.map((s) => (s.dir === own.dir ? own : s));
    expect(ownDescription(own, family)).toBe(kept);
  });
});

describe('listing budget', () => {
  const family = (n: number, length: number) => Array.from({ length: n }, (_, i) => skill(`s${i}`, 'x'.repeat(length)));

  it('counts each description up to the CLI cap, as listed', () => {
    expect(listingChars([skill('ab', 'hello')], LISTING)).toBe('- ab: hello\n'.length);
    expect(listingChars([skill('ab', 'x'.repeat(LISTING.descriptionCap + 500))], LISTING)).toBe(`- ab: \n`.length + LISTING.descriptionCap);
  });

  it.each([
    { n: 4, length: 200, warns: false },
    { n: 6, length: 1000, warns: true },
    { n: 20, length: 400, warns: true },
  ])('$n skills of $length characters: warns $warns', ({ n, length, warns }) => {
    const skills = family(n, length);
    expect(listingChars(skills, LISTING) >= LISTING_WARN_SHARE * LISTING.budgetChars).toBe(warns);
    expect(listingBudgetFindings(skills, LISTING)).toHaveLength(warns ? 1 : 0);
  });

  it('points at the longest description', () => {
    const skills = [...family(7, 900), skill('long', 'y'.repeat(1000))];
    expect(listingBudgetFindings(skills, LISTING)[0]).toMatchObject({ severity: 'warning', file: 'skills/long/SKILL.md', line: 3 });
  });
});

describe('suite balance', () => {
  const family = [skill('jira', JIRA), skill('confluence', CONFLUENCE), skill('csv', CSV)];
  const complete = [
    kase('j', 'jira'),
    kase('c', 'confluence'),
    kase('v', 'csv'),
    kase('j-trap', 'jira', { against: ['confluence'], tags: ['trap'] }),
    kase('c-trap', 'confluence', { against: ['jira'], tags: ['trap'] }),
    kase('neg', 'none'),
  ];
  const without = (id: string) => complete.filter((c) => c.id !== id);

  it('the shared-tool siblings count as confusable, the unrelated skill does not', () => {
    const pairs = descriptionOverlaps(family);
    expect(pairs.find((p) => p.a === 0 && p.b === 1)!.score).toBeGreaterThanOrEqual(SIBLING_SCORE);
    expect(pairs.filter((p) => p.b === 2).every((p) => p.score < SIBLING_SCORE)).toBe(true);
  });

  it.each([
    { name: 'a complete suite', cases: complete, expected: [] },
    { name: 'a skill without a positive case', cases: without('v'), expected: [/no case expects csv/] },
    {
      name: 'a pair with a trap one way only',
      cases: without('c-trap'),
      expected: [/no trap case expects confluence against its sibling jira/],
    },
    { name: 'no negative case', cases: without('neg'), expected: [/no negative case/] },
    {
      name: 'a trap tag without `against`',
      cases: [...complete, kase('t', 'jira', { tags: ['trap'] })],
      expected: [/"t" is tagged trap but names no sibling/],
    },
    {
      name: 'no cases of a skill at all',
      cases: [kase('v', 'csv'), kase('neg', 'none')],
      expected: [
        /no case expects jira/,
        /no case expects confluence/,
        /expects jira against its sibling confluence/,
        /expects confluence against its sibling jira/,
      ],
    },
  ])('$name', ({ cases, expected }) => {
    const found = balanceFindings(family, cases);
    expect(found.every((f) => f.severity === 'warning' && f.check === 'balance')).toBe(true);
    expect(found).toHaveLength(expected.length);
    for (const re of expected) expect(found.map((f) => f.what)).toContainEqual(expect.stringMatching(re));
  });
});

describe('TODO prompts', () => {
  it.each([
    ['TODO: a request that should fire alpha', true],
    ['create an alpha record (TODO)', true],
    ['create a todo list in alpha', false],
    ['TODOS are not scaffolds', false],
  ])('%s → warns %s', (prompt, warns) => {
    const found = todoPromptFindings([kase('a', 'alpha', { prompt })]);
    expect(found).toHaveLength(warns ? 1 : 0);
    if (warns) expect(found[0]).toMatchObject({ severity: 'warning', file: 'cases/main.yaml', line: 6, col: 11 });
  });
});

describe('allowed-tools against the trial tool lock', () => {
  it.each([
    ['Read Grep', ['Read', 'Grep']],
    ['Bash(git add:*) Bash(git status:*), Read', ['Bash', 'Read']],
    ['mcp__github__get_issue, WebFetch', ['mcp__github__get_issue', 'WebFetch']],
    ['', []],
  ])('%j → %j', (value, names) => {
    expect(allowedToolNames(value)).toEqual(names);
  });

  it('warns once per denied tool, naming it, and never for a trial tool', () => {
    const found = allowedToolsFindings(
      [skill('git', 'Commits.', 'Bash(git add:*) Bash(git commit:*) Read Write'), skill('reader', 'Reads.', 'Read, Grep')],
      claudeCode.trialTools,
    );
    expect(found.map((f) => f.what)).toEqual([
      expect.stringMatching(/git allows Bash, but trials offer only Read, Glob, Grep, Skill/),
      expect.stringMatching(/git allows Write/),
    ]);
    expect(found[0]).toMatchObject({ severity: 'warning', file: 'skills/git/SKILL.md', line: 4, col: 16 });
  });

  it('the adapter locks trials to exactly its trialTools', () => {
    const inv = claudeCode.invocation({
      prompt: 'p',
      role: 'trial',
      model: 'm',
      maxTurns: 1,
      cliRetries: 0,
      deadlineMs: 1000,
      workspace: '/tmp',
      home: '/tmp',
      tmp: '/tmp',
      harnessDir: '/tmp',
      callerEnv: {},
      binary: process.execPath,
    });
    expect(claudeCode.trialTools).toEqual(['Read', 'Glob', 'Grep', 'Skill']);
    expect(inv.args.filter((a) => a.startsWith('--tools'))).toEqual([`--tools=${claudeCode.trialTools.join(',')}`]);
  });
});

describe('profile references', () => {
  const check = (text: string, caseIds?: string[]) => {
    const yaml = parseYamlText('sim.yaml', text);
    return profileReferenceProblems({ profile: validateYaml(yaml, profileSchema), yaml }, { skills: ['alpha', 'alpha-beta'], caseIds });
  };

  it.each([
    {
      name: 'a rule for a case that exists, behaviours naming members',
      text: 'rules:\n  - case: pos-alpha\n    do:\n      - { skill: alpha }\n      - { read: alpha-beta }\n      - { sibling: alpha }\n',
      expected: [],
    },
    {
      name: "a read of a workspace file (a user's file), which names no skill",
      text: 'rules:\n  - case: pos-alpha\n    do:\n      - { read: { file: report.pdf } }\n',
      expected: [],
    },
    {
      name: 'a rule for a missing case',
      text: 'rules:\n  - case: pos-alfa\n    do:\n      - { skill: alpha }\n',
      expected: ['sim.yaml:2:11: rule 1 matches case "pos-alfa", which is not in the suite'],
    },
    {
      name: 'a skill behaviour naming no member',
      text: 'rules:\n  - case: pos-alpha\n    do:\n      - { p: 1, skill: gamma }\n',
      expected: ['sim.yaml:4:24: rule 1 behaviour 1: `skill: gamma` names no skill'],
    },
    {
      name: 'read and sibling naming no member',
      text: 'rules:\n  - prompt: alpha\n    do:\n      - { read: alph }\n      - { sibling: beta }\n',
      expected: ['sim.yaml:4:17: rule 1 behaviour 1: `read: alph`', 'sim.yaml:5:20: rule 1 behaviour 2: `sibling: beta`'],
    },
    {
      name: 'a default behaviour naming no member',
      text: 'default:\n  - { p: 1, answer: true }\n  - { p: 1, skill: omega }\n',
      expected: ['sim.yaml:3:20: default behaviour 2: `skill: omega`'],
    },
  ])('$name', ({ text, expected }) => {
    const lines = check(text, ['pos-alpha', 'neg']).map(formatProblem);
    expect(lines).toHaveLength(expected.length);
    expected.forEach((start, i) => expect(lines[i]!.startsWith(start)).toBe(true));
  });

  it('leaves case references unchecked when the suite is unknown', () => {
    expect(check('rules:\n  - case: anything\n    do: [{ answer: true }]\n')).toEqual([]);
  });
});

describe('rendering', () => {
  const findings: Finding[] = [
    { severity: 'error', check: 'load', file: 'cases/a.yaml', line: 2, col: 11, what: 'bad', todo: 'fix it' },
    { severity: 'warning', check: 'overlap', file: 'skills/a/SKILL.md', line: 3, col: 14, what: 'alike', todo: 'reword' },
  ];

  it('one finding per line, then the count', () => {
    expect(renderFindings(findings, [])).toBe(
      'cases/a.yaml:2:11: error: bad — fix it\nskills/a/SKILL.md:3:14: warning: alike — reword\n1 error, 1 warning\n',
    );
    expect(renderFindings([], ['suite balance']).trim()).toBe(
      '0 errors, 0 warnings (not checked until the errors are fixed: suite balance)',
    );
  });

  it('--json is the findings as an array', () => {
    expect(JSON.parse(renderFindingsJson(findings))).toEqual(
      findings.map(({ severity, check, file, line, col, what, todo }) => ({ severity, check, file, line, col, what, todo })),
    );
  });
});

describe('skillprobe lint (CLI)', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));
  const FINDING = /^[^\s:]+:\d+:\d+: (error|warning): .+ — .+$/;

  /** A project every check passes: two distinct skills, traps are not needed, a negative case. */
  const cleanProject = (): Files => ({
    'skills/csv-report/SKILL.md': skillMd('csv-report', CSV),
    'skills/weather/SKILL.md': skillMd('weather', WEATHER),
    'cases/main.yaml': [
      '- id: csv',
      '  prompt: "summarise sales.csv"',
      '  expect: { skill: csv-report }',
      '- id: rain',
      '  prompt: "will it rain in Oslo"',
      '  expect: { skill: weather }',
      '- id: neg',
      '  prompt: "what is a CSV"',
      '  expect: { skill: none }',
      '',
    ].join('\n'),
  });

  const lint = async (files: Files, args: string[] = []) => {
    const dir = makeProject(files);
    dirs.push(dir);
    return runInProcess(['lint', ...args], { cwd: dir, env: testEnv() });
  };

  it('a clean project: exit 0 and only the count', async () => {
    const r = await lint(cleanProject());
    expect(r.stdout).toBe('0 errors, 0 warnings'); // execa strips the final newline
    expect(r.exitCode).toBe(0);
  });

  it('warnings alone exit 0; every line is file:line:col: severity: what — what to do', async () => {
    const f = baseProject();
    f['cases/main.yaml'] += '- id: scaffold\n  prompt: "TODO: a request for alpha-beta"\n  expect: { skill: alpha-beta }\n';
    const r = await lint(f);
    // Findings, the count line, then the overlap table of the siblings.
    const [findings, overlap] = r.stdout.trimEnd().split('\nsibling overlap');
    const lines = findings!.split('\n');
    expect(r.exitCode).toBe(0);
    expect(lines.slice(0, -1).every((l) => FINDING.test(l))).toBe(true);
    expect(lines).toContainEqual(expect.stringMatching(/^cases\/main\.yaml:9:11: warning: case "scaffold" still has TODO/));
    expect(lines.at(-1)).toMatch(/^0 errors, [1-9]\d* warnings$/);
    expect(overlap).toMatch(/\n {2}alpha ~ alpha-beta +0\.\d\d {2}alpha/);
  });

  it('input that does not load becomes errors with file:line:col, all of them, exit 1, no stack trace', async () => {
    const f = cleanProject();
    f['skills/weather/SKILL.md'] = skillMd('Weather_Tool', WEATHER);
    f['cases/broken.yaml'] = '- id: a\n  prompt: "unterminated\n  expect: { skill: weather }\n';
    f['cases/main.yaml'] += '- id: slash\n  prompt: "/weather Oslo"\n  expect: { skill: weather }\n';
    const r = await lint(f);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/^skills\/weather\/SKILL\.md:2:7: error: name "Weather_Tool" breaks the Agent Skills rule/m);
    expect(r.stdout).toMatch(/^cases\/broken\.yaml:\d+:\d+: error: YAML syntax error/m);
    expect(r.stdout).toMatch(/^cases\/main\.yaml:11:11: error: case "slash" starts with "\/weather", which the CLI expands/m);
    expect(r.stdout).toMatch(/^3 errors, 0 warnings \(not checked until the errors are fixed: .*suite balance\)$/m);
    expect(r.stderr).toBe('');
  });

  it('a description over the Agent Skills limit (claude-api’s 1,068 characters) is a warning saying what each CLI shows, exit 0', async () => {
    const f = cleanProject();
    f['skills/csv-report/SKILL.md'] = skillMd('csv-report', `Summarise CSV files. ${'x'.repeat(1068 - 21)}`);
    const r = await lint(f);
    expect(r.stdout).toMatch(
      /^skills\/csv-report\/SKILL\.md:3:14: warning: description is 1068 characters, over the Agent Skills limit of 1024; the pinned CLIs still load the skill: Claude Code lists all of it, Codex CLI lists about its first 1024 characters, Gemini CLI lists all of it — shorten it to at most 1024 characters/m,
    );
    expect(r.exitCode).toBe(0);
  });

  it('a bad config is an error finding', async () => {
    const r = await lint({ ...cleanProject(), 'skillprobe.config.yaml': 'trials: 3\nconcurency: 4\n' });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/^skillprobe\.config\.yaml:2:1: error: unknown key `concurency`/m);
  });

  it('--sim: profile rules naming no case or no skill are errors at the profile position', async () => {
    const profile =
      'seed: 1\nrules:\n  - case: rian\n    do:\n      - { p: 1, skill: wether }\n  - case: rain\n    do:\n      - { p: 1, skill: weather }\n';
    const r = await lint({ ...cleanProject(), 'sim/p.yaml': profile }, ['--sim', 'sim/p.yaml']);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/^sim\/p\.yaml:3:11: error: rule 1 matches case "rian", which is not in the suite/m);
    expect(r.stdout).toMatch(/^sim\/p\.yaml:5:24: error: rule 1 behaviour 1: `skill: wether` names no skill/m);
    // The cases it has no rule for (the typo's among them), with no router to play them: named, not refused.
    expect(r.stdout.match(/no rule for case "(\w+)"/g)).toEqual(['no rule for case "csv"', 'no rule for case "neg"']);
    expect(r.stdout).toMatch(/^2 errors, 2 warnings$/m);
  });

  it('a symlink inside a skill is a warning (trials get a copy), one out of it an error (it would leak what it names)', async () => {
    const f = cleanProject();
    f['skills/weather/docs/cities.md'] = 'Oslo\n';
    f['secret.txt'] = 'key\n';
    const dir = makeProject(f);
    dirs.push(dir);
    symlinkSync('docs/cities.md', join(dir, 'skills/weather/cities.md'));
    const inside = await runInProcess(['lint'], { cwd: dir, env: testEnv() });
    expect(inside.exitCode).toBe(0);
    expect(inside.stdout).toMatch(
      /^skills\/weather\/cities\.md: warning: symlink to docs\/cities\.md: each trial gets a copy of the file it names/m,
    );
    symlinkSync('../../secret.txt', join(dir, 'skills/csv-report/key.txt'));
    const outside = await runInProcess(['lint'], { cwd: dir, env: testEnv() });
    expect(outside.exitCode).toBe(1);
    expect(outside.stdout).toMatch(
      /^skills\/csv-report\/key\.txt: error: symlink to \.\.\/\.\.\/secret\.txt leads outside the skill folder .*secret\.txt.* — copy the file into the skill folder/m,
    );
  });

  it('without --sim, the project’s default profile is checked when it exists; --sim names another', async () => {
    const stale = 'seed: 1\nrules:\n  - case: rian\n    do: [{ skill: weather }]\n';
    const r = await lint({ ...cleanProject(), 'sim/skillprobe.profile.yaml': stale });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/^sim\/skillprobe\.profile\.yaml:3:11: error: rule 1 matches case "rian", which is not in the suite/m);
    const files = { ...cleanProject(), 'sim/skillprobe.profile.yaml': stale, 'sim/p.yaml': 'seed: 1\n' };
    const other = await lint(files, ['--sim', 'sim/p.yaml']);
    expect(other.exitCode).toBe(0);
  });

  it('--json prints the findings as a JSON array and nothing else', async () => {
    const f = cleanProject();
    f['skills/weather/SKILL.md'] = skillMd('weather', WEATHER).replace('description:', 'allowed-tools: Bash(curl:*)\ndescription:');
    const r = await lint(f, ['--json']);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      {
        severity: 'warning',
        check: 'allowed-tools',
        file: 'skills/weather/SKILL.md',
        line: 3,
        col: 16,
        what: expect.stringMatching(/allows Bash/),
        todo: expect.any(String),
      },
    ]);
  });
});
