import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { baseProject, cleanup, makeProject, runCli, skillMd, spyBinary, testEnv, type Files } from './helpers.js';

interface BadInput {
  name: string;
  change: (f: Files) => void;
  args?: string[];
  /** Run without the dummy API key every other case gets. */
  withoutKey?: boolean;
  /** What the message must name: the file and the line (and column), or the flag. */
  where: RegExp;
  /** A word of the explanation, so the message says what is wrong. */
  says: RegExp;
}

const cases = (text: string) => (f: Files) => {
  f['cases/main.yaml'] = text;
};

const BAD: BadInput[] = [
  {
    name: 'SKILL.md without frontmatter',
    change: (f) => void (f['skills/alpha/SKILL.md'] = '# alpha\n\nno frontmatter here\n'),
    where: /skills\/alpha\/SKILL\.md:1:1:/,
    says: /no YAML frontmatter/,
  },
  {
    name: 'frontmatter that is not valid YAML',
    change: (f) => void (f['skills/alpha/SKILL.md'] = '---\nname: alpha\ndescription: [unclosed\n---\nbody\n'),
    where: /skills\/alpha\/SKILL\.md:\d+:\d+:/,
    says: /YAML syntax error/,
  },
  {
    name: 'skill name missing',
    change: (f) => void (f['skills/alpha/SKILL.md'] = '---\ndescription: Does alpha things.\n---\nbody\n'),
    where: /skills\/alpha\/SKILL\.md:2:\d+:/,
    says: /`name` is missing/,
  },
  {
    name: 'skill name breaking the spec',
    change: (f) => void (f['skills/alpha/SKILL.md'] = skillMd('Alpha_Tool', 'Does alpha things.')),
    where: /skills\/alpha\/SKILL\.md:2:7:/,
    says: /breaks the Agent Skills rule/,
  },
  {
    name: 'skill name different from its folder',
    change: (f) => void (f['skills/alpha/SKILL.md'] = skillMd('alpha-tool', 'Does alpha things.')),
    where: /skills\/alpha\/SKILL\.md:2:7:/,
    says: /differs from its folder/,
  },
  {
    name: 'empty description',
    change: (f) => void (f['skills/alpha/SKILL.md'] = '---\nname: alpha\ndescription: ""\n---\nbody\n'),
    where: /skills\/alpha\/SKILL\.md:3:14:/,
    says: /description` is missing or empty/,
  },
  {
    name: 'description over 1024 characters',
    change: (f) => void (f['skills/alpha/SKILL.md'] = skillMd('alpha', 'x'.repeat(1025))),
    where: /skills\/alpha\/SKILL\.md:3:14:/,
    says: /1025 characters/,
  },
  {
    name: 'case file with a YAML syntax error',
    change: cases('- id: a\n  prompt: "unterminated\n  expect: { skill: alpha }\n'),
    where: /cases\/main\.yaml:\d+:\d+:/,
    says: /YAML syntax error/,
  },
  {
    name: 'case without a prompt',
    change: cases('- id: a\n  expect: { skill: alpha }\n'),
    where: /cases\/main\.yaml:1:3:/,
    says: /`0\.prompt` is missing/,
  },
  {
    name: 'case with a misspelt key',
    change: cases('- id: a\n  prompt: do alpha\n  expected: { skill: alpha }\n  expect: { skill: alpha }\n'),
    where: /cases\/main\.yaml:3:3:/,
    says: /unknown key `expected`/,
  },
  {
    name: 'case expecting a skill that does not exist',
    change: cases('- id: a\n  prompt: do alpha\n  expect: { skill: gamma }\n'),
    where: /cases\/main\.yaml:3:20:/,
    says: /expects skill "gamma", which is not in the skills folder/,
  },
  {
    name: 'substring of a real skill is not a skill',
    change: cases('- id: a\n  prompt: do alpha\n  expect: { skill: alph }\n'),
    where: /cases\/main\.yaml:3:20:/,
    says: /not in the skills folder/,
  },
  {
    name: 'duplicate case ids across files',
    change: (f) => void (f['cases/more.yaml'] = '- id: pos-alpha\n  prompt: again\n  expect: { skill: alpha }\n'),
    where: /cases\/more\.yaml:1:7:.*first defined at cases\/main\.yaml:1/,
    says: /duplicate case id "pos-alpha"/,
  },
  {
    name: 'invalid regular expression in a plan check',
    change: cases('- id: a\n  prompt: do alpha\n  expect: { skill: alpha }\n  plan:\n    matches: ["create (issue"]\n'),
    where: /cases\/main\.yaml:5:15:/,
    says: /invalid regular expression/,
  },
  {
    name: 'empty prompt',
    change: cases('- id: a\n  prompt: "   "\n  expect: { skill: alpha }\n'),
    where: /cases\/main\.yaml:2:11:/,
    says: /empty prompt/,
  },
  {
    name: 'prompt starting with a slash command',
    change: cases('- id: a\n  prompt: "/alpha create one"\n  expect: { skill: alpha }\n'),
    where: /cases\/main\.yaml:2:11:/,
    says: /starts with "\/alpha"/,
  },
  {
    name: 'negative case carrying plan checks',
    change: cases('- id: a\n  prompt: hello\n  expect: { skill: none }\n  plan:\n    verb: create\n'),
    where: /cases\/main\.yaml:5:5:/,
    says: /negative but has plan checks/,
  },
  {
    name: 'case id that cannot be a folder name',
    change: cases('- id: "a/b"\n  prompt: hello\n  expect: { skill: none }\n'),
    where: /cases\/main\.yaml:1:7:/,
    says: /letters, digits/,
  },
  {
    name: 'case file that is not a list',
    change: cases('id: a\nprompt: hello\n'),
    where: /cases\/main\.yaml:1:1:/,
    says: /should be array/,
  },
  {
    name: 'config with an unknown key',
    change: (f) => void (f['skillprobe.config.yaml'] = 'trials: 3\nconcurency: 4\n'),
    where: /skillprobe\.config\.yaml:2:1:/,
    says: /unknown key `concurency`/,
  },
  {
    name: 'config with a wrong type',
    change: (f) => void (f['skillprobe.config.yaml'] = 'trials: many\n'),
    where: /skillprobe\.config\.yaml:1:9:/,
    says: /should be number, not string/,
  },
  {
    name: 'config with an out-of-range value',
    change: (f) => void (f['skillprobe.config.yaml'] = 'model: x\ntimeouts:\n  trialSeconds: -5\n'),
    where: /skillprobe\.config\.yaml:3:17:/,
    says: /timeouts\.trialSeconds/,
  },
  {
    name: 'decision threshold minus delta at or below zero',
    change: (f) => void (f['skillprobe.config.yaml'] = 'trials: 2\ndecision:\n  threshold: 0.1\n  delta: 0.2\n'),
    where: /skillprobe\.config\.yaml:3:3:/,
    says: /p1 ≤ 0/,
  },
  {
    name: 'case decision with minTrials above maxTrials',
    change: cases('- id: a\n  prompt: do alpha\n  expect: { skill: alpha }\n  decision: { minTrials: 9, maxTrials: 3 }\n'),
    where: /cases\/main\.yaml:4:13:/,
    says: /minTrials 9 exceeds maxTrials 3/,
  },
  {
    name: 'sequential mode without the skill arm',
    change: () => {},
    args: ['--mode', 'sprt', '--arms', 'ablation'],
    where: /--arms/,
    says: /decides on the skill arm/,
  },
  {
    name: 'simulator profile behaviour with two actions',
    change: (f) => void (f['sim.yaml'] = 'seed: 1\nrules:\n  - case: pos-alpha\n    do:\n      - { p: 1, skill: alpha, answer: "hi" }\n'),
    args: ['--sim', 'sim.yaml'],
    where: /sim\.yaml:5:9:/,
    says: /exactly one action/,
  },
  {
    name: 'a real-model run without credentials',
    change: () => {},
    withoutKey: true,
    where: /environment: no credentials for Claude Code/,
    says: /export ANTHROPIC_API_KEY/,
  },
  {
    name: 'a fixed number of trials with a sequential test',
    change: () => {},
    args: ['--trials', '3', '--mode', 'sprt'],
    where: /--trials/,
    says: /exclude each other/,
  },
  {
    name: 'flag with a bad value',
    change: () => {},
    args: ['--trials', 'lots'],
    where: /--trials/,
    says: /whole number/,
  },
];

describe('bad input: one clear message, exit 2, no trial spawned', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));

  it('covers at least 15 kinds of bad input', () => {
    expect(BAD.length).toBeGreaterThanOrEqual(15);
  });

  it.each(BAD)('$name', async (bad) => {
    const files = baseProject();
    bad.change(files);
    const dir = makeProject(files);
    dirs.push(dir);
    const spy = spyBinary(dir);
    // A dummy key, so that only the mistake under test stops the run (nothing is sent anywhere: the agent is a spy).
    const env = testEnv(bad.withoutKey ? {} : { ANTHROPIC_API_KEY: 'dummy' });
    const r = await runCli(['run', '--agent-binary', spy.path, '--transcripts', 'runs', ...(bad.args ?? [])], { cwd: dir, env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(bad.where);
    expect(r.stderr).toMatch(bad.says);
    expect(r.stderr).not.toMatch(/\n\s+at .*\.js:\d+/); // no stack trace
    expect(existsSync(spy.marker)).toBe(false);
    expect(existsSync(join(dir, 'runs')) ? readdirSync(join(dir, 'runs')) : []).toEqual([]);
  });

  it('a valid project passes loading and spawns the agent (the spy can fail)', async () => {
    const dir = makeProject(baseProject());
    dirs.push(dir);
    const spy = spyBinary(dir);
    const r = await runCli(['run', '--agent-binary', spy.path, '--transcripts', 'runs', '--trials', '1', '--arms', 'skill'], { cwd: dir, env: testEnv({ ANTHROPIC_API_KEY: 'dummy' }) });
    expect(existsSync(spy.marker)).toBe(true);
    expect(r.exitCode).not.toBe(2);
  });
});
