import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConversationView, Wire } from '../src/sim/conversation.js';
import { commandAction, commandInScript, commandResult, execScript, scriptResult } from '../src/sim/dialects/codex-commands.js';
import { shellWords } from '../src/util/shell-words.js';
import type { ModelReply } from '../src/sim/dialects/dialect.js';
import { DIALECTS, dialectFor, viewRequest } from '../src/sim/dialects/index.js';
import { parseGeminiListing } from '../src/sim/dialects/gemini-view.js';
import { parseCodexListing } from '../src/sim/dialects/openai-responses-view.js';
import { simulatorBaseUrl, splitTrialPrefix } from '../src/sim/identity.js';
import { decideReply, type Reply, type ReplyBlock } from '../src/sim/policy.js';
import { parseProfile } from '../src/sim/profile.js';
import { startSimulator, type RunningSimulator } from '../src/sim/server.js';
import { fencedCommands } from '../src/util/markdown.js';
import { ROOT } from './helpers.js';

type Json = Record<string, unknown>;
const fixture = (name: string) => readFileSync(join(ROOT, 'test/fixtures/codex-gemini', name), 'utf8');
const fixtureJson = <T = Json>(name: string) => JSON.parse(fixture(name)) as T;

/** Requests the real Codex 0.169 and Gemini CLI 0.61 sent to this simulator (long context trimmed, paths under /trial). */
const codex169 = fixtureJson<Record<'first' | 'after-skill' | 'after-read' | 'after-search', Json>>('sim-codex-0.169-requests.json');
/** Codex 0.169 with a "responses lite" model: tools in an `additional_tools` input item, the shell only inside `exec` scripts. */
const codexLite = fixtureJson<Record<'first' | 'afterExec', Json & { input: Json[] }>>('codex-lite-requests.json');
const gemini061 = fixtureJson<Record<'first' | 'after-skill' | 'after-read' | 'after-search', Json>>('sim-gemini-0.61-requests.json');
/** Requests measured on Codex 0.171 and Gemini 0.61 against another stand-in; the second ones hold only the new tail. */
const codexSample1 = fixtureJson<{ body: Json & { input: unknown[] } }>('codex-request1-skill-trimmed.json').body;
const codexSample2 = {
  ...codexSample1,
  input: [
    ...codexSample1.input,
    ...fixtureJson<{ body: { input_tail: unknown[] } }>('codex-request2-after-tool-trimmed.json').body.input_tail,
  ],
};
const geminiSample1 = fixtureJson<{ body: Json & { contents: unknown[] } }>('gemini-request1-skill-trimmed.json').body;
const geminiSample2 = {
  ...geminiSample1,
  contents: [
    ...geminiSample1.contents,
    ...fixtureJson<{ body: { contents_tail: unknown[] } }>('gemini-request2-after-tool-trimmed.json').body.contents_tail,
  ],
};

const MOCK_MD =
  '---\nname: mock-skill\ndescription: Test skill. Use when asked for the phrase.\n---\n# mock\n```bash\nmock run --fast\n```\n';
const TRIAL_FILES = {
  'mock-skill': '/trial/ws/.agents/skills/mock-skill/SKILL.md',
  'other-skill': '/trial/ws/.agents/skills/other-skill/SKILL.md',
};
const LITE_MD = '---\nname: mock-skill\ndescription: Test skill.\n---\n# mock\nNONCE-xyz\n';

/** Codex's answer to an `exec` script that passed a command's result to `text()`, as it reports one. */
const scriptOutput = (call_id: unknown, exit_code: number, output: string) => ({
  type: 'custom_tool_call_output',
  call_id,
  output: [
    { type: 'input_text', text: 'Script completed\nWall time 0.1 seconds\nOutput:\n' },
    { type: 'input_text', text: JSON.stringify({ chunk_id: 'c1', wall_time_seconds: 0, exit_code, original_token_count: 3, output }) },
  ],
});

/** A view with its maps as plain objects, for comparing with expectations. */
const viewed = (wire: Wire, body: unknown) => {
  const v = viewRequest(wire, body);
  return { ...v, skillFiles: Object.fromEntries(v.skillFiles), skillDescriptions: Object.fromEntries(v.skillDescriptions) };
};

const MOCK_DESCRIPTIONS = { 'mock-skill': 'Test skill. Use when asked for the phrase.', 'other-skill': 'Another skill.' };
const SAMPLE_DESCRIPTION = { 'mock-skill': 'Test skill. Use when the user asks for the secret mock phrase.' };

