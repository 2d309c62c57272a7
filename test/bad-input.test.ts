import { execFileSync } from 'node:child_process';
import { accessSync, chmodSync, constants, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import pMap from 'p-map';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseProject, cleanup, makeProject, runCli, runInProcess, skillMd, spyBinary, testEnv, type Files } from './helpers.js';

interface BadInput {
  name: string;
  /** What to change in the valid base project. */
  change?: (f: Files) => void;
  /** The whole command line (`SPY`: the spy agent; `BUSY_PORT`: a port something listens on). Default: `run` with the spy agent and `--transcripts runs`, then `args`. */
  argv?: string[];
  args?: string[];
  /** Environment variables on top of the test environment (`PROJECT`: the project folder). */
  env?: Record<string, string>;
  /** Run without the dummy API key every other case gets. */
  withoutKey?: boolean;
  /** A folder of the project made read-only before the command runs. */
  readOnly?: string;
  /** stderr is commander's own text (usage, a suggestion), not a one-line message. */
  commanderText?: boolean;
  /** What the message must name: the file and the line (and column), or the flag. */
  where: RegExp;
  /** A word of the explanation, so the message says what is wrong. */
  says: RegExp;
}

const cases = (text: string) => (f: Files) => {
  f['cases/main.yaml'] = text;
};

