import { Ajv } from 'ajv';
import { mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { gist, scaffold, scaffoldCases, TAG_PRESETS } from '../src/init/scaffold.js';
import { confusablePairs } from '../src/lint/overlap.js';
import { adapterFor, AGENT_IDS } from '../src/agents/registry.js';
import { loadCases } from '../src/load/cases.js';
import { loadConfig } from '../src/load/config.js';
import { loadSkills } from '../src/load/skills.js';
import { jsonSchemas } from '../src/schema/json-schemas.js';
import { loadProfileForSuite } from '../src/sim/profile.js';
import { DEFAULT_ROUTER, routerChances } from '../src/sim/router.js';
import { cleanup, makeProject, ROOT, runInProcess, skillMd, type Files } from './helpers.js';

const family = (...dirs: string[]): Files =>
  Object.fromEntries(
    dirs.map((d) => [`.claude/skills/${d}/SKILL.md`, skillMd(d, `Handle ${d} requests. Create and list ${d} records with the ${d} CLI.`)]),
  );

const SCHEMA_LINE = /^# yaml-language-server: \$schema=(\S+)\n/;

describe('the scaffold (pure)', () => {
  const NOTES = 'Search the team notes for a phrase.';
  const WRITE = 'Write a page into the team notes.';
  const WEATHER = 'Fetch the forecast for a city.';
  const described = (skills: Record<string, string>) =>
    Object.entries(skills).map(([dir, description]) => ({ dir, name: dir, description }));
  const BOTH_WAYS = ['notes-search>notes-write', 'notes-write>notes-search'];

  it.each([
    [{ a: NOTES }, 2, []],
    [{ 'notes-search': NOTES, 'notes-write': WRITE }, 4, BOTH_WAYS],
    [{ 'notes-search': NOTES, 'notes-write': WRITE, weather: WEATHER }, 6, BOTH_WAYS],
    [{ csv: 'Summarise a CSV export.', weather: WEATHER, pdf: 'Merge PDF files.' }, 6, []],
  ])('%j: a happy case and a near-miss negative per skill, a trap each way per pair sharing vocabulary', (skills, perSkill, traps) => {
    const family = described(skills);
    const dirs = Object.keys(skills);
    const cases = scaffoldCases(family);
    // The pairs lint asks traps for.
    const linted = confusablePairs(family).flatMap((p) => [`${dirs[p.a]}>${dirs[p.b]}`, `${dirs[p.b]}>${dirs[p.a]}`]);
    expect(linted).toEqual(traps);
    const happy = cases.filter((c) => c.tags.includes('happy'));
    const nearMiss = cases.filter((c) => c.tags.includes('near-miss'));
    expect(happy.map((c) => c.expect.skill)).toEqual(dirs);
    expect(nearMiss.every((c) => c.expect.skill === 'none')).toBe(true);
    expect(happy.length + nearMiss.length).toBe(perSkill);
    const trapCases = cases.filter((c) => c.tags.includes('trap'));
    expect(trapCases.map((t) => `${t.expect.skill}>${t.against}`)).toEqual(traps);
    expect(
      cases.every(
        (c) =>
          c.prompt.startsWith('TODO: ') && c.prompt.includes(c.expect.skill === 'none' ? c.id.replace(/-near-miss$/, '') : c.expect.skill),
      ),
    ).toBe(true);
  });

  it.each([
    ['Create issues. Use for bugs.', 'Create issues'],
    ['Summarise a CSV; totals per column', 'Summarise a CSV'],
    ['Search the\n  team notes', 'Search the team notes'],
    ['x'.repeat(200), `${'x'.repeat(119)}…`],
  ])('gist(%j) = %j', (description, g) => {
    expect(gist(description)).toBe(g);
  });

  it('writes files the real loaders accept and the JSON Schemas validate, each naming its schema first', () => {
    const dir = makeProject(family('notes-search', 'notes-write'));
    try {
      const skills = loadSkills(join(dir, '.claude/skills'));
      const paths = {
        skillsDir: '.claude/skills',
        cases: 'cases/*.yaml',
        schema: { config: 'c.json', cases: 'k.json', profile: 'p.json' },
      };
      const t = scaffold(skills, paths);
      mkdirSync(join(dir, 'cases'));
      mkdirSync(join(dir, 'sim'));
      writeFileSync(join(dir, 'skillprobe.config.yaml'), t.config);
      writeFileSync(join(dir, 'cases/s.yaml'), t.cases);
      writeFileSync(join(dir, 'sim/p.yaml'), t.profile);
      const { config } = loadConfig(join(dir, 'skillprobe.config.yaml'), {}, dir);
      expect(config).toMatchObject({
        skillsDir: '.claude/skills',
        cases: 'cases/*.yaml',
        transcriptsDir: 'transcripts',
        decision: { mode: 'sequential', threshold: 0.9, delta: 0.2, alpha: 0.05, beta: 0.2, minTrials: 5, tags: TAG_PRESETS },
      });
      // No model: each agent asks for its CLI's own default; a commented block shows how to name one per agent.
      expect(config.model).toBeUndefined();
      expect(config.models).toBeUndefined();
      expect(t.config).toContain(['# models:', ...AGENT_IDS.map((id) => `#   ${id}: ${adapterFor(id).defaultModel}`)].join('\n'));
      // No cap by default: every case is decided by its design's maximum; the cap is shown, commented out.
      expect(config.decision.maxTrials).toBeUndefined();
      expect(t.config).toMatch(/^ {2}# maxTrials: \d+ +# a cap/m);
      for (const key of ['mode', 'threshold', 'delta', 'alpha', 'beta', 'minTrials'])
        expect(t.config).toMatch(new RegExp(`^  ${key}: \\S+`, 'm'));
      const suite = loadCases(join(dir, config.cases as string), skills, config.decision);
      expect(suite.cases.map((c) => c.id)).toEqual([
        'notes-search-happy',
        'notes-search-near-miss',
        'notes-write-happy',
        'notes-write-near-miss',
        'trap-notes-search-not-notes-write',
        'trap-notes-write-not-notes-search',
      ]);
      expect(suite.cases.filter((c) => c.against).map((c) => [c.expect.skill, c.against])).toEqual([
        ['notes-search', ['notes-write']],
        ['notes-write', ['notes-search']],
      ]);
      // No rule per case: the description router plays every case, so its prompt and the descriptions decide.
      const profile = loadProfileForSuite(join(dir, 'sim/p.yaml'), {
        skills: skills.map((s) => s.dir),
        caseIds: suite.cases.map((c) => c.id),
      });
      expect(profile.rules).toEqual([]);
      expect(profile.router).toEqual(DEFAULT_ROUTER);
      const likeliest = (prompt: string) => {
        const c = routerChances(prompt, skills, profile.router!);
        const best = c.skills.reduce((a, b) => (b.p > a.p ? b : a));
        return best.p > c.none ? best.name : 'none';
      };
      expect(likeliest('search: list the notes-search records of the notes-search CLI')).toBe('notes-search');
      expect(likeliest('write: create a notes-write record with the notes-write CLI')).toBe('notes-write');
      expect(likeliest('what is the capital of France')).toBe('none');
      expect(t.profile).toMatch(/SIMULATOR[\s\S]*NOT a model[\s\S]*never a skill/);

      const ajv = new Ajv({ strict: false });
      const schemas = jsonSchemas();
      for (const [text, name, schema] of [
        [t.config, 'config', 'c.json'],
        [t.cases, 'cases', 'k.json'],
        [t.profile, 'profile', 'p.json'],
      ] as const) {
        expect(SCHEMA_LINE.exec(text)?.[1]).toBe(schema);
        expect(ajv.validate(schemas[name]!, parse(text)), `${name}: ${ajv.errorsText()}`).toBe(true);
      }
    } finally {
      cleanup(dir);
    }
  });
});

describe('skillprobe init (CLI)', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));
  const project = (files: Files) => {
    const dir = makeProject(files);
    dirs.push(dir);
    return dir;
  };

  it('finds skills/ when .claude/skills holds none, and points each schema line at this skillprobe’s schemas', async () => {
    const dir = project({ '.claude/skills/README.md': 'not a skill', 'skills/alpha/SKILL.md': skillMd('alpha', 'Handle alpha.') });
    const r = await runInProcess(['init'], { cwd: dir });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/found 1 skill in skills: alpha/);
    expect(r.stdout).toMatch(/wrote skillprobe\.config\.yaml\nwrote cases\/skillprobe\.yaml\nwrote sim\/skillprobe\.profile\.yaml/);
    expect(r.stdout).toMatch(/\n  skillprobe lint\n  skillprobe run --sim sim\/skillprobe\.profile\.yaml /);
    expect(readFileSync(join(dir, 'skillprobe.config.yaml'), 'utf8')).toMatch(/\nskillsDir: skills\n/);
    for (const [file, name] of [
      ['skillprobe.config.yaml', 'config'],
      ['cases/skillprobe.yaml', 'cases'],
      ['sim/skillprobe.profile.yaml', 'profile'],
    ]) {
      const schema = SCHEMA_LINE.exec(readFileSync(join(dir, file!), 'utf8'))?.[1];
      expect(schema, file).toBeDefined();
      // The editor resolves the path from the file's own folder.
      expect(realpathSync(resolve(dirname(join(dir, file!)), schema!))).toBe(realpathSync(join(ROOT, 'schemas', `${name}.schema.json`)));
    }
    const lint = await runInProcess(['lint', '--sim', 'sim/skillprobe.profile.yaml'], { cwd: dir });
    expect(lint.exitCode).toBe(0); // TODO prompts are warnings, not errors
    expect(lint.stdout).toMatch(/TODO/);
  }, 120_000);

  it('a case added later is played like the scaffolded ones, and lint names a case a rule-playing profile leaves to its default', async () => {
    const dir = project(family('notes-search', 'notes-write'));
    expect((await runInProcess(['init'], { cwd: dir })).exitCode).toBe(0);
    const casesFile = join(dir, 'cases/skillprobe.yaml');
    const added = '- id: added-later\n  prompt: "search the team notes for the offsite plan"\n  expect: { skill: notes-search }\n';
    writeFileSync(casesFile, readFileSync(casesFile, 'utf8') + added);
    const clean = await runInProcess(['lint'], { cwd: dir });
    expect(clean.stdout).not.toMatch(/no rule for case/);
    // A profile that plays cases by rule, without a router: every case it has no rule for is named.
    writeFileSync(
      join(dir, 'sim/skillprobe.profile.yaml'),
      'seed: 1\nrules:\n  - { case: notes-search-happy, do: [{ skill: notes-search }] }\n',
    );
    const r = await runInProcess(['lint'], { cwd: dir });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(
      /^cases\/skillprobe\.yaml:\d+:7: warning: the simulator profile sim\/skillprobe\.profile\.yaml has no rule for case "added-later" and no router/m,
    );
    expect(r.stdout.match(/has no rule for case/g)).toHaveLength(6);
  }, 120_000);

  it('prefers .claude/skills when both folders hold skills', async () => {
    const dir = project({ ...family('alpha'), 'skills/other/SKILL.md': skillMd('other', 'Handle other.') });
    const elsewhere = project({});
    const r = await runInProcess(['init', '--dir', dir], { cwd: elsewhere });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/found 1 skill in \.claude\/skills: alpha/);
    expect(readFileSync(join(dir, 'skillprobe.config.yaml'), 'utf8')).toMatch(/\nskillsDir: \.claude\/skills\n/);
    expect(readdirSync(elsewhere)).toEqual([]); // --dir, not the current folder
  }, 120_000);

  it('never overwrites a file: existing ones are kept and named, the others written', async () => {
    const dir = project({ ...family('alpha'), 'skillprobe.config.yaml': 'model: mine\n', 'sim/skillprobe.profile.yaml': 'seed: 9\n' });
    const r = await runInProcess(['init'], { cwd: dir });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/kept existing skillprobe\.config\.yaml/);
    expect(r.stdout).toMatch(/wrote cases\/skillprobe\.yaml/);
    expect(r.stdout).toMatch(/kept existing sim\/skillprobe\.profile\.yaml/);
    expect(readFileSync(join(dir, 'skillprobe.config.yaml'), 'utf8')).toBe('model: mine\n');
    expect(readFileSync(join(dir, 'sim/skillprobe.profile.yaml'), 'utf8')).toBe('seed: 9\n');
    expect(readdirSync(join(dir, 'cases'))).toEqual(['skillprobe.yaml']);
    const again = await runInProcess(['init'], { cwd: dir });
    expect(again.exitCode).toBe(0);
    expect(again.stdout.match(/kept existing/g)).toHaveLength(3);
  }, 120_000);

  it('finds skills kept in .agents/skills, the folder Codex and Gemini read', async () => {
    const dir = project({ '.agents/skills/notes/SKILL.md': skillMd('notes', 'Search the team notes for a phrase.') });
    const r = await runInProcess(['init'], { cwd: dir });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('found 1 skill in .agents/skills: notes');
  }, 120_000);

  it('a description over the Agent Skills limit (claude-api has 1,068 characters) is no reason to write nothing', async () => {
    const dir = project({
      ...family('notes'),
      '.claude/skills/claude-api/SKILL.md': skillMd('claude-api', `Build apps with the Claude API. ${'x'.repeat(1068 - 32)}`),
    });
    const r = await runInProcess(['init'], { cwd: dir });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('found 2 skills in .claude/skills: claude-api, notes');
    expect(readdirSync(join(dir, 'cases'))).toEqual(['skillprobe.yaml']);
  }, 120_000);

  it('a --dir that does not exist is an input error', async () => {
    const dir = project({});
    const r = await runInProcess(['init', '--dir', 'nowhere'], { cwd: dir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/nowhere: folder not found — pass the project folder with --dir/);
  }, 120_000);

  it.each([
    [
      { 'README.md': 'no skills' },
      /no skills here \(looked for \.claude\/skills\/\*\/SKILL\.md, \.agents\/skills\/\*\/SKILL\.md, skills\/\*\/SKILL\.md\)/,
    ],
    [{ 'skills/notes/README.md': 'a folder without SKILL.md' }, /no skills here/],
    [{ '.claude/skills': 'a file where the skills folder should be' }, /no skills here/],
    [{ '.claude/skills/Bad_Name/SKILL.md': skillMd('Bad_Name', 'x') }, /SKILL\.md:2:7: name "Bad_Name" breaks the Agent Skills rule/],
  ])(
    'refuses %j with exit 2 and writes nothing',
    async (files, says) => {
      const dir = project(files);
      const r = await runInProcess(['init'], { cwd: dir });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(says);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
      expect(readdirSync(dir).sort()).toEqual([...new Set(Object.keys(files).map((f) => f.split('/')[0]!))].sort());
    },
    120_000,
  );
});