describe('views of real requests', () => {
  it.each([
    [
      'Codex 0.169, first request',
      'openai-responses',
      codex169.first,
      {
        offeredSkills: ['mock-skill', 'other-skill'],
        skillDescriptions: MOCK_DESCRIPTIONS,
        skillFiles: TRIAL_FILES,
        canInvokeSkill: true,
        canReadFile: true,
        tools: ['exec_command', 'write_stdin', 'request_user_input', 'view_image'],
        prompt: 'What is the phrase?',
        turn: 0,
        lastResults: [],
        skillBody: undefined,
      },
    ],
    [
      'Codex 0.169, after the skill was printed with cat',
      'openai-responses',
      codex169['after-skill'],
      {
        turn: 1,
        prompt: 'What is the phrase?',
        lastResults: [{ action: 'skill', skill: 'mock-skill', isError: false, text: MOCK_MD }],
        skillBody: { text: MOCK_MD, argumentsFilled: false },
      },
    ],
    [
      'Codex 0.169, after a paged read of SKILL.md',
      'openai-responses',
      codex169['after-read'],
      {
        turn: 1,
        lastResults: [{ action: 'read', skill: 'mock-skill', isError: false, text: MOCK_MD }],
        skillBody: { text: MOCK_MD, argumentsFilled: false },
      },
    ],
    [
      'Codex 0.169, after a search',
      'openai-responses',
      codex169['after-search'],
      { turn: 1, lastResults: [{ action: 'search', isError: false, text: '' }], skillBody: undefined },
    ],
    [
      'Codex 0.169 responses lite, first request',
      'openai-responses',
      codexLite.first,
      {
        offeredSkills: ['mock-skill'],
        skillDescriptions: { 'mock-skill': 'Test skill.' },
        skillFiles: { 'mock-skill': '/trial/ws/.agents/skills/mock-skill/SKILL.md' },
        canInvokeSkill: true,
        canReadFile: true,
        tools: ['exec', 'wait', 'request_user_input', 'request_user_input_async', 'sleep'],
        prompt: 'hi',
        turn: 0,
        lastResults: [],
        skillBody: undefined,
      },
    ],
    [
      'Codex 0.169 responses lite, after an exec script printed the skill',
      'openai-responses',
      codexLite.afterExec,
      {
        turn: 1,
        prompt: 'hi',
        lastResults: [{ action: 'skill', skill: 'mock-skill', isError: false, text: LITE_MD }],
        skillBody: { text: LITE_MD, argumentsFilled: false },
      },
    ],
    [
      'Codex 0.171 sample, first request',
      'openai-responses',
      codexSample1,
      {
        offeredSkills: ['mock-skill'],
        skillDescriptions: SAMPLE_DESCRIPTION,
        skillFiles: { 'mock-skill': '/ws/.agents/skills/mock-skill/SKILL.md' },
        tools: ['exec_command', 'write_stdin', 'request_user_input', 'apply_patch', 'view_image'],
        prompt: 'What is the secret mock phrase?...[trimmed]',
        turn: 0,
      },
    ],
    [
      'Codex 0.171 sample, after the skill was printed',
      'openai-responses',
      codexSample2,
      {
        turn: 1,
        lastResults: [{ action: 'skill', skill: 'mock-skill', isError: false, text: expect.stringContaining('MARKER-mock-skill') }],
        skillBody: { text: expect.stringMatching(/^---\nname: mock-skill/), argumentsFilled: false },
      },
    ],
    [
      'Gemini 0.61, first request',
      'gemini',
      gemini061.first,
      {
        offeredSkills: ['other-skill', 'mock-skill'],
        skillDescriptions: MOCK_DESCRIPTIONS,
        skillFiles: TRIAL_FILES,
        canInvokeSkill: true,
        canReadFile: true,
        tools: ['list_directory', 'read_file', 'grep_search', 'glob', 'activate_skill'],
        prompt: 'What is the phrase?',
        turn: 0,
        lastResults: [],
        skillBody: undefined,
      },
    ],
    [
      'Gemini 0.61, after activate_skill',
      'gemini',
      gemini061['after-skill'],
      {
        turn: 1,
        lastResults: [
          { action: 'skill', skill: 'mock-skill', isError: false, text: expect.stringContaining('<activated_skill name="mock-skill">') },
        ],
        skillBody: { text: '# mock\n```bash\nmock run --fast\n```', argumentsFilled: false },
      },
    ],
    [
      'Gemini 0.61, after read_file of SKILL.md',
      'gemini',
      gemini061['after-read'],
      {
        turn: 1,
        lastResults: [{ action: 'read', skill: 'mock-skill', isError: false, text: MOCK_MD }],
        skillBody: { text: MOCK_MD, argumentsFilled: false },
      },
    ],
    [
      'Gemini 0.61, after a glob',
      'gemini',
      gemini061['after-search'],
      {
        turn: 1,
        lastResults: [{ action: 'search', isError: false, text: 'No files found matching pattern "**/*step0*" within /trial/ws' }],
        skillBody: undefined,
      },
    ],
    [
      'Gemini sample, first request',
      'gemini',
      geminiSample1,
      {
        offeredSkills: ['mock-skill'],
        skillDescriptions: SAMPLE_DESCRIPTION,
        skillFiles: { 'mock-skill': '/ws/.agents/skills/mock-skill/SKILL.md' },
        prompt: 'What is the secret mock phrase?',
        turn: 0,
      },
    ],
    [
      'Gemini sample, after activate_skill',
      'gemini',
      geminiSample2,
      {
        turn: 1,
        lastResults: [{ action: 'skill', skill: 'mock-skill', isError: false }],
        skillBody: { text: '# mock-skill\n\nMARKER-mock-skill: reply with blue-pelican-42.', argumentsFilled: false },
      },
    ],
  ] as const)('%s', (_, wire, body, expected) => {
    expect(viewed(wire, body)).toMatchObject({ wire, ...expected });
  });

  it.each(['anthropic', 'openai-responses', 'gemini'] as const)('%s: garbage gives an empty view, never a throw', (wire) => {
    const liteGarbage = {
      input: [
        { type: 'additional_tools', tools: [{ type: 'namespace', tools: 7 }, 'exec'] },
        { type: 'custom_tool_call', call_id: 'c', name: 'exec', input: 5 },
        { type: 'custom_tool_call_output', call_id: 'c', output: [{ text: '{"output":3}' }, 'x'] },
      ],
    };
    for (const body of [
      null,
      'text',
      42,
      [],
      { input: 5, contents: [null, { parts: 'x' }], messages: [{ role: 'assistant', content: 7 }] },
      liteGarbage,
    ]) {
      expect(viewed(wire, body)).toMatchObject({
        wire,
        offeredSkills: [],
        skillDescriptions: {},
        skillFiles: {},
        canInvokeSkill: false,
        canReadFile: false,
        tools: [],
        prompt: '',
      });
    }
  });

  it('the prompt skips the context Codex injects (AGENTS.md, environment, an explicitly mentioned skill)', () => {
    const user = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
    const body = {
      input: [
        user('# AGENTS.md instructions for /ws\n\n<INSTRUCTIONS>\nBe brief.\n</INSTRUCTIONS>'),
        user('<environment_context>\n</environment_context>'),
        user('use $pdf here'),
        user('<skill>\n<name>pdf</name>\n</skill>'),
      ],
    };
    expect(viewRequest('openai-responses', body).prompt).toBe('use $pdf here');
  });

  it('a Codex command that failed is an error, and its output still reaches the model', () => {
    expect(
      commandResult(
        'Chunk ID: 1\nWall time: 0 seconds\nProcess exited with code 1\nOriginal token count: 3\nOutput:\ncat: x: No such file',
      ),
    ).toEqual({ isError: true, text: 'cat: x: No such file' });
    expect(commandResult('Process exited with code 0\nOutput:\nok\n')).toEqual({ isError: false, text: 'ok\n' });
    expect(commandResult('failed to parse function arguments')).toEqual({ isError: true, text: 'failed to parse function arguments' });
  });

  it('a Codex exec script reports the command’s exit code and output; without that result the script failed', () => {
    const report = (exit_code?: number) => [
      'Script completed\nOutput:\n',
      JSON.stringify({ chunk_id: 'c', wall_time_seconds: 0, exit_code, output: 'out' }),
    ];
    expect(scriptResult(report(0))).toEqual({ isError: false, text: 'out' });
    expect(scriptResult(report(2))).toEqual({ isError: true, text: 'out' });
    expect(scriptResult(report(undefined))).toEqual({ isError: true, text: 'out' });
    expect(scriptResult(['Script failed', 'ReferenceError: x is not defined'])).toEqual({
      isError: true,
      text: 'Script failed\nReferenceError: x is not defined',
    });
  });

  it('a Codex exec script’s command reads back from either quotes; a script that runs none gives none', () => {
    expect(commandInScript(`const r = await tools.exec_command({cmd: 'sed -n \\'1,9p\\' a\\\\b'});`)).toBe(`sed -n '1,9p' a\\b`);
    expect(commandInScript('await tools.exec_command( { cmd : "cat \\"x y\\"\\u0041\\x42" } )')).toBe('cat "x y"AB');
    expect(commandInScript('text(await tools.view_image({path: "a.png"}))')).toBe('');
    expect(commandInScript('await tools.exec_command({cmd: "unterminated})')).toBe('');
  });

  it.each([`cat '/my ws/it'\\''s/SKILL.md'`, 'printf "%s\\n" "a\\b" `x` ${y}', 'echo \u2028 — ünï 💡', 'line one\nline two'])(
    'a Codex exec script runs the command as written, and reads back: %j',
    async (cmd) => {
      const script = execScript(cmd);
      expect(commandInScript(script)).toBe(cmd);
      const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
        ...args: string[]
      ) => (...args: unknown[]) => Promise<void>;
      const ran: unknown[] = [];
      const texts: unknown[] = [];
      await new AsyncFunction('tools', 'text', script)(
        { exec_command: async (args: unknown) => (ran.push(args), { exit_code: 0, output: '' }) },
        (v: unknown) => texts.push(v),
      );
      expect(ran).toEqual([{ cmd }]);
      expect(texts).toEqual([{ exit_code: 0, output: '' }]);
    },
  );

  it('a Gemini function response with an error is an error', () => {
    const body = structuredClone(gemini061['after-skill']) as { contents: { parts: { functionResponse?: { response: unknown } }[] }[] };
    body.contents.at(-1)!.parts[0]!.functionResponse!.response = { error: 'Tool "activate_skill" not found.' };
    expect(viewRequest('gemini', body)).toMatchObject({
      lastResults: [{ action: 'skill', skill: 'mock-skill', isError: true, text: 'Tool "activate_skill" not found.' }],
      skillBody: undefined,
    });
  });

  it('Codex shell commands read back in skill terms, quoted or not', () => {
    const files = new Map([['pdf', '/a b/.agents/skills/pdf-tools/SKILL.md']]);
    expect(shellWords(`cat '/a b/x'\\ y "q r" plain`)).toEqual(['cat', '/a b/x y', 'q r', 'plain']);
    expect(commandAction(`cat '/a b/.agents/skills/pdf-tools/SKILL.md'`, files)).toEqual({ action: 'skill', skill: 'pdf' });
    expect(commandAction(`sed -n '1,400p' .agents/skills/gone/SKILL.md`, files)).toEqual({ action: 'read', skill: 'gone' });
    expect(commandAction(`find . -path './**/*step0*'`, files)).toEqual({ action: 'search' });
    expect(commandAction('echo hi', files)).toEqual({ action: 'other' });
  });
});

