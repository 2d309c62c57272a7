import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gist, scaffold, scaffoldCases } from '../src/init/scaffold.js';
import { loadCases } from '../src/load/cases.js';
import { loadConfig } from '../src/load/config.js';
import { loadSkills } from '../src/load/skills.js';
import { loadProfileForSuite } from '../src/sim/profile.js';
import { cleanup, makeProject, runCli, skillMd, type Files } from './helpers.js';

const family = (...dirs: string[]): Files =>
  Object.fromEntries(dirs.map((d) => [`.claude/skills/${d}/SKILL.md`, skillMd(d, `Handle ${d} requests. Create and list ${d} records with the ${d} CLI.`)]));

describe('the scaffold (pure)', () => {
  it.each([
    [['a'], 2, 0],
    [['a', 'b'], 4, 2],
    [['a', 'b', 'c'], 6, 6],
  ])('%j: a happy case and a near-miss negative per skill, a trap each way per sibling pair', (dirs, perSkill, traps) => {
    const cases = scaffoldCases(dirs.map((dir) => ({ dir, description: `About ${dir}.` })));
    expect(cases.filter((c) => !c.tags.includes('trap'))).toHaveLength(perSkill);
    const trapCases = cases.filter((c) => c.tags.includes('trap'));
    expect(trapCases).toHaveLength(traps);
    for (const t of trapCases) expect(t.against).not.toBe(t.expect.skill);
    expect(new Set(trapCases.map((t) => `${t.expect.skill}>${t.against}`)).size).toBe(traps);
    expect(cases.every((c) => c.prompt.startsWith('TODO') && c.prompt.trim() !== '')).toBe(true);
  });

  it.each([
    ['Create issues. Use for bugs.', 'Create issues'],
    ['Summarise a CSV; totals per column', 'Summarise a CSV'],
    ['x'.repeat(200), `${'x'.repeat(119)}…`],
  ])('gist(%j) = %j', (description, g) => {
    expect(gist(description)).toBe(g);
  });

  it('writes files the real loaders accept, with a schema line first', () => {
    const dir = makeProject(family('notes-search', 'notes-write'));
    try {
      const skills = loadSkills(join(dir, '.claude/skills'));
      const paths = { skillsDir: '.claude/skills', casesFile: 'cases/s.yaml', profileFile: 'sim/p.yaml', schema: { config: 'c.json', cases: 'k.json', profile: 'p.json' } };
      const t = scaffold(skills, paths);
      mkdirSync(join(dir, 'cases'));
      mkdirSync(join(dir, 'sim'));
      writeFileSync(join(dir, 'skillprobe.config.yaml'), t.config);
      writeFileSync(join(dir, 'cases/s.yaml'), t.cases);
      writeFileSync(join(dir, 'sim/p.yaml'), t.profile);
      const { config } = loadConfig(join(dir, 'skillprobe.config.yaml'), {});
      expect(config).toMatchObject({ skillsDir: '.claude/skills', cases: 'cases/s.yaml', decision: { mode: 'sprt', threshold: 0.9, delta: 0.2, maxTrials: 30 } });
      const suite = loadCases(join(dir, 'cases/s.yaml'), skills, config.decision);
      expect(suite.cases.map((c) => c.id)).toEqual(['notes-search-happy', 'notes-search-near-miss', 'notes-write-happy', 'notes-write-near-miss', 'trap-notes-search-not-notes-write', 'trap-notes-write-not-notes-search']);
      const profile = loadProfileForSuite(join(dir, 'sim/p.yaml'), { skills: skills.map((s) => s.dir), caseIds: suite.cases.map((c) => c.id) });
      expect(profile.rules.map((r) => r.case)).toEqual(suite.cases.map((c) => c.id));
      for (const [text, schema] of [[t.config, 'c.json'], [t.cases, 'k.json'], [t.profile, 'p.json']] as const) {
        expect(text.split('\n')[0]).toBe(`# yaml-language-server: $schema=${schema}`);
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

  it('finds skills/ when there is no .claude/skills, and points the schema lines at this skillprobe', async () => {
    const dir = project({ 'skills/alpha/SKILL.md': skillMd('alpha', 'Handle alpha.') });
    const r = await runCli(['init'], { cwd: dir });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/found 1 skill in skills: alpha/);
    expect(r.stdout).toMatch(/wrote skillprobe\.config\.yaml\nwrote cases\/skillprobe\.yaml\nwrote sim\/skillprobe\.profile\.yaml/);
    expect(readFileSync(join(dir, 'skillprobe.config.yaml'), 'utf8')).toMatch(/^# yaml-language-server: \$schema=\S+\/schemas\/config\.schema\.json\n[\s\S]*\nskillsDir: skills\n/);
    const lint = await runCli(['lint', '--sim', 'sim/skillprobe.profile.yaml'], { cwd: dir });
    expect(lint.exitCode).toBe(0); // TODO prompts are warnings, not errors
    expect(lint.stdout).toMatch(/still has TODO/);
  });

  it('never overwrites a file: existing ones are kept and named, the others written', async () => {
    const dir = project({ ...family('alpha'), 'skillprobe.config.yaml': 'model: mine\n' });
    const r = await runCli(['init'], { cwd: dir });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/kept existing skillprobe\.config\.yaml/);
    expect(readFileSync(join(dir, 'skillprobe.config.yaml'), 'utf8')).toBe('model: mine\n');
    expect(readdirSync(join(dir, 'cases'))).toEqual(['skillprobe.yaml']);
  });

  it.each([
    [{ 'README.md': 'no skills' }, /no skills here \(looked for \.claude\/skills\/\*\/SKILL\.md and skills\/\*\/SKILL\.md\)/],
    [{ '.claude/skills/Bad_Name/SKILL.md': skillMd('Bad_Name', 'x') }, /SKILL\.md:2:7: name "Bad_Name" breaks the Agent Skills rule/],
  ])('refuses %j with exit 2 and writes nothing', async (files, says) => {
    const dir = project(files);
    const r = await runCli(['init'], { cwd: dir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(says);
    expect(readdirSync(dir).sort()).toEqual(Object.keys(files).map((f) => f.split('/')[0]!).sort());
  });

  it('a perfect skill PASSes with the scaffolded defaults, within their maximum (the real CLI against the simulator)', async () => {
    const dir = project(family('notes-search', 'notes-write'));
    expect((await runCli(['init'], { cwd: dir })).exitCode).toBe(0);
    const perfect = 'seed: 1\nrules:\n' + ['notes-search', 'notes-write'].map((s) => `  - { case: ${s}-happy, do: [{ skill: ${s} }] }\n`).join('');
    writeFileSync(join(dir, 'sim/perfect.yaml'), perfect);
    const r = await runCli(['run', '--sim', 'sim/perfect.yaml', '--tag', 'happy'], { cwd: dir, timeoutMs: 240_000 });
    expect(r.exitCode).toBe(0);
    const runDir = join(dir, 'transcripts', readdirSync(join(dir, 'transcripts'))[0]!);
    const results = JSON.parse(readFileSync(join(runDir, 'results.json'), 'utf8')) as { verdicts: { caseId: string; verdict: string; decidedAt?: number; params: { maxTrials: number } }[] };
    expect(results.verdicts.map((v) => [v.caseId, v.verdict])).toEqual([
      ['notes-search-happy', 'PASS'],
      ['notes-write-happy', 'PASS'],
    ]);
    for (const v of results.verdicts) expect(v.decidedAt).toBeLessThanOrEqual(v.params.maxTrials);
  }, 240_000);
});
