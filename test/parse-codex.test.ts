import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codex } from '../src/agents/codex/adapter.js';
import { membersRead, parseCodexStream, skillFoldersNamed } from '../src/agents/codex/parse.js';
import { listedSkills, SESSION_SOURCE, shownInSession } from '../src/agents/codex/session.js';
import { withNonce } from '../src/agents/codex/nonce.js';
import { gradeTrial } from '../src/grade/outcome.js';
import { trialStatus } from '../src/grade/status.js';
import type { GradableCase, ShownEvidence, TrialEvidence, TrialMeta } from '../src/run/schema.js';
import type { SkillLoadEvent, ToolCallEvent, Transcript } from '../src/transcript/types.js';
import { DECISION, defaultGrading } from './run-fixtures.js';

const MOCK_FAMILY = [{ dir: 'mock-skill', name: 'mock-skill' }];

const FIXTURES = join(import.meta.dirname, 'fixtures', 'codex-gemini');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

const SHOWN: ShownEvidence = {
  source: SESSION_SOURCE,
  skills: ['mock-skill'],
  contextFiles: [],
  sandbox: 'read-only',
  cwd: '/ws',
  model: 'm',
  cliVersion: '0.169.0',
};
const EVIDENCE: TrialEvidence = { skillNonces: { 'mock-skill': '7f3a9c' }, shown: SHOWN };
const meta = (over: Partial<TrialMeta> = {}): TrialMeta => ({
  exitCode: 0,
  signal: null,
  wallMs: 400,
  timedOut: false,
  interrupted: false,
  stderrTail: '',
  attempt: 1,
  startedAt: '2026-12-01T00:00:00.000Z',
  evidence: EVIDENCE,
  ...over,
});
const parse = (raw: string, m: TrialMeta = meta()) => parseCodexStream(raw, m);
const status = (t: Transcript, m: TrialMeta, family = ['mock-skill']) =>
  trialStatus(t, m, { arm: 'skill', family, isolationProblem: codex.grading.isolationProblem }).status;

/** One JSONL line per event, as Codex prints them. */
const stream = (...events: object[]) => events.map((e) => JSON.stringify(e)).join('\n') + '\n';
const command = (id: string, cmd: string, output: string, exitCode = 0) => [
  {
    type: 'item.started',
    item: { id, type: 'command_execution', command: cmd, aggregated_output: '', exit_code: null, status: 'in_progress' },
  },
  {
    type: 'item.completed',
    item: {
      id,
      type: 'command_execution',
      command: cmd,
      aggregated_output: output,
      exit_code: exitCode,
      status: exitCode === 0 ? 'completed' : 'failed',
    },
  },
];
const START = [{ type: 'thread.started', thread_id: 't' }, { type: 'turn.started' }];
const DONE = { type: 'turn.completed', usage: { input_tokens: 10, output_tokens: 2 } };