describe('each listed description, as the CLI sent it', () => {
  /** Claude Code's reminder: cut at 1536 chars with `…`, name-only under budget. */
  const claudeListing = [
    '<system-reminder>',
    'The following skills are available for use with the Skill tool:',
    '',
    '- pdf-tool: Extract text and tables from PDF files. Use when the user mentions PDFs.',
    '- deep-research: Deep research harness — …',
    '- notes: Ratio 3:1 kept: colons after the first are the description’s.',
    '- skill-079',
    '- pdf-tool: A second listing of the same name.',
    '</system-reminder>',
    '- after-the-reminder: not listed',
  ].join('\n');
  const claudeRequest = (role: string) => ({
    tools: [{ name: 'Skill' }],
    messages: [
      { role, content: [{ type: 'text', text: claudeListing }] },
      { role: 'user', content: 'extract a.pdf' },
    ],
  });
  const codexRequest = {
    input: [
      {
        type: 'message',
        role: 'developer',
        content: [
          {
            type: 'input_text',
            text: [
              '<skills_instructions>',
              '### Skill roots',
              '- `r0` = `/ws/.agents/skills`',
              '### Available skills',
              '- pdf: Handles PDFs (merge, split). (file: r0/pdf/SKILL.md)',
              '- bare: No file given.',
              '- pdf: A second copy. (file: r0/other/SKILL.md)',
              '</skills_instructions>',
            ].join('\n'),
          },
        ],
      },
    ],
  };
  const geminiRequest = {
    systemInstruction: {
      parts: [
        {
          text: [
            '<available_skills>',
            '<skill><name>rd</name><description>\n  R&amp;D notes &lt;draft&gt; …\n</description><location>/x/SKILL.md</location></skill>',
            '<skill><name>nodesc</name><location>/y/SKILL.md</location></skill>',
            '<skill><name>rd</name><description>Second.</description></skill>',
            '</available_skills>',
          ].join('\n'),
        },
      ],
    },
  };
  const CLAUDE = {
    'pdf-tool': 'Extract text and tables from PDF files. Use when the user mentions PDFs.',
    'deep-research': 'Deep research harness — …',
    notes: 'Ratio 3:1 kept: colons after the first are the description’s.',
    'skill-079': '',
  };

  it.each([
    ['Claude Code, reminder in the first user message', 'anthropic', claudeRequest('user'), CLAUDE],
    ['Claude Code, listing as a system-role message', 'anthropic', claudeRequest('system'), CLAUDE],
    [
      'Codex, the (file: …) part left out',
      'openai-responses',
      codexRequest,
      { pdf: 'Handles PDFs (merge, split).', bare: 'No file given.' },
    ],
    ['Gemini, unescaped and trimmed', 'gemini', geminiRequest, { rd: 'R&D notes <draft> …', nodesc: '' }],
  ] as const)('%s', (_, wire, body, descriptions) => {
    const v = viewed(wire, body);
    expect(v.skillDescriptions).toEqual(descriptions);
    expect(v.offeredSkills).toEqual(Object.keys(descriptions));
  });
});

describe('skill listings', () => {
  it.each([
    ['with the model catalog (usage section after the list)', 'codex-skills-block-with-catalog.txt'],
    ['with fallback metadata', 'codex-skills-block-fallback-metadata.txt'],
  ])('Codex, %s', (_, file) => {
    const listing = parseCodexListing(fixture(file));
    expect(listing.names).toEqual(['mock-skill']);
    expect(Object.fromEntries(listing.files)).toEqual({ 'mock-skill': '/ws/.agents/skills/mock-skill/SKILL.md' });
  });

  it('Codex: several roots, a description with parentheses, a duplicate name listed from two roots', () => {
    const block = [
      '<skills_instructions>',
      '### Skill roots',
      '- `r0` = `/ws/.agents/skills`',
      '- `r1` = `/home/u/.agents/skills`',
      '### Available skills',
      '- pdf: Handles PDFs (merge, split). (file: r1/pdf/SKILL.md)',
      '- jira: Files issues. (file: r0/tools/jira/SKILL.md)',
      '- pdf: A second copy. (file: r0/pdf/SKILL.md)',
      '- bare: No file given.',
      '</skills_instructions>',
    ].join('\n');
    const listing = parseCodexListing(block);
    expect(listing.names).toEqual(['pdf', 'jira', 'bare']);
    expect(Object.fromEntries(listing.files)).toEqual({
      pdf: '/home/u/.agents/skills/pdf/SKILL.md',
      jira: '/ws/.agents/skills/tools/jira/SKILL.md',
    });
  });

  it('Gemini, with XML escapes in a path', () => {
    const listing = parseGeminiListing(
      `${fixture('gemini-skills-block.txt')}\n<available_skills><skill><name>a&amp;b</name><location>/x/R&amp;D/SKILL.md</location></skill></available_skills>`,
    );
    expect(listing.names).toEqual(['mock-skill']);
    expect(
      parseGeminiListing(
        '<available_skills><skill><name>a&amp;b</name><location>/x/R&amp;D/SKILL.md</location></skill></available_skills>',
      ).files.get('a&b'),
    ).toBe('/x/R&D/SKILL.md');
  });
});

