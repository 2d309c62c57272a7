import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { baseProject, projectsRemovedAfterAll, runInProcess, skillMd, spyBinary, testEnv, writeFiles, type Files } from './helpers.js';

/**
 * A command takes its working folder from its io alone: two commands run in this process at once, each from its own
 * project folder, while the process's own folder (this repository, with a suite of its own) stays where it is.
 */

/** A project whose one skill, case ids, fixture folder and profile are its own (`tag`), its case file's mistakes at `bad`. */
function taggedProject(tag: string, bad: 'none' | 'skill' | 'fixture'): Files {
  const cases = [
    `- id: pos-${tag}`,
    `  prompt: "please create a ${tag} record"`,
    `  expect: { skill: ${tag} }`,
    `- id: neg-${tag}`,
    '  prompt: "what is the weather like"',
    '  expect: { skill: none }',
    ...(bad === 'skill' ? [`- id: wrong-${tag}`, '  prompt: "x"', `  expect: { skill: not-${tag} }`] : []),
    ...(bad === 'fixture' ? [`- id: files-${tag}`, '  prompt: "x"', '  expect: { skill: none }', `  files: ../missing-${tag}`] : []),
    '',
  ];
  return {
    [`skills/${tag}/SKILL.md`]: skillMd(tag, `Handle ${tag} requests, create and list ${tag} records.`),
    'cases/main.yaml': cases.join('\n'),
    'skillprobe.config.yaml': `cases: cases/*.yaml\nworkspace: data-${tag}\n`,
    [`data-${tag}/readme.txt`]: `${tag}\n`,
    // Names the project's own skill: read from the other project, it would name no skill there.
    'sim/p.yaml': `seed: 1\ndefault:\n  - { p: 1, skill: ${tag} }\n`,
  };
}

describe('the working folder comes from io', () => {
  const project = projectsRemovedAfterAll(() => baseProject());
  const folder = (tag: string, bad: 'none' | 'skill' | 'fixture') => {
    const dir = project();
    writeFiles(dir, taggedProject(tag, bad));
    return dir;
  };

  it('two commands from two project folders at once each read their own config, skills and cases', async () => {
    const [a, b] = [folder('apple', 'none'), folder('berry', 'none')];
    const here = process.cwd();
    const [ra, rb] = await Promise.all([runInProcess(['plan'], { cwd: a }), runInProcess(['plan'], { cwd: b })]);
    expect(process.cwd()).toBe(here);
    expect(ra.exitCode, ra.stderr).toBe(0);
    expect(rb.exitCode, rb.stderr).toBe(0);
    // Each plan holds its own project's cases (the base project's and its tagged ones), never the other's.
    expect(ra.stdout).toMatch(/pos-apple/);
    expect(ra.stdout).not.toMatch(/berry/);
    expect(rb.stdout).toMatch(/pos-berry/);
    expect(rb.stdout).not.toMatch(/apple/);
  });

  it('two runs from two project folders at once each name their own files relative to their own folder', async () => {
    const [a, b] = [folder('apple', 'skill'), folder('berry', 'fixture')];
    const run = (dir: string) => runInProcess(['run', '--sim', 'sim/p.yaml', '--reporter', 'json=out/report.json'], { cwd: dir });
    const [ra, rb] = await Promise.all([run(a), run(b)]);
    expect(ra.exitCode, ra.stderr).toBe(2);
    expect(rb.exitCode, rb.stderr).toBe(2);
    expect(ra.stderr).toMatch(/^skillprobe: cases\/main\.yaml:9:\d+: .*not-apple/m);
    expect(ra.stderr).not.toMatch(/berry|sim\/p\.yaml|out\/report\.json|data-apple/);
    expect(rb.stderr).toMatch(/^skillprobe: cases\/main\.yaml:10:\d+: \.\.\/missing-berry does not exist/m);
    expect(rb.stderr).not.toMatch(/apple|sim\/p\.yaml|out\/report\.json|data-berry/);
  });

  it("a run's folder and its report file are made in its own project folder, never in the process's", async () => {
    const dir = folder('apple', 'none');
    const spy = spyBinary(dir);
    const argv = [
      'run',
      '--agent-binary',
      spy.path,
      '--transcripts',
      'runs',
      '--trials',
      '1',
      '--arms',
      'skill',
      '--reporter',
      'json=out/r.json',
    ];
    const r = await runInProcess(argv, { cwd: dir, env: testEnv({ ANTHROPIC_API_KEY: 'dummy' }) });
    // The stand-in agent answers nothing: what matters is where the run went, not its verdicts.
    expect(existsSync(spy.marker), r.stderr).toBe(true);
    const [runId] = readdirSync(join(dir, 'runs'));
    expect(existsSync(join(dir, 'runs', runId!, 'run.json'))).toBe(true);
    expect(existsSync(join(dir, 'out/r.json'))).toBe(true);
    expect(r.stdout).toMatch(new RegExp(`^run folder: runs/${runId}$`, 'm'));
    expect(existsSync(join(process.cwd(), 'runs')) || existsSync(join(process.cwd(), 'out/r.json'))).toBe(false);
  });
});
