import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './helpers.js';

/** Each format's real-shaped file (test/fixtures/import/), kept where authors keep it: in the skill's evals folder. */
const FIXTURES = join(ROOT, 'test/fixtures/import');

/** Copies every format's fixture into `skills/alpha/evals/` of the project at `dir`. */
export function copyImportFixtures(dir: string): void {
  cpSync(join(FIXTURES, 'alpha/evals'), join(dir, 'skills/alpha/evals'), { recursive: true });
  for (const f of [
    'trigger-eval.json',
    'eval_set.json',
    'alpha.prompts.csv',
    'alpha.triggers.json',
    'promptfooconfig.yaml',
    'promptfoo-conversation.yaml',
    'promptfoo-threads.yaml',
  ])
    cpSync(join(FIXTURES, f), join(dir, 'skills/alpha/evals', f));
  cpSync(join(FIXTURES, 'waza'), join(dir, 'skills/alpha/evals/waza'), { recursive: true });
  cpSync(join(FIXTURES, 'waza-mcp'), join(dir, 'skills/alpha/evals/waza-mcp'), { recursive: true });
  cpSync(join(FIXTURES, 'plugin-eval'), join(dir, 'skills/alpha/evals/plugin-eval'), { recursive: true });
  cpSync(join(FIXTURES, 'skillgrade'), join(dir, 'skills/alpha/evals/skillgrade'), { recursive: true });
}

/** The real server promptfoo-conversation.yaml grants its provider, as each of its cases offers it. */
const RECORDS_MCP = [['records', 'node', ['mcp/records-server.js', '--read-only']]];