describe('the policy plays the same profile on every CLI', () => {
  const profile = parseProfile({
    seed: 2,
    rules: [
      { case: 'fires', do: [{ skill: 'mock-skill', args: '--fast' }] },
      { case: 'reads', do: [{ read: 'mock-skill' }] },
      { case: 'loops', do: [{ loop: true }] },
    ],
  });
  const blocksOf = (r: Reply): ReplyBlock[] => (r.type === 'message' ? r.blocks : []);
  const planOf = (r: Reply) =>
    fencedCommands(
      blocksOf(r)
        .map((b) => (b.type === 'text' ? b.text : ''))
        .join(''),
    );

  it.each([
    ['openai-responses', codex169],
    ['gemini', gemini061],
  ] as const)('%s: invokes, reads, searches, then plans from the body it was shown', (wire, requests) => {
    const first = viewRequest(wire, requests.first);
    expect(blocksOf(decideReply(profile, first, { key: 'k', caseId: 'fires' }))).toContainEqual({
      type: 'skill',
      name: 'mock-skill',
      args: '--fast',
    });
    expect(blocksOf(decideReply(profile, first, { key: 'k', caseId: 'reads' }))).toContainEqual({ type: 'read', name: 'mock-skill' });
    expect(blocksOf(decideReply(profile, first, { key: 'k', caseId: 'loops' }))).toContainEqual({ type: 'search', pattern: '**/*step0*' });
    expect(planOf(decideReply(profile, viewRequest(wire, requests['after-skill']), { key: 'k', caseId: 'fires' }))).toEqual([
      'mock run --fast',
    ]);
    expect(planOf(decideReply(profile, viewRequest(wire, requests['after-read']), { key: 'k', caseId: 'reads' }))).toEqual([
      'mock run --fast',
    ]);
    expect(blocksOf(decideReply(profile, viewRequest(wire, requests['after-search']), { key: 'k', caseId: 'loops' }))).toContainEqual({
      type: 'search',
      pattern: '**/*step1*',
    });
  });

  it('fills $ARGUMENTS in a body read from disk, as a model following it would', () => {
    const view: ConversationView = {
      ...viewRequest('gemini', gemini061['after-read']),
      skillBody: { text: '---\nname: x\n---\n```bash\nmock $ARGUMENTS\n```', argumentsFilled: false },
    };
    expect(planOf(decideReply(profile, view, { key: 'k', caseId: 'fires' }))).toEqual(['mock --fast']);
  });

  describe('a body without $ARGUMENTS (a skill written for every CLI)', () => {
    const BODY = 'mock setup\nmock run --name NAME\nmock list';
    const ARGS = 'run --name demo';
    const rule = parseProfile({ seed: 2, rules: [{ case: 'fires', do: [{ skill: 'mock-skill', args: ARGS }] }] });
    /** A CLI's real request after the skill loaded, its SKILL.md's one command replaced by BODY's. */
    const withBody = (request: Json) =>
      JSON.parse(JSON.stringify(request).replaceAll('mock run --fast', BODY.replaceAll('\n', '\\n'))) as Json;
    /** Claude Code fills no placeholder here: it injects the body and appends the args it was given. */
    const listing = [
      '<system-reminder>',
      'The following skills are available for use with the Skill tool:',
      '',
      '- mock-skill: Test.',
      '</system-reminder>',
    ];
    const injected = [
      'Base directory for this skill: /ws/.claude/skills/mock-skill',
      '',
      '# mock',
      '```bash',
      BODY,
      '```',
      '',
      `ARGUMENTS: ${ARGS}`,
    ];
    const claudeAfterSkill = {
      model: 'm',
      tools: [{ name: 'Skill' }, { name: 'Read' }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: listing.join('\n') },
            { type: 'text', text: 'run it' },
          ],
        },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Skill', input: { skill: 'mock-skill', args: ARGS } }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: 'Launching skill: mock-skill' },
            { type: 'text', text: injected.join('\n') },
          ],
        },
      ],
    };

    it.each([
      ['Claude Code', 'anthropic', claudeAfterSkill],
      ['Codex', 'openai-responses', withBody(codex169['after-skill'])],
      ['Gemini', 'gemini', withBody(gemini061['after-skill'])],
    ] as const)("%s plans the rule's args after the command prefix the body gives them", (_, wire, body) => {
      expect(planOf(decideReply(rule, viewRequest(wire, body), { key: 'k', caseId: 'fires' }))).toEqual(['mock run --name demo']);
    });
  });

  it.each([
    ['Codex without its shell', 'openai-responses', { ...codex169.first, tools: [] }],
    [
      'Codex lite without its exec tool',
      'openai-responses',
      { ...codexLite.first, input: codexLite.first.input.filter((item) => item.type !== 'additional_tools') },
    ],
    ['Gemini without activate_skill', 'gemini', { ...gemini061.first, tools: [{ functionDeclarations: [{ name: 'read_file' }] }] }],
    ['Gemini listing no skills', 'gemini', { ...gemini061.first, systemInstruction: { parts: [{ text: 'no skills here' }] } }],
  ] as const)('%s: the skill behaviour degrades to a plain answer', (_, wire, body) => {
    expect(blocksOf(decideReply(profile, viewRequest(wire, body), { key: 'k', caseId: 'fires' })).map((b) => b.type)).toEqual(['text']);
  });

  it('Gemini without read_file: the read behaviour degrades to a plain answer', () => {
    const body = { ...gemini061.first, tools: [{ functionDeclarations: [{ name: 'activate_skill' }] }] };
    expect(blocksOf(decideReply(profile, viewRequest('gemini', body), { key: 'k', caseId: 'reads' })).map((b) => b.type)).toEqual(['text']);
  });

  it('a failed skill print on Codex: the model says it could not load the skill', () => {
    const body = structuredClone(codex169['after-skill']) as { input: Json[] };
    const out = body.input.at(-1)!;
    out.output = String(out.output).replace('Process exited with code 0', 'Process exited with code 1');
    const reply = decideReply(profile, viewRequest('openai-responses', body), { key: 'k', caseId: 'fires' });
    expect(blocksOf(reply)).toEqual([{ type: 'text', text: expect.stringMatching(/^I could not load that skill/) }]);
  });

  it('Codex lite: invokes, reads and searches; a failed exec script print is a skill that did not load', () => {
    const first = viewRequest('openai-responses', codexLite.first);
    expect(blocksOf(decideReply(profile, first, { key: 'k', caseId: 'fires' }))).toContainEqual({
      type: 'skill',
      name: 'mock-skill',
      args: '--fast',
    });
    expect(blocksOf(decideReply(profile, first, { key: 'k', caseId: 'reads' }))).toContainEqual({ type: 'read', name: 'mock-skill' });
    expect(blocksOf(decideReply(profile, first, { key: 'k', caseId: 'loops' }))).toContainEqual({ type: 'search', pattern: '**/*step0*' });
    const failed = {
      ...codexLite.afterExec,
      input: [...codexLite.afterExec.input.slice(0, -1), scriptOutput('call_1', 1, 'cat: x: No such file')],
    };
    expect(blocksOf(decideReply(profile, viewRequest('openai-responses', failed), { key: 'k', caseId: 'fires' }))).toEqual([
      { type: 'text', text: expect.stringMatching(/^I could not load that skill \(cat: x: No such file\)/) },
    ]);
  });
});

/** Server-sent events as (event, data) pairs; lines may end in CRLF. */
function parseSse(text: string): { event?: string; data: Json }[] {
  return text
    .replace(/\r\n/g, '\n')
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => {
      const lines = frame.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice('event: '.length);
      const data = JSON.parse(lines.find((l) => l.startsWith('data: '))!.slice('data: '.length)) as Json;
      return event === undefined ? { data } : { event, data };
    });
}

const CLASSIC_TOOLS = ['exec_command', 'write_stdin'];
const LITE_TOOLS = ['exec', 'wait'];
const reply = (
  blocks: ReplyBlock[],
  skillFiles = new Map([['mock-skill', '/ws/.agents/skills/mock-skill/SKILL.md']]),
  tools: readonly string[] = CLASSIC_TOOLS,
): ModelReply => ({
  id: 'sim_7',
  model: 'm1',
  blocks,
  inputTokens: 100,
  cachedTokens: 0,
  cacheWriteTokens: 0,
  skillFiles,
  tools,
});