/** The samples of errors, split into their cases (`### name  (rc=N)` then the lines). */
function errorCases(): { name: string; rc: number; raw: string }[] {
  return fixture('codex-events-errors.txt')
    .split(/^### /m)
    .filter((b) => b.trim())
    .map((block) => {
      const [head, ...lines] = block.split('\n');
      const m = /^(\S+)\s+\(rc=(\d+)\)/.exec(head!)!;
      return { name: m[1]!, rc: Number(m[2]), raw: lines.filter((l) => l.startsWith('{')).join('\n') };
    });
}

describe('the Codex stream parser', () => {
  it('a read of SKILL.md whose output shows the planted secret is the skill call, loaded, with its folder', () => {
    const t = parse(fixture('codex-events-skill.jsonl'));
    const call = t.events.find((e): e is ToolCallEvent => e.kind === 'tool_call')!;
    expect(call).toMatchObject({ name: 'exec_command', intent: 'skill', skill: 'mock-skill', source: 'assistant' });
    const load = t.events.find((e): e is SkillLoadEvent => e.kind === 'skill_load')!;
    expect(load).toMatchObject({ callId: call.id, name: 'mock-skill', status: 'loaded', path: '/ws/.agents/skills/mock-skill' });
    expect(t.events.filter((e) => e.kind === 'text').map((e) => (e.kind === 'text' ? e.text : ''))).toEqual([
      'Using the mock-skill skill.',
      expect.stringContaining('MOCK_FINAL'),
    ]);
    expect(t.events.at(-1)).toMatchObject({ kind: 'result', status: 'success' });
    expect(status(t, meta())).toBe('ok');
  });

  it('the turn’s usage is the result’s: all input, its cached part, cache writes, output (recorded: nothing cached)', () => {
    const t = parse(fixture('codex-events-skill.jsonl'));
    expect(t.events.at(-1)).toMatchObject({
      kind: 'result',
      usage: { inputTokens: 2468, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 112 },
    });
  });

  it('usage adds up over turns, each result carrying the sum so far; a failed turn reports none of its own', () => {
    const turn = (input: number, cached: number, output: number) => ({
      type: 'turn.completed',
      usage: { input_tokens: input, cached_input_tokens: cached, output_tokens: output, reasoning_output_tokens: 0 },
    });
    const t = parse(
      stream(
        ...START,
        turn(5000, 0, 100),
        { type: 'turn.started' },
        turn(5200, 4800, 50),
        { type: 'turn.started' },
        {
          type: 'turn.failed',
          error: { message: 'unexpected status 500' },
        },
      ),
    );
    const results = t.events.filter((e) => e.kind === 'result');
    expect(results.map((r) => (r.kind === 'result' ? r.usage : undefined))).toEqual([
      { inputTokens: 5000, cachedInputTokens: 0, outputTokens: 100 },
      { inputTokens: 10200, cachedInputTokens: 4800, outputTokens: 150 },
      { inputTokens: 10200, cachedInputTokens: 4800, outputTokens: 150 },
    ]);
    expect(parse(stream(...START, { type: 'turn.completed' })).events.at(-1)).not.toHaveProperty('usage');
  });

  it('without the secret in the output, the same read is no skill call (the path alone proves nothing)', () => {
    const t = parse(
      fixture('codex-events-skill.jsonl'),
      meta({ evidence: { ...EVIDENCE, skillNonces: { 'mock-skill': 'not-in-output' } } }),
    );
    expect(t.events.filter((e) => e.kind === 'tool_call').map((e) => (e.kind === 'tool_call' ? e.intent : ''))).toEqual(['other']);
    expect(t.events.some((e) => e.kind === 'skill_load')).toBe(false);
  });

  it.each([
    ['lists the folder', 'ls -la .agents/skills/mock-skill', 'SKILL.md\n', 0],
    [
      'names the path in an echo',
      "echo 'I will read .agents/skills/mock-skill/SKILL.md'",
      'I will read .agents/skills/mock-skill/SKILL.md\n',
      0,
    ],
    ['counts its lines', 'wc -l .agents/skills/mock-skill/SKILL.md', '7 .agents/skills/mock-skill/SKILL.md\n', 0],
  ])('a command that %s is not a skill call', (_, cmd, output, rc) => {
    const t = parse(stream(...START, ...command('i1', cmd, output, rc), DONE));
    expect(t.events.find((e) => e.kind === 'tool_call')).toMatchObject({ intent: 'other' });
    expect(t.events.some((e) => e.kind === 'skill_load')).toBe(false);
  });

  it('one command reading two SKILL.md files is two skill calls, in the order the output shows them', () => {
    const nonces = { alpha: 'aaaa1111', beta: 'bbbb2222' };
    const out = '---\nname: beta\n---\n<!-- bbbb2222 -->\n---\nname: alpha\n---\n<!-- aaaa1111 -->\n';
    const t = parse(
      stream(...START, ...command('i1', 'cat /w/.agents/skills/beta/SKILL.md /w/.agents/skills/alpha/SKILL.md', out), DONE),
      meta({ evidence: { skillNonces: nonces, shown: SHOWN } }),
    );
    const calls = t.events.filter((e): e is ToolCallEvent => e.kind === 'tool_call');
    expect(calls.map((c) => [c.id, c.skill])).toEqual([
      ['i1', 'beta'],
      ['i1/alpha', 'alpha'],
    ]);
    expect(t.events.filter((e): e is SkillLoadEvent => e.kind === 'skill_load').map((l) => l.path)).toEqual([
      '/w/.agents/skills/beta',
      '/w/.agents/skills/alpha',
    ]);
  });

  it('a failed read of a SKILL.md outside the family is a call to an unknown skill', () => {
    const t = parse(
      stream(
        ...START,
        ...command(
          'i1',
          "/bin/bash -lc 'cat .agents/skills/ghost/SKILL.md'",
          'cat: .agents/skills/ghost/SKILL.md: No such file or directory\n',
          1,
        ),
        DONE,
      ),
    );
    expect(t.events.find((e) => e.kind === 'tool_call')).toMatchObject({ intent: 'skill', skill: 'ghost' });
    expect(t.events.find((e) => e.kind === 'skill_load')).toMatchObject({ name: 'ghost', status: 'unknown' });
  });

  it('a failed read of a family member is still the model choosing it: a skill call it could not open (denied)', () => {
    const t = parse(
      stream(
        ...START,
        ...command('i1', 'cat skills/mock-skill/SKILL.md', 'cat: skills/mock-skill/SKILL.md: No such file or directory\n', 1),
        DONE,
      ),
    );
    expect(t.events.find((e) => e.kind === 'tool_call')).toMatchObject({ intent: 'skill', skill: 'mock-skill' });
    expect(t.events.find((e) => e.kind === 'skill_load')).toMatchObject({ name: 'mock-skill', status: 'denied' });
  });

  it('a blocked network command and a write the sandbox stopped (no item at all) are plain', () => {
    const net = parse(fixture('codex-events-net-blocked.jsonl'));
    expect(net.events.find((e) => e.kind === 'tool_result')).toMatchObject({ isError: true });
    expect(status(net, meta())).toBe('ok');
    const write = parse(fixture('codex-events-write-blocked-NO-ITEM.jsonl'));
    expect(write.events.some((e) => e.kind === 'tool_call')).toBe(false);
    expect(status(write, meta())).toBe('ok');
  });

  it('a command started but never finished (the process was stopped) still counts as the model acting', () => {
    const [started] = command('i9', 'sleep 100', '');
    const t = parse(stream(...START, started!));
    expect(t.events.find((e) => e.kind === 'tool_call')).toMatchObject({ id: 'i9', intent: 'other' });
    expect(status(t, meta({ exitCode: null, signal: 'SIGTERM', turnLimitHit: true }))).toBe('max_turns');
  });

  it('keeps going past bad lines, and says which', () => {
    const t = parse(`${JSON.stringify(START[0])}\nnot json\n[1]\n{"type":"turn.comp`);
    expect(t.warnings).toEqual([
      { line: 2, message: 'line is not valid JSON' },
      { line: 3, message: 'line is JSON but not an object' },
      { line: 4, message: 'truncated final line (process ended mid-write)' },
    ]);
  });

  it('a non-fatal notice (unknown model metadata) is neither an error nor a result', () => {
    const t = parse(
      stream(
        START[0]!,
        { type: 'item.completed', item: { id: 'item_0', type: 'error', message: 'Model metadata for `m` not found.' } },
        START[1]!,
        DONE,
      ),
    );
    expect(t.events.filter((e) => e.kind === 'error')).toEqual([]);
    expect(status(t, meta())).toBe('ok');
  });

  const EXPECTED: Record<string, string> = {
    'c8-e429': 'infra_error',
    'c8-e500': 'infra_error',
    'c8-e400': 'agent_error',
    'c8-e401': 'agent_error',
    'c8-midfail': 'infra_error',
    'c8-cut': 'infra_error',
    'c9-e429': 'infra_error',
    'c9-e500': 'infra_error',
    'c10-slow-': 'ok',
    'c10-slow-3000': 'ok',
    'c7-loop': 'timeout',
    'c10-hang-hang': 'infra_error',
  };
  it.each(errorCases().map((c) => [c.name, c] as const))('measured error case %s: the right trial status, never a miss', (name, c) => {
    const timedOut = c.rc === 124;
    const t = parse(c.raw, meta({ exitCode: timedOut ? null : c.rc, timedOut }));
    expect(status(t, meta({ exitCode: timedOut ? null : c.rc, timedOut }))).toBe(EXPECTED[name]);
  });

  it('the retry notices are not final; the last error is', () => {
    const t = parse(errorCases().find((c) => c.name === 'c9-e429')!.raw);
    const errors = t.events.filter((e) => e.kind === 'error');
    expect(errors.map((e) => (e.kind === 'error' ? e.retrying : undefined))).toEqual([true, true, true, true, true, false]);
    expect(errors.at(-1)).toMatchObject({ errorKind: 'rate_limit', httpStatus: 429 });
    expect(t.events.at(-1)).toMatchObject({ kind: 'result', status: 'api_error', httpStatus: 429 });
  });
});

describe('what the Codex session record shows', () => {
  const rollout = (...entries: object[]) => entries.map((e) => JSON.stringify(e)).join('\n');
  const developer = (text: string) => ({
    type: 'response_item',
    payload: { type: 'message', role: 'developer', content: [{ type: 'input_text', text }] },
  });
  const user = (text: string) => ({
    type: 'response_item',
    payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
  });

  it('reads the listed skills, the sandbox, the model, the cwd and any instruction file', () => {
    const text = fixture('codex-skills-block-with-catalog.txt');
    const shown = shownInSession(
      rollout(
        { type: 'session_meta', payload: { cwd: '/ws', cli_version: '0.169.0' } },
        developer('You are a coding agent.'),
        developer(text),
        user('<environment_context>\n  <cwd>/ws</cwd>\n</environment_context>'),
        user('# AGENTS.md instructions for /ws\n\n<INSTRUCTIONS>\nAnswer in French.\n</INSTRUCTIONS>'),
        { type: 'turn_context', payload: { model: 'sim', sandbox_policy: { type: 'read-only' } } },
        user('What is the phrase?'),
      ),
    );
    expect(shown).toEqual({
      source: SESSION_SOURCE,
      skills: ['mock-skill'],
      contextFiles: ['AGENTS.md (/ws)'],
      sandbox: 'read-only',
      model: 'sim',
      cwd: '/ws',
      cliVersion: '0.169.0',
    });
  });

  it('a prompt that merely has an instructions heading is not an instruction file', () => {
    const shown = shownInSession(
      rollout(user('# Deploy instructions for staging\n\nShip it.'), user('# AGENTS.md instructions for /ws\n\nno tag follows')),
    );
    expect(shown.contextFiles).toEqual([]);
  });

  it.each([
    ['the measured block with the usage section', 'codex-skills-block-with-catalog.txt', ['mock-skill']],
    ['the measured block without it', 'codex-skills-block-fallback-metadata.txt', ['mock-skill']],
  ])('lists the skill names of %s', (_, file, names) => {
    expect(listedSkills(fixture(file))).toEqual(names);
  });

  it('several skills, descriptions with colons, and nothing after the list', () => {
    const block =
      '### Available skills\n- atl-jira: Jira: issues. (file: r0/atl-jira/SKILL.md)\n- csv-report: CSV. (file: r0/csv-report/SKILL.md)\n### How to use skills\n- Discovery: x';
    expect(listedSkills(block)).toEqual(['atl-jira', 'csv-report']);
    expect(listedSkills('no listing here')).toEqual([]);
  });
});

describe('Codex isolation, from its session evidence', () => {
  const withShown = (shown: ShownEvidence | undefined) => parse(stream(START[0]!, DONE), meta({ evidence: shown ? { shown } : {} }));
  const problem = (shown: ShownEvidence | undefined, arm: 'skill' | 'ablation' = 'skill', family = ['mock-skill']) =>
    codex.grading.isolationProblem(withShown(shown), { arm, family });

  it.each<[string, ShownEvidence | undefined, 'skill' | 'ablation', string | undefined]>([
    ['the family, read-only, no instruction file', SHOWN, 'skill', undefined],
    ['nothing listed in the ablation arm', { ...SHOWN, skills: [] }, 'ablation', undefined],
    ['no session record', undefined, 'skill', 'no Codex session record'],
    [
      'a skill from outside the family',
      { ...SHOWN, skills: ['mock-skill', 'user-level'] },
      'skill',
      'outside the family reached the model: user-level',
    ],
    ['a member missing in the skill arm', { ...SHOWN, skills: [] }, 'skill', 'mock-skill not loaded'],
    ['a member in the ablation arm', SHOWN, 'ablation', 'ablation arm: mock-skill'],
    ['an AGENTS.md in context', { ...SHOWN, contextFiles: ['AGENTS.md (/x)'] }, 'skill', 'instruction files reached the model: AGENTS.md'],
    ['a writable sandbox', { ...SHOWN, sandbox: 'workspace-write' }, 'skill', 'workspace-write'],
  ])('%s', (_, shown, arm, expected) => {
    const p = problem(shown, arm);
    if (expected === undefined) expect(p).toBeUndefined();
    else expect(p).toContain(expected);
  });

  it('an isolation problem makes the trial an isolation error, not a result', () => {
    const t = withShown({ ...SHOWN, skills: ['mock-skill', 'bundled-one'] });
    expect(status(t, meta())).toBe('isolation_error');
  });
});

describe('the planted secret', () => {
  it.each([
    ['a plain frontmatter', '---\nname: a\n---\nbody\n', '---\nname: a\n---\n<!-- n1 -->\nbody\n'],
    ['CRLF and a BOM', '\uFEFF---\r\nname: a\r\n---\r\nbody\r\n', '\uFEFF---\r\nname: a\r\n---\r\n<!-- n1 -->\nbody\r\n'],
    ['a frontmatter ending the file', '---\nname: a\n---', '---\nname: a\n---\n<!-- n1 -->\n'],
    ['no frontmatter', 'body\n', '<!-- n1 -->\nbody\n'],
    ['a body holding another fence', '---\nname: a\n---\ntext\n---\nmore\n', '---\nname: a\n---\n<!-- n1 -->\ntext\n---\nmore\n'],
  ])('goes first in the body after %s', (_, text, planted) => {
    expect(withNonce(text, 'n1')).toBe(planted);
  });

  it('is found wherever the output shows it, and only there', () => {
    expect(membersRead('x b2 y a1', { a: 'a1', b: 'b2', c: 'c3' })).toEqual(['b', 'a']);
    expect(skillFoldersNamed("cat '/w/.agents/skills/x/SKILL.md' && sed -n 1,5p skills/y/SKILL.md; cat x/SKILL.md")).toEqual(['x', 'y']);
  });
});

describe('grading a Codex trial end to end (pure)', () => {
  const c: GradableCase = {
    id: 'c',
    expect: 'mock-skill',
    exclusive: false,
    tags: [],
    command: 'mock',
    plan: { matches: ['--fast'], mustNot: [], verb: 'run' },
    decision: { threshold: 0.9, delta: 0.1, alpha: 0.05, beta: 0.2, minTrials: 5, maxTrials: 50 },
  };
  const opts = defaultGrading(codex, MOCK_FAMILY);

  it('the read fires the expected skill and the plan after it is graded from the model text alone', () => {
    const out = '---\nname: mock-skill\n---\n<!-- 7f3a9c -->\n```bash\nmock run --fast\n```\n';
    const raw = stream(
      ...START,
      ...command('i1', "/bin/bash -lc 'cat /ws/.agents/skills/mock-skill/SKILL.md'", out),
      { type: 'item.completed', item: { id: 'm', type: 'agent_message', text: 'Plan:\n```bash\nmock run --fast\n```' } },
      DONE,
    );
    const o = gradeTrial(parse(raw), meta(), c, 'skill', 1, opts);
    expect(o).toMatchObject({ status: 'ok', fired: 'expected', firedColumn: 'mock-skill', passed: true, readOnly: false });
    expect(o.plan?.pass).toBe(true);
  });

  it('reading the skill in the ablation arm is an isolation error', () => {
    const out = '<!-- 7f3a9c -->\n';
    const raw = stream(...START, ...command('i1', 'cat .agents/skills/mock-skill/SKILL.md', out), DONE);
    const o = gradeTrial(
      parse(raw, meta({ evidence: { ...EVIDENCE, shown: { ...SHOWN, skills: [] } } })),
      meta({ evidence: { ...EVIDENCE, shown: { ...SHOWN, skills: [] } } }),
      c,
      'ablation',
      1,
      opts,
    );
    expect(o.status).toBe('isolation_error');
  });
});

describe('a neighbour on Codex: its SKILL.md carries a nonce as the family does', () => {
  // Codex loads a skill by reading its SKILL.md, so a nonce-proven read of a neighbour's is that neighbour firing,
  // exactly as it is for a family member; the ablation arm still lists and may fire the neighbour.
  const c: GradableCase = { id: 'c', expect: 'mock-skill', exclusive: false, tags: [], decision: DECISION };
  const opts = defaultGrading(codex, MOCK_FAMILY, { neighbours: [{ dir: 'pdf-tool', name: 'pdf-tool' }] });
  const evidence = (skills: string[]): TrialMeta =>
    meta({ evidence: { skillNonces: { 'mock-skill': '7f3a9c', 'pdf-tool': 'p0f1d2' }, shown: { ...SHOWN, skills } } });
  const readOf = (dir: string, nonce: string) =>
    stream(...START, ...command('i1', `cat /ws/.agents/skills/${dir}/SKILL.md`, `---\nname: ${dir}\n---\n<!-- ${nonce} -->\n`), DONE);

  it.each([
    [
      'skill',
      ['mock-skill', 'pdf-tool'],
      readOf('pdf-tool', 'p0f1d2'),
      { status: 'ok', fired: 'neighbour', firedColumn: 'neighbour:pdf-tool', passed: false },
    ],
    [
      'skill',
      ['mock-skill', 'pdf-tool'],
      readOf('mock-skill', '7f3a9c'),
      { status: 'ok', fired: 'expected', firedColumn: 'mock-skill', passed: true },
    ],
    ['ablation', ['pdf-tool'], readOf('pdf-tool', 'p0f1d2'), { status: 'ok', fired: 'neighbour', firedColumn: 'neighbour:pdf-tool' }],
    ['skill', ['mock-skill'], readOf('mock-skill', '7f3a9c'), { status: 'isolation_error' }],
    ['ablation', ['pdf-tool', 'mock-skill'], readOf('pdf-tool', 'p0f1d2'), { status: 'isolation_error' }],
    ['skill', ['mock-skill', 'pdf-tool', 'leaked'], readOf('mock-skill', '7f3a9c'), { status: 'isolation_error' }],
  ] as const)('%s arm listing %j: graded %j', (arm, listed, raw, want) => {
    const m = evidence([...listed]);
    const o = gradeTrial(parse(raw, m), m, c, arm, 1, opts);
    expect(o).toMatchObject(want);
    if (want.status === 'ok') expect(o.firings.every((f) => f.skill === undefined) === (want.fired === 'neighbour')).toBe(true);
  });

  it('names what is wrong with the listing', () => {
    const m = evidence(['mock-skill', 'pdf-tool', 'leaked']);
    const t = parse(readOf('mock-skill', '7f3a9c'), m);
    expect(codex.grading.isolationProblem(t, { arm: 'skill', family: ['mock-skill'], neighbours: ['pdf-tool'] })).toBe(
      'skills outside the family and its declared neighbours reached the model: leaked',
    );
    const ablation = evidence(['mock-skill']);
    expect(
      codex.grading.isolationProblem(parse(readOf('mock-skill', '7f3a9c'), ablation), {
        arm: 'ablation',
        family: ['mock-skill'],
        neighbours: ['pdf-tool'],
      }),
    ).toBe('ablation arm: neighbours pdf-tool not loaded by the agent');
  });
});