/** A config offering the stub MCP server `jira` of one tool, whose lines after its name and description are `tool`. */
const mcpStub = (tool: string[]) => (f: Files) => {
  f['skillprobe.config.yaml'] = 'mcp:\n  jira: { stub: jira.yaml }\n';
  f['jira.yaml'] = ['tools:', '  - name: create_issue', '    description: Create an issue.', ...tool, ''].join('\n');
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
    name: 'case file with a YAML syntax error',
    change: cases('- id: a\n  prompt: "unterminated\n  expect: { skill: alpha }\n'),
    where: /cases\/main\.yaml:\d+:\d+:/,
    says: /YAML syntax error/,
  },
  {
    name: 'case without a prompt',
    change: cases('- id: a\n  expect: { skill: alpha }\n'),
    where: /cases\/main\.yaml:1:3:/,
    says: /case "a": `prompt` is missing/,
  },
  {
    name: 'case with a misspelt key',
    change: cases('- id: a\n  prompt: do alpha\n  expected: { skill: alpha }\n  expect: { skill: alpha }\n'),
    where: /cases\/main\.yaml:3:3:/,
    says: /unknown key `expected` in case "a" — did you mean `expect`\?/,
  },
  {
    name: 'case with a misspelt key it then lacks: one mistake, one line, named by the case id',
    change: cases('- id: jira-create\n  prompt: do alpha\n  expct: { skill: alpha }\n'),
    where: /cases\/main\.yaml:3:3:/,
    says: /^skillprobe: cases\/main\.yaml:3:3: unknown key `expct` in case "jira-create" — did you mean `expect`\?$/m,
  },
  {
    name: 'a misspelt plan key',
    change: cases('- id: a\n  prompt: do alpha\n  expect: { skill: alpha }\n  plan: { mustnot: ["--force"] }\n'),
    where: /cases\/main\.yaml:4:11:/,
    says: /unknown key `mustnot` in case "a" `plan` — did you mean `mustNot`\?/,
  },
  {
    name: 'case expecting a skill that does not exist',
    change: cases('- id: a\n  prompt: do alpha\n  expect: { skill: gamma }\n'),
    where: /cases\/main\.yaml:3:20:/,
    says: /expects skill "gamma", which is not in the skills folder/,
  },
  {
    name: 'case history whose turns do not alternate from the user',
    change: cases('- id: a\n  prompt: do alpha\n  history:\n    - assistant: hello\n    - user: hi\n  expect: { skill: alpha }\n'),
    where: /cases\/main\.yaml:4:7:/,
    says: /history turn 1 is the assistant's, but turns alternate starting with the user/,
  },
  {
    name: 'case history ending with the user',
    change: cases('- id: a\n  prompt: do alpha\n  history:\n    - user: hi\n  expect: { skill: alpha }\n'),
    where: /cases\/main\.yaml:4:7:/,
    says: /history ends with the user's turn/,
  },
  {
    name: 'case history turn with empty text',
    change: cases('- id: a\n  prompt: do alpha\n  history:\n    - user: hi\n    - assistant: "  "\n  expect: { skill: alpha }\n'),
    where: /cases\/main\.yaml:5:18:/,
    says: /history turn 2 is empty/,
  },
  {
    name: 'case follow-up with empty text',
    change: cases('- id: a\n  prompt: do alpha\n  followUps: ["production", ""]\n  expect: { skill: alpha }\n'),
    where: /cases\/main\.yaml:3:29:/,
    says: /follow-up 2 is empty/,
  },
  {
    name: 'case follow-ups above maxTurns',
    change: (f) => {
      f['skillprobe.config.yaml'] = 'maxTurns: 2\n';
      f['cases/main.yaml'] = '- id: a\n  prompt: do alpha\n  followUps: [one, two]\n  expect: { skill: alpha }\n';
    },
    where: /cases\/main\.yaml:3:14:/,
    says: /can take 3 user turns .* above maxTurns \(2\)/,
  },
  {
    name: 'case expect.by beyond the turns it can have',
    change: cases('- id: a\n  prompt: do alpha\n  followUps: [production]\n  expect: { skill: alpha, by: 3 }\n'),
    where: /cases\/main\.yaml:4:31:/,
    says: /`by: 3` is past its last user turn \(2/,
  },
  {
    name: 'negative case with expect.by',
    change: cases('- id: a\n  prompt: weather\n  expect: { skill: none, by: 1 }\n'),
    where: /cases\/main\.yaml:3:30:/,
    says: /is negative, so no turn is one its skill must fire by/,
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
    says: /unknown key `concurency` — did you mean `concurrency`\?/,
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
  // The judge's settings on a judged case, checked before any trial.
  ...(
    [
      ['the model under test judging itself', 'judge: { samples: 3 }\n', /judge would be .*the model under test.*judge\.allowSelf: true/],
      ['a judge agent that does not exist', 'judge: { agent: gpt-cli, model: x }\n', /judge\.agent "gpt-cli" is not an agent/],
      ['judge samples out of range', 'judge: { model: x, samples: 0 }\n', /samples/],
      ['an unknown judge key', 'judge: { model: x, sample: 3 }\n', /sample/],
    ] as const
  ).map(([name, block, says]) => ({
    name,
    change: (f: Files) => {
      f['skillprobe.config.yaml'] = `arms: [skill]\ndecision: { mode: fixed }\ntrials: 1\n${block}`;
      f['cases/main.yaml'] =
        '- id: judged\n  prompt: "please create an alpha record"\n  expect: { skill: alpha, judge: ["Is the record named?"] }\n';
    },
    where: /skillprobe\.config\.yaml(:\d+)?/,
    says,
  })),
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
    name: 'sequential mode (the default) without the skill arm',
    args: ['--arms', 'ablation'],
    where: /--arms/,
    says: /decides on the skill arm/,
  },
  {
    name: "Wald's SPRT without the skill arm",
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
    withoutKey: true,
    where: /environment: no credentials for Claude Code/,
    says: /export ANTHROPIC_API_KEY/,
  },
  {
    name: 'a fixed number of trials with a sequential test',
    args: ['--trials', '3', '--mode', 'sprt'],
    where: /--trials/,
    says: /exclude each other/,
  },
  {
    name: 'flag with a bad value',
    args: ['--trials', 'lots'],
    where: /--trials/,
    says: /whole number/,
  },

  // Flags with values that cannot work: named as typed, reported once.
  { name: 'a fixed number of trials of zero', args: ['--trials', '0'], where: /--trials/, says: /whole number ≥ 1/ },
  { name: 'a fractional number of trials', args: ['--trials', '1.5'], where: /--trials/, says: /whole number/ },
  { name: 'concurrency of zero', args: ['--concurrency', '0'], where: /--concurrency/, says: /whole number ≥ 1/ },
  {
    name: 'concurrency above what the config allows',
    args: ['--concurrency', '1000'],
    where: /^skillprobe: --concurrency: 1000 /,
    says: /64/,
  },
  { name: 'a timeout that is not a number', args: ['--timeout', 'abc'], where: /--timeout/, says: /positive number/ },
  { name: 'a timeout of zero', args: ['--timeout', '0'], where: /--timeout/, says: /positive number/ },
  {
    name: 'a timeout above the limit, named as the flag typed',
    args: ['--timeout', '99999'],
    where: /^skillprobe: --timeout: 99999 /,
    says: /3600/,
  },
  {
    name: 'max turns above the limit, named as the flag typed',
    args: ['--max-turns', '1000'],
    where: /^skillprobe: --max-turns: 1000 /,
    says: /200/,
  },
  { name: 'an empty model', args: ['--model', ''], where: /--model/, says: /empty/ },
  { name: 'a threshold above 1', args: ['--threshold', '1.5'], where: /--threshold/, says: /\(0, 1\]/ },
  {
    name: 'a threshold leaving no room for delta, reported once against the flag',
    args: ['--threshold', '0.1'],
    where: /^skillprobe: --threshold: /,
    says: /p1 ≤ 0/,
  },
  {
    name: 'min trials above max trials, reported once against the flags',
    args: ['--min-trials', '50', '--max-trials', '10'],
    where: /^skillprobe: --min-trials, --max-trials: /,
    says: /minTrials 50 exceeds maxTrials 10/,
  },
  {
    name: 'max trials below the default min trials',
    args: ['--max-trials', '3'],
    where: /^skillprobe: --max-trials: /,
    says: /minTrials 5 exceeds maxTrials 3/,
  },
  { name: 'max trials of zero', args: ['--max-trials', '0'], where: /--max-trials/, says: /whole number ≥ 1/ },
  { name: 'an unknown inconclusive policy', args: ['--inconclusive', 'maybe'], where: /--inconclusive/, says: /Allowed choices/ },
  {
    name: 'a misspelt flag',
    args: ['--trails', '3'],
    commanderText: true,
    where: /unknown option '--trails'/,
    says: /Did you mean --trials/,
  },
  { name: 'an argument run does not take', args: ['cases/main.yaml'], where: /too many arguments/, says: /run/ },
  { name: 'an arm named twice', args: ['--arms', 'skill,skill'], where: /^skillprobe: --arms: /, says: /more than once/ },
  {
    name: 'an arm named twice in the config file',
    change: (f) => void (f['skillprobe.config.yaml'] = 'arms: [skill, skill]\n'),
    where: /skillprobe\.config\.yaml:1:7:/,
    says: /more than once/,
  },
  { name: 'an unknown arm', args: ['--arms', 'skill,control'], where: /--arms/, says: /arms are skill, ablation/ },
  { name: 'an empty arm list', args: ['--arms', ''], where: /--arms/, says: /arms are skill, ablation/ },
  {
    name: 'a fixed number of trials with a sequential test, flags in the other order',
    args: ['--mode', 'sprt', '-n', '2'],
    where: /--trials/,
    says: /exclude each other/,
  },
  // Paths given as flags or config keys.
  {
    name: 'a config file that does not exist',
    args: ['--config', 'nope.yaml'],
    where: /^skillprobe: --config: nope\.yaml /,
    says: /does not exist/,
  },
  { name: 'a config file that is a folder', args: ['--config', 'cases'], where: /^skillprobe: --config: cases /, says: /is a folder/ },
  { name: 'an empty config path', args: ['--config', ''], where: /--config/, says: /empty/ },
  { name: 'a case glob matching nothing', args: ['--cases', 'nothing/*.yaml'], where: /nothing\/\*\.yaml/, says: /no case files matched/ },
  {
    name: 'a skills folder that is a file',
    args: ['--skills', 'cases/main.yaml'],
    where: /^skillprobe: --skills: cases\/main\.yaml /,
    says: /not a folder/,
  },
  {
    name: 'a skills folder that does not exist',
    args: ['--skills', 'nowhere'],
    where: /^skillprobe: --skills: nowhere /,
    says: /does not exist/,
  },
  {
    name: 'a simulator profile that does not exist',
    args: ['--sim', 'nope.yaml'],
    where: /nope\.yaml/,
    says: /simulator profile not found/,
  },
  {
    name: 'transcripts folder that is a file',
    change: (f) => void (f['notes.txt'] = 'x\n'),
    args: ['--transcripts', 'notes.txt'],
    where: /^skillprobe: --transcripts: notes\.txt /,
    says: /not a folder/,
  },
  {
    name: 'transcripts folder under /dev/null',
    args: ['--transcripts', '/dev/null/x'],
    where: /^skillprobe: --transcripts: \/dev\/null /,
    says: /not a folder/,
  },
  {
    name: 'transcripts folder under a read-only folder',
    readOnly: 'locked',
    args: ['--transcripts', 'locked/runs'],
    where: /^skillprobe: --transcripts: .*locked /,
    says: /not writable/,
  },
  {
    name: 'transcripts folder from the config file that is a file',
    change: (f) => Object.assign(f, { 'skillprobe.config.yaml': 'transcriptsDir: notes.txt\n', 'notes.txt': 'x\n' }),
    argv: ['run', '--agent-binary', 'SPY'],
    where: /skillprobe\.config\.yaml:1:17:/,
    says: /not a folder/,
  },
  {
    name: 'workdir that does not exist',
    args: ['--workdir', 'nowhere'],
    where: /^skillprobe: --workdir: .*nowhere /,
    says: /does not exist/,
  },
  {
    name: 'workdir that is a file',
    args: ['--workdir', 'cases/main.yaml'],
    where: /^skillprobe: --workdir: .*main\.yaml /,
    says: /not a folder/,
  },
  { name: 'a shard of zero', args: ['--shard', '0/3'], where: /--shard/, says: /I\/N with 1 ≤ I ≤ N/ },
  {
    name: 'an agent the registry does not know, at its line',
    change: (f) => void (f['skillprobe.config.yaml'] = 'agent: robot\n'),
    args: [],
    where: /skillprobe\.config\.yaml:1:8:/,
    says: /unknown agent "robot" — use one of claude-code/,
  },
  { name: 'a shard beyond the count', args: ['--shard', '4/3'], where: /--shard/, says: /I\/N with 1 ≤ I ≤ N/ },
  { name: 'a shard that is not I/N', args: ['--shard', 'two'], where: /--shard/, says: /got "two"/ },
  {
    name: 'an unknown reporter',
    args: ['--reporter', 'pdf'],
    where: /--reporter/,
    says: /choose one of terminal, json, junit, markdown, html/,
  },
  {
    name: 'two reporters printing to stdout',
    args: ['--reporter', 'markdown', '--json'],
    where: /^skillprobe: --reporter: /,
    says: /markdown and json would both print to stdout/,
  },
  {
    name: 'a report file under a read-only folder',
    readOnly: 'locked',
    args: ['--reporter', 'junit=locked/out/j.xml'],
    where: /^skillprobe: --reporter junit=locked\/out\/j\.xml: /,
    says: /not writable/,
  },
  {
    name: 'workdir that is read-only',
    readOnly: 'locked',
    args: ['--workdir', 'locked'],
    where: /^skillprobe: --workdir: .*locked /,
    says: /not writable/,
  },
  {
    name: 'workdir with a CLAUDE.md above it',
    change: (f) => Object.assign(f, { 'CLAUDE.md': '# notes\n', 'work/.keep': '' }),
    args: ['--workdir', 'work'],
    where: /CLAUDE\.md above it/,
    says: /--workdir/,
  },
  {
    name: 'TMPDIR that does not exist',
    env: { TMPDIR: '/nonexistent-skillprobe-tmp' },
    where: /^skillprobe: TMPDIR: \/nonexistent-skillprobe-tmp /,
    says: /does not exist — .*--workdir/,
  },
  { name: 'TMPDIR that is a file', env: { TMPDIR: 'PROJECT/cases/main.yaml' }, where: /^skillprobe: TMPDIR: /, says: /not a folder/ },
  {
    name: 'agent binary that is a folder',
    args: ['--agent-binary', 'skills'],
    where: /^skillprobe: --agent-binary: /,
    says: /is a folder/,
  },
  {
    name: 'agent binary that is not executable',
    args: ['--agent-binary', 'cases/main.yaml'],
    where: /^skillprobe: --agent-binary: /,
    says: /not executable/,
  },
  {
    name: 'agent binary that does not exist, relative',
    args: ['--agent-binary', 'bin/claude'],
    where: /^skillprobe: --agent-binary: .*bin\/claude /,
    says: /does not exist/,
  },
  {
    name: 'agent binary from the config file that does not exist',
    change: (f) => void (f['skillprobe.config.yaml'] = 'agentBinary: ./nope\n'),
    argv: ['run', '--transcripts', 'runs'],
    where: /skillprobe\.config\.yaml:1:14:/,
    says: /nope does not exist/,
  },
  { name: 'an empty agent binary', args: ['--agent-binary', ''], where: /--agent-binary/, says: /empty/ },
  // Case selection.
  { name: 'an empty --grep', args: ['--grep', ''], where: /--grep/, says: /empty/ },
  { name: 'a --grep that is not a regular expression', args: ['--grep', '('], where: /--grep/, says: /invalid regular expression/ },
  { name: 'a --tag no case has', args: ['--tag', 'nosuch'], where: /--tag nosuch/, says: /no case matches/ },
  { name: 'an empty --tag', args: ['--tag', ''], where: /--tag/, says: /empty/ },
  { name: '--last-failed with no earlier run', args: ['--last-failed'], where: /--last-failed/, says: /no earlier run/ },
  // Other commands.
  { name: 'no command at all', argv: [], commanderText: true, where: /^Usage: skillprobe/m, says: /Commands:/ },
  { name: 'an unknown command', argv: ['bogus'], where: /unknown command 'bogus'/, says: /error/ },
  { name: 'report on a folder that does not exist', argv: ['report', 'runs/nope'], where: /^skillprobe: runs\/nope: /, says: /run folder/ },
  { name: 'report on a file', argv: ['report', 'cases/main.yaml'], where: /^skillprobe: cases\/main\.yaml: /, says: /not a run folder/ },
  { name: 'grade on a folder without run.json', argv: ['grade', 'cases'], where: /^skillprobe: cases: /, says: /not a run folder/ },
  { name: 'grade without a run folder', argv: ['grade'], where: /missing required argument/, says: /run/ },
  {
    name: 'sim on a port above 65535',
    argv: ['sim', 'sim.yaml', '--port', '70000'],
    change: (f) => void (f['sim.yaml'] = 'seed: 1\n'),
    where: /--port/,
    says: /from 0 to 65535/,
  },
  {
    name: 'sim on a negative port',
    argv: ['sim', 'sim.yaml', '--port', '-1'],
    change: (f) => void (f['sim.yaml'] = 'seed: 1\n'),
    where: /--port/,
    says: /from 0 to 65535/,
  },
  {
    name: 'sim on a port already in use',
    argv: ['sim', 'sim.yaml', '--port', 'BUSY_PORT'],
    change: (f) => void (f['sim.yaml'] = 'seed: 1\n'),
    where: /^skillprobe: --port: /,
    says: /already in use/,
  },
  { name: 'sim with a profile that does not exist', argv: ['sim', 'nope.yaml'], where: /nope\.yaml/, says: /simulator profile not found/ },
  { name: 'plan with a negative price', argv: ['plan', '--price-per-trial', '-1'], where: /--price-per-trial/, says: /positive number/ },
  {
    name: 'plan with a skills folder that does not exist',
    argv: ['plan', '--skills', 'nowhere'],
    where: /^skillprobe: --skills: nowhere /,
    says: /does not exist/,
  },
  {
    name: 'plan with a config file that is a folder',
    argv: ['plan', '--config', 'cases'],
    where: /^skillprobe: --config: /,
    says: /is a folder/,
  },
  {
    name: 'lint with a profile that does not exist',
    argv: ['lint', '--sim', 'missing.yaml'],
    where: /^skillprobe: --sim: missing\.yaml /,
    says: /does not exist/,
  },
  {
    name: 'lint with a config file that does not exist',
    argv: ['lint', '--config', 'nope.yaml'],
    where: /^skillprobe: --config: nope\.yaml /,
    says: /does not exist/,
  },
  {
    name: 'lint with a skills folder that is a file',
    argv: ['lint', '--skills', 'cases/main.yaml'],
    where: /^skillprobe: --skills: /,
    says: /not a folder/,
  },
  {
    name: 'plan --last-failed with a transcripts folder that is a file',
    change: (f) => Object.assign(f, { 'skillprobe.config.yaml': 'transcriptsDir: notes.txt\n', 'notes.txt': 'x\n' }),
    argv: ['plan', '--last-failed'],
    where: /^skillprobe: notes\.txt: /,
    says: /a file where the transcripts folder belongs/,
  },
  {
    name: 'init --dir naming a file',
    argv: ['init', '--dir', 'cases/main.yaml'],
    where: /^skillprobe: cases\/main\.yaml: /,
    says: /a file, not a folder/,
  },
  {
    name: '--resume a run folder that does not exist',
    args: ['--resume', 'runs/nope'],
    where: /^skillprobe: runs\/nope: /,
    says: /no such run folder/,
  },
  {
    name: '--resume a file',
    args: ['--resume', 'cases/main.yaml'],
    where: /^skillprobe: cases\/main\.yaml: /,
    says: /a file, not a run folder/,
  },
  {
    name: '--resume a folder that is not a run',
    args: ['--resume', 'cases'],
    where: /^skillprobe: cases: /,
    says: /not a run folder \(no run\.json\)/,
  },
  { name: '--force without --resume', args: ['--force'], where: /^skillprobe: --force: /, says: /only means something with --resume/ },
  {
    name: '--margin without --baseline',
    args: ['--margin', '0.2'],
    where: /^skillprobe: --margin: /,
    says: /only means something with --baseline/,
  },
  {
    name: '--add-trials without --resume',
    args: ['--add-trials', '5'],
    where: /^skillprobe: --add-trials: /,
    says: /tops up a stored run, and names none/,
  },
  {
    name: '--baseline with a fixed number of trials',
    args: ['--baseline', 'runs/base', '--trials', '5'],
    where: /^skillprobe: --trials: /,
    says: /samples each case until it is decided/,
  },
  {
    name: '--baseline with --resume',
    args: ['--baseline', 'runs/base', '--resume', 'runs/x'],
    where: /^skillprobe: --resume: /,
    says: /keeps the canary it started with/,
  },
  {
    name: '--baseline naming a folder that is not a run',
    args: ['--baseline', 'cases'],
    where: /^skillprobe: cases: /,
    says: /not a run folder \(no run\.json\)/,
  },
  { name: '--max-cost zero', args: ['--max-cost', '0'], commanderText: true, where: /--max-cost/, says: /positive number/ },
  { name: '--max-cost not a number', args: ['--max-cost', 'lots'], commanderText: true, where: /--max-cost/, says: /positive number/ },
  { name: 'init in a folder that is a file', argv: ['init', '--dir', 'cases/main.yaml'], where: /cases\/main\.yaml/, says: /--dir/ },
  { name: 'init with an empty folder', argv: ['init', '--dir', ''], where: /--dir/, says: /empty/ },
  {
    name: 'MCP stub tool whose input schema does not parse',
    change: mcpStub(['    inputSchema: { type: string }', '    answers: [{ result: done }]']),
    where: /^skillprobe: jira\.yaml:4:26:/,
    says: /input schema is not `type: object`/,
  },
  {
    name: 'MCP stub tool requiring an argument it does not declare',
    change: mcpStub([
      '    inputSchema: { type: object, properties: { key: { type: string } }, required: [summary] }',
      '    answers: [{ result: done }]',
    ]),
    where: /jira\.yaml:4:\d+:/,
    says: /`required` names "summary"/,
  },
  {
    name: 'MCP stub result over the size cap',
    change: mcpStub([`    answers: [{ result: "${'x'.repeat(70_000)}" }]`]),
    where: /jira\.yaml:4:\d+:/,
    says: /over the 65536-byte cap/,
  },
  {
    name: 'MCP stub answer pattern that does not compile',
    change: mcpStub(['    answers: [{ when: { key: "(" }, result: done }]']),
    where: /jira\.yaml:4:\d+:/,
    says: /invalid regular expression/,
  },
  {
    name: 'MCP stub file that is not there',
    change: (f) => void (f['skillprobe.config.yaml'] = 'mcp:\n  jira: { stub: nowhere.yaml }\n'),
    where: /^skillprobe: nowhere\.yaml:/,
    says: /MCP stub file not found/,
  },
  {
    name: 'MCP real server whose command is missing',
    change: (f) => void (f['skillprobe.config.yaml'] = 'mcp:\n  gh:\n    command: no-such-mcp-server\n'),
    where: /skillprobe\.config\.yaml:3:\d+:/,
    says: /"no-such-mcp-server" is not an executable file on the PATH/,
  },
  {
    name: 'MCP real server whose read-only tool is no tool name (the field refusal would match it as a pattern)',
    change: (f) => void (f['skillprobe.config.yaml'] = `mcp:\n  gh:\n    command: ${process.execPath}\n    readOnly: [get_issue, ".*"]\n`),
    where: /skillprobe\.config\.yaml:4:\d+:/,
    says: /MCP server "gh": read-only tool "\.\*" is no tool name/,
  },
  {
    name: 'MCP stub tool the Gemini CLI would name with more than 63 characters (it shortens such a name)',
    change: (f) => {
      f['skillprobe.config.yaml'] = 'mcp:\n  jira: { stub: jira.yaml }\n';
      f['jira.yaml'] = `tools:\n  - name: ${'x'.repeat(60)}\n    description: d\n    answers: [{ result: done }]\n`;
    },
    args: ['--agent', 'gemini'],
    env: { GEMINI_API_KEY: 'dummy' },
    where: /skillprobe\.config\.yaml:2:\d+:/,
    says: /names it "mcp_jira_x+", over the 63 characters it keeps whole/,
  },
  {
    name: 'MCP server named twice (config and case)',
    change: (f) => {
      mcpStub(['    answers: [{ result: done }]'])(f);
      f['cases/main.yaml'] +=
        '- id: also-jira\n  prompt: "file a bug"\n  expect: { skill: alpha }\n  mcp:\n    jira: { stub: ../jira.yaml }\n';
    },
    where: /cases\/main\.yaml:12:\d+:/,
    says: /MCP server "jira" is already offered/,
  },
  {
    name: 'MCP server name holding _ (the CLIs join names with it)',
    change: (f) => void (f['skillprobe.config.yaml'] = 'mcp:\n  my_jira: { stub: jira.yaml }\n'),
    where: /skillprobe\.config\.yaml:\d+:\d+:/,
    says: /MCP server name holds only letters/,
  },
];