describe('encodings', () => {
  const intro = "I'll use the mock-skill skill for this, and this sentence is long enough to be split.";
  const skillReply = reply([
    { type: 'text', text: intro },
    { type: 'skill', name: 'mock-skill', args: '--fast' },
  ]);
  /** Event types, a run of text deltas as one. */
  const eventTypes = (events: { event?: string }[]) =>
    events.map((e) => e.event).filter((t, i, types) => !(t === 'response.output_text.delta' && types[i - 1] === t));
  const codexItems = (tools: readonly string[], blocks: ReplyBlock[], files?: Map<string, string>) =>
    (DIALECTS['openai-responses'].json(reply(blocks, files, tools)) as { output: Json[] }).output;

  it('Codex: the same event sequence the CLI accepted from the reference stand-in, a shell print of the listed file', () => {
    const events = parseSse(DIALECTS['openai-responses'].stream(skillReply));
    expect(eventTypes(events)).toEqual(parseSse(fixture('mock-codex-sse-functioncall.txt')).map((e) => e.event));
    expect(events.every((e) => e.event === e.data.type)).toBe(true);
    const text = events.filter((e) => e.event === 'response.output_text.delta').map((e) => e.data.delta);
    expect(text.length).toBeGreaterThan(1);
    expect(text.join('')).toBe(intro);
    const done = events.filter((e) => e.event === 'response.output_item.done').map((e) => e.data.item as Json);
    expect(done[1]).toMatchObject({ type: 'function_call', name: 'exec_command', call_id: 'call_sim_7_1', status: 'completed' });
    expect(JSON.parse(String(done[1]!.arguments))).toEqual({ cmd: 'cat /ws/.agents/skills/mock-skill/SKILL.md' });
    const completed = events.at(-1)!.data.response as Json;
    expect(completed).toMatchObject({ id: 'resp_sim_7', status: 'completed', model: 'm1', output: done });
    expect(completed.usage).toEqual({
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: expect.any(Number),
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 100 + (completed.usage as { output_tokens: number }).output_tokens,
    });
  });

  it('Codex lite: the shell print streams as a custom `exec` call whose script runs it', () => {
    const events = parseSse(DIALECTS['openai-responses'].stream(reply(skillReply.blocks, undefined, LITE_TOOLS)));
    expect(eventTypes(events)).toEqual([
      'response.created',
      'response.output_item.added',
      'response.output_text.delta',
      'response.output_item.done',
      'response.output_item.added',
      'response.custom_tool_call_input.delta',
      'response.custom_tool_call_input.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.every((e) => e.event === e.data.type)).toBe(true);
    const input = 'const r = await tools.exec_command({cmd: "cat /ws/.agents/skills/mock-skill/SKILL.md"});\ntext(r);';
    const call = { type: 'custom_tool_call', id: 'ct_sim_7_1', call_id: 'call_sim_7_1', name: 'exec', input, status: 'completed' };
    expect(events.slice(-5, -1).map((e) => e.data)).toEqual([
      { type: 'response.output_item.added', output_index: 1, item: { ...call, status: 'in_progress', input: '' } },
      { type: 'response.custom_tool_call_input.delta', item_id: 'ct_sim_7_1', output_index: 1, delta: input },
      { type: 'response.custom_tool_call_input.done', item_id: 'ct_sim_7_1', output_index: 1, input },
      { type: 'response.output_item.done', output_index: 1, item: call },
    ]);
    const completed = events.at(-1)!.data.response as { output: Json[]; usage: Json };
    expect(completed.output[1]).toEqual(call);
    expect(completed.usage.output_tokens).toBe(Math.ceil((intro + input).length / 4));
  });

  it.each([
    ['read', { type: 'read', name: 'mock-skill' }, `sed -n '1,400p' /ws/.agents/skills/mock-skill/SKILL.md`],
    ["a user's file", { type: 'read_file', path: 'docs/report.csv' }, `sed -n '1,400p' docs/report.csv`],
    ['search', { type: 'search', pattern: '**/*step2*' }, `find . -path './**/*step2*'`],
    ['skill not in the listing', { type: 'skill', name: 'gone' }, 'cat .agents/skills/gone/SKILL.md'],
  ] as const)('Codex: %s is a shell command, run through whichever tool was offered', (_, block, cmd) => {
    expect(codexItems(CLASSIC_TOOLS, [block])).toEqual([
      expect.objectContaining({ type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd }) }),
    ]);
    expect(codexItems(LITE_TOOLS, [block])).toEqual([
      expect.objectContaining({ type: 'custom_tool_call', name: 'exec', input: execScript(cmd) }),
    ]);
  });

  it.each([
    ['exec_command only', ['exec_command'], 'function_call'],
    ['exec only', ['exec', 'wait'], 'custom_tool_call'],
    ['both', ['exec', 'exec_command'], 'function_call'],
    ['neither', [], 'function_call'],
  ] as const)('Codex: offered %s, the shell call is a %s', (_, tools, type) => {
    expect(codexItems(tools, [{ type: 'search', pattern: 'p' }])[0]!.type).toBe(type);
  });

  const LISTING_WITH_SPACES = `<skills_instructions>\n### Available skills\n- mock-skill: x (file: /my ws/it's/SKILL.md)\n</skills_instructions>`;
  it.each([
    {
      via: 'exec_command',
      tools: CLASSIC_TOOLS,
      offer: { tools: [{ type: 'function', name: 'exec_command' }] },
      offerItems: [],
      written: (cmd: string) => ({ arguments: JSON.stringify({ cmd }) }),
      result: (item: Json) => ({
        type: 'function_call_output',
        call_id: item.call_id,
        output: 'Process exited with code 0\nOutput:\nbody',
      }),
    },
    {
      via: 'an exec script',
      tools: LITE_TOOLS,
      offer: {},
      offerItems: [
        {
          type: 'additional_tools',
          role: 'developer',
          tools: [{ type: 'namespace', name: 'functions', tools: [{ type: 'custom', name: 'exec' }] }],
        },
      ],
      written: (cmd: string) => ({ input: execScript(cmd) }),
      result: (item: Json) => scriptOutput(item.call_id, 0, 'body'),
    },
  ])(
    'Codex through $via: a path with spaces is quoted, and the view reads the call back',
    ({ tools, offer, offerItems, written, result }) => {
      const item = codexItems(tools, [{ type: 'skill', name: 'mock-skill' }], new Map([['mock-skill', "/my ws/it's/SKILL.md"]]))[0]!;
      expect(item).toMatchObject(written(`cat '/my ws/it'\\''s/SKILL.md'`));
      const body = {
        ...offer,
        input: [
          ...offerItems,
          { type: 'message', role: 'developer', content: [{ type: 'input_text', text: LISTING_WITH_SPACES }] },
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go' }] },
          item,
          result(item),
        ],
      };
      expect(viewRequest('openai-responses', body)).toMatchObject({
        canInvokeSkill: true,
        turn: 1,
        lastResults: [{ action: 'skill', skill: 'mock-skill', isError: false, text: 'body' }],
      });
    },
  );

  it('Gemini: data-only JSON chunks like the reference stand-in’s; the last says STOP and carries the usage', () => {
    const chunks = parseSse(DIALECTS.gemini.stream(skillReply));
    expect(chunks.every((c) => c.event === undefined)).toBe(true);
    const sample = parseSse(fixture('mock-gemini-sse-functioncall.txt'));
    expect(Object.keys(chunks.at(-1)!.data).sort()).toEqual(Object.keys(sample.at(-1)!.data).sort());
    const candidates = chunks.map((c) => (c.data.candidates as Json[])[0]!);
    expect(candidates.slice(0, -1).every((c) => c.finishReason === undefined)).toBe(true);
    expect(candidates.at(-1)!.finishReason).toBe('STOP');
    const parts = candidates.flatMap((c) => (c.content as { parts: Json[] }).parts);
    expect(
      parts
        .filter((p) => 'text' in p)
        .map((p) => p.text)
        .join(''),
    ).toBe(intro);
    expect(parts.at(-1)).toEqual({ functionCall: { name: 'activate_skill', args: { name: 'mock-skill' } } });
    const usage = chunks.at(-1)!.data.usageMetadata as { candidatesTokenCount: number };
    expect(usage).toEqual({
      promptTokenCount: 100,
      candidatesTokenCount: expect.any(Number),
      totalTokenCount: 100 + usage.candidatesTokenCount,
    });
  });

  it.each([
    ['read', { type: 'read', name: 'mock-skill' }, { name: 'read_file', args: { file_path: '/ws/.agents/skills/mock-skill/SKILL.md' } }],
    ["a user's file", { type: 'read_file', path: 'docs/report.csv' }, { name: 'read_file', args: { file_path: 'docs/report.csv' } }],
    ['search', { type: 'search', pattern: '**/*step0*' }, { name: 'glob', args: { pattern: '**/*step0*' } }],
  ] as const)('Gemini: %s is a function call', (_, block, functionCall) => {
    const body = DIALECTS.gemini.json(reply([block])) as { candidates: { content: { parts: Json[] }; finishReason: string }[] };
    expect(body.candidates[0]).toMatchObject({ content: { role: 'model', parts: [{ functionCall }] }, finishReason: 'STOP' });
  });

  it('Anthropic: skill, read and search are Claude Code’s own tools', () => {
    const content = (
      DIALECTS.anthropic.json(
        reply([
          { type: 'skill', name: 'a', args: 'x' },
          { type: 'read', name: 'a' },
          { type: 'search', pattern: 'p' },
        ]),
      ) as { content: Json[] }
    ).content;
    expect(content.map((c) => [c.name, c.input])).toEqual([
      ['Skill', { skill: 'a', args: 'x' }],
      ['Read', { file_path: '.claude/skills/a/SKILL.md' }],
      ['Glob', { pattern: 'p' }],
    ]);
  });

  it.each([
    ['anthropic', 429, { type: 'error', error: { type: 'rate_limit_error', message: 'm' } }],
    ['openai-responses', 429, { error: { message: 'm', type: 'requests', param: null, code: 'rate_limit_exceeded' } }],
    ['openai-responses', 500, { error: { message: 'm', type: 'server_error', param: null, code: null } }],
    ['gemini', 429, { error: { code: 429, message: 'm', status: 'RESOURCE_EXHAUSTED' } }],
    ['gemini', 500, { error: { code: 500, message: 'm', status: 'INTERNAL' } }],
    ['gemini', 503, { error: { code: 503, message: 'm', status: 'UNAVAILABLE' } }],
    ['gemini', 418, { error: { code: 418, message: 'm', status: 'FAILED_PRECONDITION' } }],
  ] as const)('%s error body for HTTP %i', (wire, status, body) => {
    expect(DIALECTS[wire].errorBody(status, 'm')).toEqual(body);
  });

  it('a stalled stream has sent its start and one piece of text, never an end', () => {
    const codex = parseSse(DIALECTS['openai-responses'].stalledStart(reply([]), 'Let me think about'));
    expect(codex.map((e) => e.event)).toEqual(['response.created', 'response.output_item.added', 'response.output_text.delta']);
    const gemini = parseSse(DIALECTS.gemini.stalledStart(reply([]), 'Let me think about'));
    expect(gemini).toEqual([
      {
        data: expect.objectContaining({ candidates: [{ content: { role: 'model', parts: [{ text: 'Let me think about' }] }, index: 0 }] }),
      },
    ]);
  });
});

