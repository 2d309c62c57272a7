import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IMPORTERS, jsonErrorAt } from '../src/load/import/registry.js';
import { baseProject, projectsRemovedAfterAll, runInProcess } from './helpers.js';

/**
 * Every importer's bad inputs through `skillprobe import`: each refused in one line naming the file (and the entry,
 * where there is one) and what to do, exit 2, nothing written.
 */
const project = projectsRemovedAfterAll(baseProject);
const json = (v: unknown) => JSON.stringify(v, null, 2);
/** Past the 10 MB an eval file may hold. */
const HUGE = 'x'.repeat(10 * 2 ** 20 + 1);
const latin1 = (text: string) => Buffer.from(text, 'latin1');

type Row = [kind: string, content: string | Buffer, message: RegExp, file?: string];
const TABLE: Record<string, { file: string; rows: Row[] }> = {
  'trigger-list': {
    file: 'evals/alpha.json',
    rows: [
      ['malformed', '[{"query": "do alpha", "should_trigger": true},]', /:1:48: not valid JSON: Unexpected token .* — fix the JSON there/],
      [
        'wrong-shape',
        json([{ query: 'do alpha', should_trigger: 'yes' }]),
        /:4:23: entry 1: "should_trigger" is "yes", not true or false — write true or false/,
      ],
      ['empty', '[]', /:1:1: the eval set holds no entries — add at least one/],
      [
        'huge',
        `[{"query": "${HUGE}", "should_trigger": true}]`,
        /: the file is 10\.0 MB, over the 10 MB an eval file may hold — check it is the eval file/,
      ],
      [
        'non-UTF-8',
        latin1('[{"query": "café", "should_trigger": true}]'),
        /:1:16: byte 0xE9 at offset 15 is not UTF-8 .* — save the file as UTF-8/,
      ],
      [
        'duplicate-entry',
        json([
          { query: 'do alpha', should_trigger: true },
          { query: 'do alpha', should_trigger: false },
        ]),
        /:8:23: entry 2 asks entry 1's query again \(line 2\) with should_trigger false, where entry 1 says true — keep the entry that is right/,
      ],
    ],
  },
  'evals-json': {
    file: 'evals/alpha.json',
    rows: [
      ['malformed', '{"skill_name": "alpha", "evals": [{"id": 1, "prompt": "do alpha"}}', /:1:66: not valid JSON/],
      [
        'wrong-shape',
        json({ skill_name: 'alpha', evals: [{ id: 1, prompt: 'do alpha', expectations: 'be quick' }] }),
        /:7:23: eval 1: "expectations" is a string — write a JSON array of non-empty strings/,
      ],
      ['empty', json({ skill_name: 'alpha', evals: [] }), /:3:12: "evals" holds no evals — add at least one/],
      ['huge', json({ skill_name: 'alpha', evals: [{ id: 1, prompt: HUGE }] }), /over the 10 MB an eval file may hold/],
      ['non-UTF-8', latin1('{"skill_name": "alpha", "evals": [{"id": 1, "prompt": "café"}]}'), /:1:59: byte 0xE9 .* is not UTF-8/],
      [
        'duplicate-entry',
        json({
          skill_name: 'alpha',
          evals: [
            { id: 1, prompt: 'do alpha' },
            { id: 1, prompt: 'list alpha' },
          ],
        }),
        /:9:13: eval 2 has the id of eval 1 \(line 4\) — give every eval its own id/,
      ],
    ],
  },
  'trigger-lists': {
    file: 'evals/alpha.json',
    rows: [
      ['malformed', '{"should_trigger": ["do alpha"], }', /:1:34: not valid JSON/],
      [
        'wrong-shape',
        json({ should_trigger: 'do alpha' }),
        /:2:21: "should_trigger" is a string, not a list — write it as two lists of requests/,
      ],
      ['empty', json({ should_trigger: [], should_not_trigger: [] }), /:1:1: both lists are empty — add a request to one/],
      ['huge', json({ should_trigger: [HUGE] }), /over the 10 MB an eval file may hold/],
      ['non-UTF-8', latin1('{"should_trigger": ["café"]}'), /:1:25: byte 0xE9/],
      [
        'duplicate-entry',
        json({ should_trigger: ['do alpha'], should_not_trigger: ['do alpha'] }),
        /:6:5: "should_not_trigger" item 1 asks "should_trigger" item 1's request again \(line 3\) with should_trigger false, where "should_trigger" item 1 says true — keep the entry/,
      ],
    ],
  },
  promptfoo: {
    file: 'evals/promptfooconfig.yaml',
    rows: [
      ['malformed', "prompts: ['{{request}}']\ntests: [\n", /promptfooconfig\.yaml:3:1: YAML syntax error/],
      [
        'wrong-shape',
        "prompts: ['{{request}}']\ntests:\n  - vars: { request: do alpha }\n    assert:\n      - type: skill-used\n        value: [alpha]\n",
        /:6:16: test 1: the skill-used assertion names a list — name one skill/,
      ],
      [
        'empty',
        "prompts: ['{{request}}']\ndefaultTest:\n  assert:\n    - type: skill-used\n      value: alpha\ntests: []\n",
        /:6:8: no test asserts skill-used or not-skill-used — write a promptfoo config/,
      ],
      [
        'huge',
        `prompts: ['{{request}}']\ntests:\n  - vars: { request: ${HUGE} }\n    assert: [{ type: skill-used, value: alpha }]\n`,
        /over the 10 MB/,
      ],
      [
        'non-UTF-8',
        latin1("prompts: ['{{request}}']\ntests:\n  - vars: { request: café }\n    assert: [{ type: skill-used, value: alpha }]\n"),
        /:3:25: byte 0xE9/,
      ],
      [
        'duplicate-entry',
        "prompts: ['{{request}}']\ntests:\n  - description: one\n    vars: { request: do alpha }\n    assert: [{ type: skill-used, value: alpha }]\n  - description: one\n    vars: { request: list alpha }\n    assert: [{ type: skill-used, value: alpha }]\n",
        /:6:18: test 2 has the description of test 1 \(line 3\) — give every test its own description/,
      ],
      [
        'conversation-not-ending-with-the-user',
        "prompts: ['{{ messages | dump }}']\ntests:\n  - vars:\n      messages:\n        - user: do alpha\n        - assistant: done\n    assert: [{ type: skill-used, value: alpha }]\n",
        /:6:11: test 1: the conversation does not end with the user's message — end it with the user's request/,
      ],
      [
        'conversation-wrong-message',
        "prompts: ['{{ messages | dump }}']\ntests:\n  - vars:\n      messages:\n        - { role: tool, content: '42' }\n        - user: do alpha\n    assert: [{ type: skill-used, value: alpha }]\n",
        /:5:11: test 1: a message is not \{role: user\|assistant\|system, content: text\}/,
      ],
      [
        'history-out-of-order',
        "prompts: ['{{ messages | dump }}']\ntests:\n  - vars:\n      messages:\n        - assistant: hello\n        - user: do alpha\n    assert: [{ type: skill-used, value: alpha }]\n",
        /:5:9: case "alpha-test-1": history turn 1 is the assistant's, but turns alternate starting with the user/,
      ],
      [
        'mcp-server-without-command',
        "prompts: ['{{request}}']\nproviders:\n  - id: anthropic:claude-agent-sdk\n    config:\n      mcp:\n        enabled: true\n        server: { name: records }\ntests:\n  - vars: { request: do alpha }\n    assert: [{ type: skill-used, value: alpha }]\n",
        /:7:17: MCP server "records" has neither a command nor a url — write command: \(and args:\) to start it/,
      ],
      [
        'mcp-args-not-text',
        "prompts: ['{{request}}']\nproviders:\n  - id: anthropic:claude-agent-sdk\n    config:\n      mcp:\n        server: { name: records, command: node, args: [--port, 80] }\ntests:\n  - vars: { request: do alpha }\n    assert: [{ type: skill-used, value: alpha }]\n",
        /:6:55: MCP server "records": args is a list holding other than text — write a list of strings/,
      ],
    ],
  },
  'waza-trigger-tests': {
    file: 'evals/trigger_tests.yaml',
    rows: [
      ['malformed', 'skill: alpha\nshould_trigger_prompts:\n  - prompt: "do alpha\n', /trigger_tests\.yaml:\d+:\d+: YAML syntax error/],
      [
        'wrong-shape',
        'skill: alpha\nshould_trigger_prompts:\n  - reason: no prompt here\n',
        /:3:5: "should_trigger_prompts" item 1 has no prompt — write - prompt:/,
      ],
      [
        'empty',
        'skill: alpha\nshould_trigger_prompts: []\nshould_not_trigger_prompts: []\n',
        /:1:1: both lists of prompts are empty — add a prompt to one/,
      ],
      ['huge', `skill: alpha\nshould_trigger_prompts:\n  - prompt: ${HUGE}\n`, /over the 10 MB/],
      ['non-UTF-8', latin1('skill: alpha\nshould_trigger_prompts:\n  - prompt: café\n'), /:3:16: byte 0xE9/],
      [
        'duplicate-entry',
        'skill: alpha\nshould_trigger_prompts:\n  - prompt: do alpha\nshould_not_trigger_prompts:\n  - prompt: do alpha\n',
        /:5:5: "should_not_trigger_prompts" item 1 asks "should_trigger_prompts" item 1's prompt again \(line 3\) with should_trigger false/,
      ],
    ],
  },
  'waza-eval': {
    file: 'evals/eval.yaml',
    rows: [
      [
        'wrong-shape (a task pattern out of the suite)',
        'name: x\nskill: alpha\ntasks: ["../skills/alpha/*.md"]\n',
        /:3:9: the task pattern "\.\.\/skills\/alpha\/\*\.md" reaches outside the suite's folder — keep the task files beside eval\.yaml/,
      ],
      ['malformed', 'name: x\nskill: alpha\ntasks: ["tasks/*.yaml"\n', /eval\.yaml:\d+:\d+: YAML syntax error/],
      ['wrong-shape', 'name: x\nskill: [alpha]\ntasks: ["tasks/*.yaml"]\n', /:2:8: "skill" is a list — name the skill the suite is for/],
      [
        'empty',
        'name: x\nskill: alpha\ntasks: ["tasks/*.yaml"]\n',
        /:3:9: the task pattern "tasks\/\*\.yaml" matches no file \(beside cases\/eval\.yaml\) — fix the pattern/,
      ],
      ['huge', `name: x\nskill: alpha\ndescription: ${HUGE}\ntasks: ["tasks/*.yaml"]\n`, /over the 10 MB/],
      ['non-UTF-8', latin1('name: café\nskill: alpha\ntasks: ["tasks/*.yaml"]\n'), /:1:10: byte 0xE9/],
      [
        'mcp-servers-not-by-name',
        'name: x\nskill: alpha\nconfig:\n  mcp_servers: [{ command: node }]\ntasks: ["tasks/*.yaml"]\n',
        /:4:16: "mcp_servers" is a list — write each server by name: \{<name>: \{command, args\}\}/,
      ],
      [
        'mcp-server-not-an-object',
        'name: x\nskill: alpha\nconfig:\n  mcp_servers:\n    records: node mcp/records-server.js\ntasks: ["tasks/*.yaml"]\n',
        /:5:14: an MCP server is a string, not an object — write the server as \{command, args\}/,
      ],
    ],
  },
  skillgrade: {
    file: 'evals/eval.yaml',
    rows: [
      ['malformed', 'tasks:\n  - name: a\n    instruction: "do alpha\n', /eval\.yaml:\d+:\d+: YAML syntax error/],
      ['wrong-shape', 'tasks:\n  - instruction: do alpha\n', /:2:5: task 1 has no name — give it name: a short id/],
      ['empty', 'tasks:\n  - name: a\n    instruction: "  "\n', /:2:5: task 1 has no instruction — write instruction:/],
      ['huge', `tasks:\n  - name: a\n    instruction: ${HUGE}\n`, /over the 10 MB/],
      ['non-UTF-8', latin1('tasks:\n  - name: a\n    instruction: café\n'), /:3:21: byte 0xE9/],
      [
        'duplicate-entry',
        'tasks:\n  - name: a\n    instruction: do alpha\n  - name: a\n    instruction: list alpha\n',
        /:4:11: task 2 has the name of task 1 \(line 2\) — give every task its own name/,
      ],
    ],
  },
  'plugin-eval': {
    file: 'evals/case.yaml',
    rows: [
      [
        'malformed (prompt.md frontmatter)',
        '---\nname: a\ntags: [x\n---\nDo alpha\n',
        /prompt\.md:3:9: YAML syntax error/,
        'evals/prompt.md',
      ],
      [
        'wrong-shape (a pattern that is no regular expression)',
        'name: a\nprompt: do alpha\ngraders:\n  - type: tool_used\n    tool: Skill\n    input_match: "alpha("\n',
        /:4:5: grader 1: input_match "alpha\(" is no regular expression — fix the pattern/,
      ],
      ['malformed', 'name: a\ngraders: [\n', /case\.yaml:\d+:\d+: YAML syntax error/],
      [
        'wrong-shape',
        'name: a\nprompt: do alpha\ngraders:\n  - type: tool_used\n    tool: Skill\n    input_match: zeta\n',
        /:4:5: grader 1: input_match "zeta" matches no skill of the family — make it name one skill: alpha, alpha-beta/,
      ],
      [
        'empty',
        'name: a\nprompt: ""\ngraders:\n  - type: tool_used\n    tool: Skill\n',
        /:2:9: case "a" has no prompt — write the request as a user would type it/,
      ],
      ['huge', `name: a\nprompt: ${HUGE}\ngraders:\n  - type: tool_used\n    tool: Skill\n`, /over the 10 MB/],
      ['non-UTF-8', latin1('name: a\nprompt: café\ngraders:\n  - type: tool_used\n    tool: Skill\n'), /:2:12: byte 0xE9/],
      [
        'duplicate-entry',
        'name: a\nprompt: do alpha\ngraders:\n  - type: tool_used\n    tool: Skill\n  - type: tool_used\n    tool: Skill\n',
        /:4:3: case "a" has 2 tool_used Skill graders, where a trigger case has one — keep one/,
      ],
    ],
  },
  'prompts-csv': {
    file: 'evals/alpha.prompts.csv',
    rows: [
      ['malformed', 'id,should_trigger,prompt\ntest-01,true,"do alpha\n', /alpha\.prompts\.csv:2:1: not valid CSV: Quote Not Closed/],
      [
        'wrong-shape',
        'id,should_trigger,prompt\ntest-01,maybe,do alpha\n',
        /:2:1: row 1 \(id "test-01"\): should_trigger is "maybe", not true or false — write true or false/,
      ],
      ['empty', 'id,should_trigger,prompt\n', /: the CSV holds a header and no rows — add a row a request/],
      ['huge', `id,should_trigger,prompt\ntest-01,true,${HUGE}\n`, /over the 10 MB/],
      ['non-UTF-8', latin1('id,should_trigger,prompt\ntest-01,true,café\n'), /:2:17: byte 0xE9/],
      [
        'duplicate-entry',
        'id,should_trigger,prompt\ntest-01,true,do alpha\ntest-01,false,list alpha\n',
        /:3:1: row 2 has the id of row 1 \(line 2\) — give every row its own id/,
      ],
    ],
  },
};