/** A port something is listening on, for the busy-port case. */
function listenAnywhere(): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => resolve(server));
  });
}

const writable = (path: string) => {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * Makes a new folder read-only; undefined when that cannot be done (root ignores modes: then `chattr +i`, where the
 * file system has it). Returns how to undo it, so that the folder can be removed.
 */
function readOnlyFolder(path: string): (() => void) | undefined {
  mkdirSync(path);
  chmodSync(path, 0o555);
  const chattr = (flag: string) => {
    try {
      execFileSync('chattr', [flag, path], { stdio: 'ignore' });
    } catch {
      /* no chattr, or not on this file system */
    }
  };
  if (writable(path)) chattr('+i');
  const undo = () => {
    chattr('-i');
    chmodSync(path, 0o755);
  };
  if (!writable(path)) return undo;
  undo();
  return undefined;
}

interface Attempt {
  /** Why the case could not be set up here. */
  skipped?: string;
  exitCode?: number;
  stderr: string;
  spawned: boolean;
  /** The project's entries before and after the command. */
  before: string[];
  after: string[];
}

/** An environment the operating system reads (TMPDIR) reaches a command only through a process of its own. */
const needsOwnProcess = (bad: BadInput) => bad.env !== undefined;

const entries = (dir: string) => (readdirSync(dir, { recursive: true }) as string[]).sort();

describe('bad input: one clear message, exit 2, nothing started, created or deleted', () => {
  const dirs: string[] = [];
  let busy: Server;
  let attempts: Attempt[] = [];

  async function attempt(bad: BadInput): Promise<Attempt> {
    const files = baseProject();
    bad.change?.(files);
    const dir = makeProject(files);
    dirs.push(dir);
    const spy = spyBinary(dir);
    const undo = bad.readOnly ? readOnlyFolder(join(dir, bad.readOnly)) : undefined;
    if (bad.readOnly && !undo)
      return { skipped: 'no way to make a folder read-only here', stderr: '', spawned: false, before: [], after: [] };
    try {
      const before = entries(dir);
      const busyPort = String((busy.address() as { port: number }).port);
      const fill = (s: string) => s.replace('SPY', spy.path).replace('BUSY_PORT', busyPort).replace('PROJECT', dir);
      const argv = (bad.argv ?? ['run', '--agent-binary', 'SPY', '--transcripts', 'runs', ...(bad.args ?? [])]).map(fill);
      // A dummy key, so that only the mistake under test stops the run (nothing is sent anywhere: the agent is a spy).
      const env = testEnv({
        ...(bad.withoutKey ? {} : { ANTHROPIC_API_KEY: 'dummy' }),
        ...Object.fromEntries(Object.entries(bad.env ?? {}).map(([k, v]) => [k, fill(v)])),
      });
      const r = needsOwnProcess(bad)
        ? await runCli(argv, { cwd: dir, env, timeoutMs: 60_000 })
        : await runInProcess(argv, { cwd: dir, env });
      return { exitCode: r.exitCode, stderr: r.stderr, spawned: existsSync(spy.marker), before, after: entries(dir) };
    } finally {
      undo?.();
    }
  }

  beforeAll(async () => {
    busy = await listenAnywhere();
    // In this process one at a time: a command reads the working folder, which is the whole process's.
    attempts = new Array<Attempt>(BAD.length);
    for (const [i, bad] of BAD.entries()) if (!needsOwnProcess(bad)) attempts[i] = await attempt(bad);
    // A spawned CLI start costs ~0.5 s of CPU: three at a time on two shared cores.
    const spawned = [...BAD.entries()].filter(([, bad]) => needsOwnProcess(bad));
    await pMap(spawned, async ([i, bad]) => (attempts[i] = await attempt(bad)), { concurrency: 3 });
  }, 240_000);
  afterAll(() => {
    busy?.close();
    cleanup(...dirs);
  });

  it('covers at least 60 kinds of bad input', () => {
    expect(BAD.length).toBeGreaterThanOrEqual(60);
  });

  BAD.forEach((bad, i) =>
    it(bad.name, (ctx) => {
      const a = attempts[i]!;
      if (a.skipped) ctx.skip(a.skipped);
      expect(a.exitCode, a.stderr).toBe(2);
      expect(a.stderr).toMatch(bad.where);
      expect(a.stderr).toMatch(bad.says);
      if (!bad.commanderText) expect(a.stderr.trim().split('\n'), 'one line').toHaveLength(1);
      expect(a.stderr).not.toMatch(/\n\s+at .*\.js:\d+/); // no stack trace
      expect(a.spawned).toBe(false);
      expect(a.after).toEqual(a.before); // no run folder, no workspace, nothing deleted
    }),
  );
});

describe('input checks across stages, and what needs no temp folder', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));

  function project(change?: (f: Files) => void): { dir: string; spy: string } {
    const files = baseProject();
    change?.(files);
    const dir = makeProject(files);
    dirs.push(dir);
    return { dir, spy: spyBinary(dir).path };
  }
  const lines = (text: string, pattern: RegExp) => text.split('\n').filter((l) => pattern.test(l));

  it('reports the config, skill, case and flag problems in one pass, each once', async () => {
    const { dir, spy } = project((f) => {
      f['skillprobe.config.yaml'] = 'concurency: 4\n';
      f['skills/alpha-beta/SKILL.md'] = '---\nname: alpha-beta\n---\nbody\n';
      f['cases/main.yaml'] +=
        '- id: gamma\n  prompt: do gamma\n  expect: { skill: gamma }\n- id: beta\n  prompt: beta things\n  expect: { skill: alpha-beta }\n';
    });
    const r = await runCli(['run', '--agent-binary', spy, '--transcripts', 'runs', '--timeout', '99999'], {
      cwd: dir,
      env: testEnv({ ANTHROPIC_API_KEY: 'dummy' }),
    });
    expect(r.exitCode).toBe(2);
    expect(lines(r.stderr, /skillprobe\.config\.yaml:1:1: unknown key `concurency`/)).toHaveLength(1);
    expect(lines(r.stderr, /skills\/alpha-beta\/SKILL\.md:\d+:\d+: .*description/)).toHaveLength(1);
    expect(lines(r.stderr, /cases\/main\.yaml:\d+:\d+: case "gamma" expects skill "gamma"/)).toHaveLength(1);
    expect(lines(r.stderr, /--timeout: 99999 /)).toHaveLength(1);
    // The broken skill still names its folder, so a case expecting it is not reported as unknown.
    expect(r.stderr).not.toMatch(/expects skill "alpha-beta"/);
    expect(existsSync(join(dir, 'runs'))).toBe(false);
  });

  it('checks the flags even when the config file does not parse', async () => {
    const { dir, spy } = project((f) => void (f['skillprobe.config.yaml'] = 'trials: [\n'));
    const r = await runCli(['run', '--agent-binary', spy, '--transcripts', 'runs', '--max-turns', '1000'], {
      cwd: dir,
      env: testEnv({ ANTHROPIC_API_KEY: 'dummy' }),
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/skillprobe\.config\.yaml:\d+:\d+: YAML syntax error/);
    expect(r.stderr).toMatch(/--max-turns: 1000 /);
  });

  it('a valid project passes loading and spawns the agent, found by a path relative to the current folder', async () => {
    const { dir } = project();
    const marker = join(dir, 'SPAWNED');
    const r = await runCli(['run', '--agent-binary', 'spy-agent.sh', '--transcripts', 'runs', '--trials', '1', '--arms', 'skill'], {
      cwd: dir,
      env: testEnv({ ANTHROPIC_API_KEY: 'dummy' }),
    });
    expect(existsSync(marker), r.stderr).toBe(true);
    expect(r.exitCode).not.toBe(2);
  });
});