describe('routing and trial identity', () => {
  it.each([
    ['/v1/messages', 'anthropic'],
    ['/v1/responses', 'openai-responses'],
    ['/v1beta/models/gemini-2.5-flash:streamGenerateContent', 'gemini'],
    ['/v1beta/models/gemini-2.5-flash:generateContent', 'gemini'],
    ['/v1beta/models/gemini-2.5-flash:countTokens', undefined],
    ['/', undefined],
  ])('%s → %s', (path, wire) => {
    expect(dialectFor(path)?.wire).toBe(wire);
  });

  it('a trial base URL carries the key and case, and splits back', () => {
    const base = simulatorBaseUrl('http://127.0.0.1:9/', 'case a/skill/1', 'case a');
    expect(base).toBe('http://127.0.0.1:9/t/case%20a%2Fskill%2F1/case%20a');
    expect(splitTrialPrefix(`${new URL(base).pathname}/v1/responses`)).toEqual({
      path: '/v1/responses',
      trial: 'case a/skill/1',
      caseId: 'case a',
    });
  });

  it('an empty case survives a client that collapses `//`', () => {
    const base = simulatorBaseUrl('http://h', 'listing/skill', '');
    expect(splitTrialPrefix(`${new URL(base).pathname}/v1beta/models/m:generateContent`)).toEqual({
      path: '/v1beta/models/m:generateContent',
      trial: 'listing/skill',
      caseId: undefined,
    });
  });

  it('paths without the prefix pass unchanged', () => {
    expect(splitTrialPrefix('/v1/messages')).toEqual({ path: '/v1/messages' });
    expect(splitTrialPrefix('/t/k/c')).toEqual({ path: '/', trial: 'k', caseId: 'c' });
  });
});