describe('skillprobe import refuses bad input to every importer: one line, file:line, exit 2, nothing written', () => {
  it('covers every importer of the registry', () => expect(Object.keys(TABLE).sort()).toEqual(IMPORTERS.map((i) => i.name).sort()));

  const rows = Object.entries(TABLE).flatMap(([format, { file, rows }]) =>
    rows.map(([kind, content, message, own]) => ({ format, kind, file: own ?? file, content, message })),
  );
  it.each(rows)('$format: $kind', async ({ file, content, message }) => {
    const dir = project();
    writeFileSync(join(dir, file.replace(/^evals\//, 'cases/')), content);
    const before = readdirSync(dir, { recursive: true }).sort();
    const r = await runInProcess(['import', file.replace(/^evals\//, 'cases/'), '--skill', 'alpha', '--out', 'cases/imported.yaml'], {
      cwd: dir,
    });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr.split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).toMatch(new RegExp(`^skillprobe: cases/${file.replace(/^evals\//, '').replace(/\./g, '\\.')}`));
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
    expect(readdirSync(dir, { recursive: true }).sort()).toEqual(before);
  });
});

describe('a JSON syntax error is located even where the parser names no position', () => {
  const entry = '{"query": "do alpha", "should_trigger": true}';
  it.each<[string, string, { line: number; col: number }]>([
    ['an unexpected token near the start', '[1,]', { line: 1, col: 4 }],
    ['an unexpected token at the end', `[${entry},]`, { line: 1, col: 48 }],
    ['an unexpected token cut on both sides', `[${entry}, ${entry},\n  x, ${entry}]`, { line: 2, col: 3 }],
    ['a position the parser names', '{"a": 1,}', { line: 1, col: 9 }],
    ['the end of the text', '[1,', { line: 1, col: 4 }],
  ])('%s', (_, text, at) => {
    let message = '';
    try {
      JSON.parse(text);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(jsonErrorAt(text, message)).toEqual(at);
  });
});