/** Each format's fixture (its path under the skill's evals folder) and the cases and notes its import gives. */
export const FORMATS: {
  format: string;
  file: string;
  cases: { id: string; expect: Record<string, unknown>; tags?: string[]; files?: string[]; history?: object[]; mcp?: unknown[] }[];
  uncarried?: RegExp[];
}[] = [
  {
    format: "skill-creator's evals.json object",
    file: 'evals.json',
    cases: [
      {
        id: 'alpha-eval-1',
        expect: {
          skill: 'alpha',
          judge: ['The reply says how many alpha records were created', 'The reply names the file it read the rows from'],
        },
        files: ['board.csv'],
      },
      { id: 'alpha-eval-2', expect: { skill: 'alpha', judge: ['The records are listed newest first'] } },
      { id: 'alpha-beta-eval-3', expect: { skill: 'alpha-beta' } },
    ],
    uncarried: [/^eval 1: "expected_output" \(a description of success/, /^eval 2: "expected_output"/, /^eval 3: "expected_output"/],
  },
  {
    format: "skill-creator's trigger eval list",
    file: 'trigger-eval.json',
    cases: [
      { id: 'alpha-trigger-1', expect: { skill: 'alpha' } },
      { id: 'alpha-trigger-2', expect: { skill: 'alpha' } },
      { id: 'alpha-quiet-1', expect: { skill: 'none', not: 'alpha' }, tags: ['near-miss'] },
      { id: 'alpha-quiet-2', expect: { skill: 'none', not: 'alpha' }, tags: ['near-miss'] },
    ],
  },
  {
    format: "skill-creator's trigger list under `evals` (eval_set.json)",
    file: 'eval_set.json',
    cases: [
      { id: 'alpha-trigger-1', expect: { skill: 'alpha' } },
      { id: 'alpha-quiet-1', expect: { skill: 'none', not: 'alpha' }, tags: ['near-miss'] },
    ],
  },
  {
    format: "the prompts CSV of OpenAI's Codex skill evals",
    file: 'alpha.prompts.csv',
    cases: [
      { id: 'test-01', expect: { skill: 'alpha' }, tags: ['category:explicit'] },
      { id: 'test-02', expect: { skill: 'alpha' }, tags: ['category:implicit'] },
      { id: 'test-03', expect: { skill: 'none', not: 'alpha' }, tags: ['near-miss', 'category:negative'] },
      { id: 'test-04', expect: { skill: 'none', not: 'alpha' }, tags: ['near-miss'] },
    ],
  },
  {
    format: '{should_trigger, should_not_trigger} lists',
    file: 'alpha.triggers.json',
    cases: [
      { id: 'alpha-trigger-1', expect: { skill: 'alpha' } },
      { id: 'alpha-trigger-2', expect: { skill: 'alpha' } },
      { id: 'alpha-quiet-1', expect: { skill: 'none', not: 'alpha' }, tags: ['near-miss'] },
      { id: 'alpha-quiet-2', expect: { skill: 'none', not: 'alpha' }, tags: ['near-miss'] },
    ],
  },
  {
    format: 'a promptfoo config asserting skill-used / not-skill-used',
    file: 'promptfooconfig.yaml',
    cases: [
      {
        id: 'creates-an-alpha-record',
        expect: { skill: 'alpha', judge: ['Does the reply confirm the record was assigned to Dana?'] },
      },
      { id: 'greek-letter-question', expect: { skill: 'none', not: 'alpha' } },
      { id: 'beta-in-alpha', expect: { skill: 'alpha-beta' } },
    ],
    uncarried: [/^test 3: the latency assertion: not carried/, /^test 4: it asserts neither skill-used nor not-skill-used/],
  },
  {
    format: 'a promptfoo chat config (its messages a history) whose provider is granted MCP servers',
    file: 'promptfoo-conversation.yaml',
    cases: [
      {
        id: 'files-after-showing-the-log',
        expect: { skill: 'alpha' },
        history: [
          { user: 'Here is the deploy log from last night, the export job failed twice.' },
          { assistant: 'I see two failures of the export job, at 02:10 and 02:40, both timeouts.' },
        ],
        mcp: RECORDS_MCP,
      },
      {
        id: 'question-after-a-chat',
        expect: { skill: 'none', not: 'alpha' },
        history: [{ user: 'Which letter comes first in the greek alphabet?' }, { assistant: 'Alpha.' }],
        mcp: RECORDS_MCP,
      },
      // The same last request after other earlier turns is another case, not a repeat.
      {
        id: 'question-after-a-stats-chat',
        expect: { skill: 'none', not: 'alpha' },
        history: [
          { user: 'I am reading about p-values in the release metrics.' },
          { assistant: 'A p-value is compared against a significance level, often written as the greek letter alpha.' },
        ],
        mcp: RECORDS_MCP,
      },
    ],
    uncarried: [
      /^MCP server "records": its env values \(a case's server sees only the caller's variables/,
      /^MCP server "tracker": a remote server at https:\/\/tracker\.example\.com\/mcp/,
      /^test 1: a system message/,
    ],
  },
  {
    format: 'a promptfoo config replaying its threads (`_conversation`): the first test of each',
    file: 'promptfoo-threads.yaml',
    cases: [
      { id: 'opens-a-record', expect: { skill: 'alpha' } },
      { id: 'greek-letters', expect: { skill: 'none', not: 'alpha' } },
    ],
    uncarried: [/^test 2: a later turn of conversation "deploy-failure" \(after test 1, through `_conversation`\): the replies before it/],
  },
  {
    format: "waza's eval.yaml and its task files",
    file: 'waza/eval.yaml',
    cases: [
      { id: 'alpha-create-record-001', expect: { skill: 'alpha' } },
      { id: 'alpha-list-records-001', expect: { skill: 'alpha' } },
    ],
    uncarried: [
      /^"config"/,
      /^"graders" \(waza's graders run its own checks\)/,
      /^tasks\/create-record\.yaml: "tags"/,
      /^tasks\/create-record\.yaml: "expected"/,
    ],
  },
  {
    format: "waza's eval.yaml granting MCP servers (config.mcp_servers)",
    file: 'waza-mcp/eval.yaml',
    cases: [{ id: 'alpha-close-record-001', expect: { skill: 'alpha' }, mcp: [['records', 'node', ['mcp/records-server.js', '--stdio']]] }],
    uncarried: [
      /^"config" \(waza's settings besides mcp_servers\)/,
      /^MCP server "docs": a remote server at https:\/\/docs\.example\.com\/mcp/,
    ],
  },
  {
    format: "waza's trigger_tests.yaml",
    file: 'waza/trigger_tests.yaml',
    cases: [
      { id: 'alpha-trigger-1', expect: { skill: 'alpha' } },
      { id: 'alpha-trigger-2', expect: { skill: 'alpha' } },
      { id: 'alpha-quiet-1', expect: { skill: 'none', not: 'alpha' }, tags: ['near-miss'] },
    ],
    uncarried: [/"confidence"/, /"confidence"/, /"confidence"/],
  },
  {
    format: "Skillgrade's eval.yaml",
    file: 'skillgrade/eval.yaml',
    cases: [
      { id: 'close-shipped-record', expect: { skill: 'alpha', judge: ['Did the agent confirm that record 31 was closed?'] } },
      { id: 'weekly-summary', expect: { skill: 'alpha', judge: ['Is the summary exactly three bullet points?'] } },
    ],
    uncarried: [/^task 1: its deterministic grader/, /^task 1: "workspace"/],
  },
  {
    format: 'a `claude plugin eval` case.yaml (a tool_used Skill grader: a trigger case)',
    file: 'plugin-eval/files-new-record/case.yaml',
    cases: [
      { id: 'files-new-record', expect: { skill: 'alpha', judge: ['Does the reply say that a record was filed for the failed export?'] } },
    ],
    uncarried: [/^grader 3: a regex grader/, /^"runs"/],
  },
  {
    format: 'a `claude plugin eval` prompt.md with graders/*.md (max: 0, a negative)',
    file: 'plugin-eval/greek-alpha/prompt.md',
    cases: [{ id: 'greek-alpha', expect: { skill: 'none', not: 'alpha' }, tags: ['near-miss'] }],
    uncarried: [/^"tags"/, /^its llm graders \(a case the skill must leave/],
  },
];