describe('simulator over HTTP, every wire', () => {
  let sim: RunningSimulator;
  const profile = parseProfile({
    seed: 4,
    rules: [
      { case: 'fires', do: [{ skill: 'mock-skill', args: '--fast' }] },
      { case: 'limited', do: [{ http: 429, retryAfter: 3 }] },
      { case: 'down', do: [{ http: 503 }] },
      { case: 'stalls', do: [{ stall: true }] },
      {
        case: 'coin',
        do: [
          { p: 1, skill: 'mock-skill' },
          { p: 1, answer: 'no' },
        ],
      },
    ],
  });
  beforeAll(async () => {
    sim = await startSimulator(profile, { record: true });
  });
  afterAll(() => sim.stop());

  const CODEX_PATH = '/v1/responses';
  const GEMINI_PATH = '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse';
  const post = (url: string, body: unknown, init: RequestInit = {}) => fetch(url, { method: 'POST', body: JSON.stringify(body), ...init });
  const codexAt = (key: string, caseId: string, body: unknown = codex169.first, init?: RequestInit) =>
    post(`${simulatorBaseUrl(sim.url, key, caseId)}${CODEX_PATH}`, body, init);
  const geminiAt = (key: string, caseId: string, body: unknown = gemini061.first, init?: RequestInit) =>
    post(`${simulatorBaseUrl(sim.url, key, caseId)}${GEMINI_PATH}`, body, init);

  it('Codex: a skill call streams as a shell print of the listed SKILL.md', async () => {
    const r = await codexAt('fires/skill/1', 'fires');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/event-stream');
    const events = parseSse(await r.text());
    const call = events.find((e) => e.event === 'response.output_item.done' && (e.data.item as Json).type === 'function_call')!.data
      .item as Json;
    expect(JSON.parse(String(call.arguments))).toEqual({ cmd: 'cat /trial/ws/.agents/skills/mock-skill/SKILL.md' });
    expect(events.at(-1)!.event).toBe('response.completed');
  });

  it('Codex lite: a skill call streams as an exec script; the result Codex reports for it leads to the plan', async () => {
    const outputOf = async (body: unknown) =>
      (parseSse(await (await codexAt('lite/skill/1', 'fires', body)).text()).at(-1)!.data.response as { output: Json[] }).output;
    const output = await outputOf(codexLite.first);
    expect(output).toEqual([
      expect.objectContaining({ type: 'message' }),
      expect.objectContaining({
        type: 'custom_tool_call',
        name: 'exec',
        input: 'const r = await tools.exec_command({cmd: "cat /trial/ws/.agents/skills/mock-skill/SKILL.md"});\ntext(r);',
      }),
    ]);
    const next = { ...codexLite.first, input: [...codexLite.first.input, ...output, scriptOutput(output[1]!.call_id, 0, MOCK_MD)] };
    expect(await outputOf(next)).toEqual([
      expect.objectContaining({
        type: 'message',
        content: [expect.objectContaining({ text: expect.stringContaining('```bash\nmock run --fast\n```') })],
      }),
    ]);
  });

  it('Gemini: a skill call streams as activate_skill; generateContent answers one JSON object', async () => {
    const chunks = parseSse(await (await geminiAt('fires/skill/1', 'fires')).text());
    expect(chunks.at(-1)!.data).toMatchObject({
      candidates: [
        { content: { parts: [{ functionCall: { name: 'activate_skill', args: { name: 'mock-skill' } } }] }, finishReason: 'STOP' },
      ],
      modelVersion: 'gemini-2.5-flash',
    });
    const r = await post(
      `${simulatorBaseUrl(sim.url, 'fires/skill/1', 'fires')}/v1beta/models/gemini-2.5-flash:generateContent`,
      gemini061.first,
    );
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(
      ((await r.json()) as { candidates: { content: { parts: Json[] } }[] }).candidates[0]!.content.parts.map((p) => Object.keys(p)[0]),
    ).toEqual(['text', 'functionCall']);
  });

  it.each([
    ['Codex', 'limited', 429, '3', { error: { type: 'requests', code: 'rate_limit_exceeded' } }],
    ['Codex', 'down', 503, null, { error: { type: 'server_error' } }],
    ['Gemini', 'limited', 429, '3', { error: { code: 429, status: 'RESOURCE_EXHAUSTED' } }],
    ['Gemini', 'down', 503, null, { error: { code: 503, status: 'UNAVAILABLE' } }],
  ] as const)('%s: the profile’s %s error with its status, body and retry-after', async (cli, caseId, status, retryAfter, body) => {
    const r = cli === 'Codex' ? await codexAt('k', caseId) : await geminiAt('k', caseId);
    expect(r.status).toBe(status);
    expect(r.headers.get('retry-after')).toBe(retryAfter);
    expect(await r.json()).toMatchObject(body);
  });

  it.each(['Codex', 'Gemini'])('%s: a stall sends headers and a first piece, then silence', async (cli) => {
    const abort = new AbortController();
    const r =
      cli === 'Codex'
        ? await codexAt('k', 'stalls', codex169.first, { signal: abort.signal })
        : await geminiAt('k', 'stalls', gemini061.first, { signal: abort.signal });
    expect(r.status).toBe(200);
    const reader = r.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('Let me think about');
    const next = await Promise.race([
      reader.read().then(() => 'data'),
      new Promise((resolve) => setTimeout(() => resolve('silence'), 300)),
    ]);
    expect(next).toBe('silence');
    abort.abort();
  });

  it.each(['Codex', 'Gemini'])(
    '%s: the /t/ prefix is the trial identity: same key, same draw; the keys spread over both behaviours',
    async (cli) => {
      const draw = async (key: string) => {
        const text = await (cli === 'Codex' ? codexAt(key, 'coin') : geminiAt(key, 'coin')).then((r) => r.text());
        return /exec_command|activate_skill/.test(text) ? 'skill' : 'answer';
      };
      const keys = Array.from({ length: 16 }, (_, i) => `coin/skill/${i + 1}`);
      const first = await Promise.all(keys.map(draw));
      expect(await Promise.all(keys.map(draw))).toEqual(first);
      expect(new Set(first)).toEqual(new Set(['skill', 'answer']));
    },
  );

  it('Codex without a trial key: its session-id keeps one conversation on one draw', async () => {
    const draws = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const r = await post(`${sim.url}${CODEX_PATH}`, codex169.first, { headers: { 'session-id': 'sess-1', 'x-skillprobe-case': 'coin' } });
      draws.add((await r.text()).includes('exec_command') ? 'skill' : 'answer');
    }
    expect(draws.size).toBe(1);
  });

  it('records what each CLI sent, with its wire, path and identity', async () => {
    const before = sim.received.length;
    await codexAt('rec/skill/1', 'fires');
    await geminiAt('rec/skill/1', 'fires');
    await post(
      `${sim.url}/v1/messages`,
      { messages: [] },
      { headers: { 'x-skillprobe-trial': 'rec/skill/2', 'x-skillprobe-case': 'fires' } },
    );
    expect(sim.received.slice(before)).toEqual([
      { wire: 'openai-responses', path: '/v1/responses', trial: 'rec/skill/1', caseId: 'fires', body: codex169.first },
      {
        wire: 'gemini',
        path: '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
        trial: 'rec/skill/1',
        caseId: 'fires',
        body: gemini061.first,
      },
      { wire: 'anthropic', path: '/v1/messages', trial: 'rec/skill/2', caseId: 'fires', body: { messages: [] } },
    ]);
    expect(viewRequest('gemini', sim.received.at(-2)!.body).offeredSkills).toEqual(['other-skill', 'mock-skill']);
  });

  it('unreadable bodies get 400 in the wire’s own error shape; other paths a plain 200', async () => {
    const codex = await fetch(`${sim.url}${CODEX_PATH}`, { method: 'POST', body: '{' });
    expect(codex.status).toBe(400);
    expect(await codex.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
    const gemini = await fetch(`${sim.url}${GEMINI_PATH}`, { method: 'POST', body: '{' });
    expect(await gemini.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
    const probe = await fetch(`${simulatorBaseUrl(sim.url, 'k', 'c')}/v1/models`);
    expect(probe.status).toBe(200);
    expect(await probe.json()).toMatchObject({ simulator: 'skillprobe' });
  });

  it('counts requests, messages, errors and stalls across wires', () => {
    expect(sim.stats.messages).toBeGreaterThan(0);
    expect(sim.stats.errors).toBeGreaterThanOrEqual(4);
    expect(sim.stats.stalls).toBe(2);
    expect(sim.stats.requests).toBeGreaterThanOrEqual(sim.stats.messages + sim.stats.errors + sim.stats.stalls);
  });

  it('keeps nothing when not recording', async () => {
    const quiet = await startSimulator(profile);
    await post(`${quiet.url}${CODEX_PATH}`, codex169.first);
    expect(quiet.received).toEqual([]);
    expect(quiet.stats.messages).toBe(1);
    await quiet.stop();
  });
});

describe('Claude Code’s wire is unchanged', () => {
  /**
   * What the simulator answered before it spoke other dialects, for the same request; but the usage, now with the prompt
   * cache: the first request writes its tools and messages (70 of its 79 tokens), the next two, the same request, read them.
   */
  const BEFORE = [
    [
      'fires',
      `{"id":"msg_sim_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"I'll use the atl-jira skill for this."},{"type":"tool_use","id":"toolu_sim_1_1","name":"Skill","input":{"skill":"atl-jira","args":"create-issue --project OPS"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":24,"cache_creation_input_tokens":70,"cache_read_input_tokens":0}}`,
    ],
    [
      'reads',
      `{"id":"msg_sim_2","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"Let me read the atl-jira instructions first."},{"type":"tool_use","id":"toolu_sim_2_1","name":"Read","input":{"file_path":".claude/skills/atl-jira/SKILL.md"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":23,"cache_creation_input_tokens":0,"cache_read_input_tokens":70}}`,
    ],
    [
      'loops',
      `{"id":"msg_sim_3","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"Searching, step 1."},{"type":"tool_use","id":"toolu_sim_3_1","name":"Glob","input":{"pattern":"**/*step0*"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":11,"cache_creation_input_tokens":0,"cache_read_input_tokens":70}}`,
    ],
  ];

  it('byte for byte, for a skill call, a read and a search', async () => {
    const sim = await startSimulator(
      parseProfile({
        seed: 1,
        rules: [
          { case: 'fires', do: [{ skill: 'atl-jira', args: 'create-issue --project OPS' }] },
          { case: 'reads', do: [{ read: 'atl-jira' }] },
          { case: 'loops', do: [{ loop: true }] },
        ],
      }),
    );
    const listing =
      '<system-reminder>\nThe following skills are available for use with the Skill tool:\n\n- atl: Router.\n- atl-jira: Jira.\n</system-reminder>';
    const req = {
      model: 'm',
      tools: [{ name: 'Read' }, { name: 'Skill' }, { name: 'Glob' }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: listing },
            { type: 'text', text: 'file a bug' },
          ],
        },
      ],
    };
    try {
      for (const [caseId, before] of BEFORE) {
        const r = await fetch(`${sim.url}/v1/messages`, {
          method: 'POST',
          headers: { 'x-skillprobe-case': caseId!, 'x-skillprobe-trial': 'k' },
          body: JSON.stringify(req),
        });
        expect(await r.text()).toBe(before);
      }
    } finally {
      await sim.stop();
    }
  });
});

describe('the prompt cache', () => {
  /** A conversation's first request and its second (after the model's call and the tool's answer), per wire. */
  const tools = Array.from({ length: 40 }, (_, i) => ({ name: `tool_${i}`, description: 'a tool the CLI offers on every request' }));
  const CONVERSATIONS: [Wire, string, (turn: 1 | 2, prompt: string) => Json][] = [
    [
      'anthropic',
      '/v1/messages',
      (turn, prompt) => ({
        model: 'm',
        tools,
        system: [{ type: 'text', text: 'You are a CLI.', cache_control: { type: 'ephemeral' } }],
        messages: [
          { role: 'user', content: [{ type: 'text', text: prompt, ...(turn === 1 ? { cache_control: { type: 'ephemeral' } } : {}) }] },
          ...(turn === 2
            ? [
                { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Glob', input: { pattern: '*' } }] },
                {
                  role: 'user',
                  content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a.txt', cache_control: { type: 'ephemeral' } }],
                },
              ]
            : []),
        ],
      }),
    ],
    [
      'openai-responses',
      '/v1/responses',
      (turn, prompt) => ({
        model: 'm',
        instructions: 'You are a CLI.',
        tools,
        input: [
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] },
          ...(turn === 2
            ? [
                { type: 'function_call', call_id: 'c1', name: 'exec_command', arguments: '{"cmd":"ls"}' },
                { type: 'function_call_output', call_id: 'c1', output: 'a.txt' },
              ]
            : []),
        ],
      }),
    ],
    [
      'gemini',
      '/v1beta/models/m:generateContent',
      (turn, prompt) => ({
        systemInstruction: { parts: [{ text: 'You are a CLI.' }] },
        tools: [{ functionDeclarations: tools }],
        contents: [
          { role: 'user', parts: [{ text: prompt }] },
          ...(turn === 2
            ? [
                { role: 'model', parts: [{ functionCall: { name: 'glob', args: { pattern: '*' } } }] },
                { role: 'user', parts: [{ functionResponse: { name: 'glob', response: { output: 'a.txt' } } }] },
              ]
            : []),
        ],
      }),
    ],
  ];

  /** What a reply says it used, in one shape: all input, cached input, input written to the cache. */
  function usageOf(wire: Wire, body: Json): { input: number; cached: number; written?: number } {
    if (wire === 'anthropic') {
      const u = body.usage as Record<string, number>;
      const [input, read, write] = [u.input_tokens!, u.cache_read_input_tokens!, u.cache_creation_input_tokens!];
      return { input: input + read + write, cached: read, written: write };
    }
    if (wire === 'openai-responses') {
      const u = body.usage as { input_tokens: number; input_tokens_details: { cached_tokens: number } };
      return { input: u.input_tokens, cached: u.input_tokens_details.cached_tokens };
    }
    const u = body.usageMetadata as { promptTokenCount: number; cachedContentTokenCount?: number };
    return { input: u.promptTokenCount, cached: u.cachedContentTokenCount ?? 0 };
  }

  it.each(CONVERSATIONS)(
    '%s: the first request writes the shared prefix; later ones, and the next trial, read it',
    async (wire, path, request) => {
      const sim = await startSimulator(parseProfile({ seed: 1, rules: [{ case: 'x', do: [{ loop: true }] }] }));
      const send = async (turn: 1 | 2, prompt: string, key = 'key-1') => {
        const r = await fetch(`${sim.url}${path}`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'x-goog-api-key': key, authorization: `Bearer ${key}` },
          body: JSON.stringify(request(turn, prompt)),
        });
        return usageOf(wire, (await r.json()) as Json);
      };
      try {
        const first = await send(1, 'file a bug');
        expect(first.cached).toBe(0);
        if (wire === 'anthropic') expect(first.written).toBeGreaterThan(0);
        const second = await send(2, 'file a bug');
        // Tools, system prompt and the prompt: all but the tool's answer, which is new.
        expect(second.cached).toBeGreaterThan(first.cached);
        expect(second.cached).toBeGreaterThanOrEqual(Math.ceil(JSON.stringify(tools).length / 4));
        expect(second.cached).toBeLessThan(second.input);
        if (wire === 'anthropic') expect(second.written).toBeGreaterThan(0);
        // The next trial of the case: the same prefix, read from its first request on.
        const again = await send(1, 'file a bug');
        expect(again.cached).toBeGreaterThan(0);
        expect(again.cached).toBeLessThan(again.input);
        if (wire === 'anthropic') expect(again.written).toBe(0);
        // Another credential has a cache of its own.
        expect((await send(1, 'file a bug', 'key-2')).cached).toBe(0);
      } finally {
        await sim.stop();
      }
    },
  );

  it('keeps a bounded number of prefixes, the oldest going first', async () => {
    const { PromptCache } = await import('../src/sim/prompt-cache.js');
    const cache = new PromptCache(2);
    expect(cache.use('k', ['a', 'b'], 100)).toEqual({ cached: 0, written: 2 });
    expect(cache.use('k', ['a', 'b'], 100)).toEqual({ cached: 2, written: 0 });
    cache.use('k', ['c'], 100);
    cache.use('k', ['d'], 100);
    expect(cache.use('k', ['a'], 100).cached).toBe(0);
  });
});
