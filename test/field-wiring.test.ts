import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fieldEvidenceProblem, fieldSettings } from '../src/agents/claude-code/field.js';
import { parseClaudeStream } from '../src/agents/claude-code/parse.js';
import { codex } from '../src/agents/codex/adapter.js';
import { hookRecords, sessionFieldProblem } from '../src/agents/codex/field-evidence.js';
import { shownInSession } from '../src/agents/codex/session.js';
import { FIELD_REFUSAL } from '../src/agents/field-refusal.js';
import { gemini } from '../src/agents/gemini/adapter.js';
import { GEMINI_FIELD_REFUSAL } from '../src/agents/gemini/field.js';
import type { AgentAdapter, IsolationExpectation } from '../src/agents/types.js';
import { gradeTrial } from '../src/grade/outcome.js';
import type { GradableCase, TrialEvidence } from '../src/run/schema.js';
import { probeProblem } from '../src/runner/field-probe.js';
import type { ToolCallEvent, Transcript } from '../src/transcript/types.js';
import { fieldFixture as fixture } from './field-fixtures.js';
import { ROOT } from './helpers.js';
import { DECISION, defaultGrading, trialMeta } from './run-fixtures.js';

/** The nonce the recorded runs planted in their one skill, `demo`. */
const NONCES = { demo: 'BODY-NONCE-42' };

/** A recorded Codex run's evidence, as `collectEvidence` gathers it: the session record's listing, the hook's log and its problem. */
function codexEvidence(name: string, over: { rollout?: string; hook?: string } = {}): TrialEvidence {
  const rollout = over.rollout ?? fixture(`${name}-rollout.jsonl`);
  const problem = sessionFieldProblem(rollout).problem;
  const hook = over.hook ?? fixture(`${name}-hook.jsonl`);
  return {
    skillNonces: NONCES,
    shown: shownInSession(rollout),
    field: { hook: hookRecords(hook), ...(problem ? { sessionProblem: problem } : {}) },
  };
}

const calls = (t: Transcript) =>
  t.events.filter((e): e is ToolCallEvent => e.kind === 'tool_call').map((c) => `${c.name}:${c.intent}${c.skill ? `:${c.skill}` : ''}`);

const FIELD: IsolationExpectation = { arm: 'skill', family: ['demo'], context: 'field', workspaceChanged: [] };
const positive: GradableCase = { id: 'p', expect: 'demo', exclusive: false, tags: [], decision: DECISION, context: 'field' };
const grading = (adapter: AgentAdapter) => defaultGrading(adapter, [{ dir: 'demo', name: 'demo' }]);

describe('Codex in the field, wired: the hook log places each refused call among the commands that ran', () => {
  it.each([
    // The direct menu: a command, `ls`, the skill read (let run), a fetch, a sub-agent; an image view (not acting, not shown).
    ['codex-direct', ['Bash:act', 'Bash:act', 'exec_command:skill:demo', 'Bash:act', 'spawn_agent:act']],
    // Code mode: the script's nested calls, each its own hook call; the patch is refused after the read.
    ['codex-script', ['Bash:act', 'Bash:act', 'exec_command:skill:demo', 'apply_patch:act']],
  ])('%s: the calls in the order the model made them', (name, expected) => {
    const t = codex.parse(fixture(`${name}-events.jsonl`), { evidence: codexEvidence(name), exitCode: 0 });
    expect(calls(t)).toEqual(expected);
    // Each refused call is answered as the model was: by the refusal, shared by every CLI.
    const answers = t.events.filter((e) => e.kind === 'tool_result' && e.text === FIELD_REFUSAL);
    expect(answers).toHaveLength(expected.filter((c) => c.endsWith(':act')).length);
  });

  it('a lab trial reads SKILL.md with its shell and never acts: without the field record no call is `act`', () => {
    const t = codex.parse(fixture('codex-lab-events.jsonl'), { evidence: { skillNonces: NONCES }, exitCode: 0 });
    expect(calls(t).some((c) => c.includes(':act'))).toBe(false);
    expect(calls(t).some((c) => c.includes(':skill'))).toBe(true);
  });

  it('the trial that acted before reading the skill grades `self`, its evidence holding', () => {
    const t = codex.parse(fixture('codex-direct-events.jsonl'), { evidence: codexEvidence('codex-direct'), exitCode: 0 });
    expect(codex.grading.isolationProblem(t, FIELD)).toBeUndefined();
    const meta = trialMeta({ evidence: { ...codexEvidence('codex-direct'), workspaceChanged: [] } });
    const o = gradeTrial(t, meta, positive, 'skill', 1, grading(codex));
    expect(o.status).toBe('ok');
    expect(o.fired).toBe('self');
  });

  const direct = () => fixture('codex-direct-events.jsonl');
  it.each([
    [
      'no field record (the hook never logged)',
      { ...codexEvidence('codex-direct'), field: undefined },
      FIELD,
      /no record of the refusing hook/,
    ],
    [
      'the workspace changed',
      codexEvidence('codex-direct'),
      { ...FIELD, workspaceChanged: ['skillprobe-canary.txt'] },
      /workspace changed/,
    ],
    ['no record of the workspace', codexEvidence('codex-direct'), { ...FIELD, workspaceChanged: undefined }, /no record of the workspace/],
    [
      'an acting call the session record shows answered by its output',
      codexEvidence('codex-direct', { rollout: fixture('codex-direct-rollout.jsonl').replaceAll(`hook: ${FIELD_REFUSAL}`, 'hook: ran') }),
      FIELD,
      /was not refused/,
    ],
  ])('%s → an isolation error', (_, evidence, expected, problem) => {
    const t = codex.parse(direct(), { evidence: evidence as TrialEvidence, exitCode: 0 });
    expect(codex.grading.isolationProblem(t, expected as IsolationExpectation)).toMatch(problem);
  });

  it('a command that ran and is no skill read → an isolation error', () => {
    const ran = direct().replaceAll("cat .agents/skills/demo/SKILL.md'", "ls -la'");
    const t = codex.parse(ran, { evidence: codexEvidence('codex-direct'), exitCode: 0 });
    expect(codex.grading.isolationProblem(t, FIELD)).toBe('a command ran: ls -la');
  });

  it('the lab keeps its own check: a lab trial needs no field record', () => {
    const t = codex.parse(fixture('codex-lab-events.jsonl'), {
      evidence: { skillNonces: NONCES, shown: shownInSession(fixture('codex-lab-rollout.jsonl')) },
      exitCode: 0,
    });
    expect(codex.grading.isolationProblem(t, { ...FIELD, context: undefined })).toBeUndefined();
  });

  it('the probe needs the evidence: from the stream alone Codex shows no refused call, so nothing is proved', () => {
    const stream = direct();
    expect(probeProblem(codex, codex.parse(stream), [])).toMatch(/never got to make the acting call/);
    // The probe's workspace holds no skill: its session lists none.
    const evidence = codexEvidence('codex-direct');
    const t = codex.parse(stream, { evidence: { ...evidence, shown: { ...evidence.shown!, skills: [] } }, exitCode: 0 });
    expect(probeProblem(codex, t, [])).toBeUndefined();
    expect(probeProblem(codex, t, ['skillprobe-canary.txt'])).toMatch(/workspace changed/);
  });
});

describe('Gemini in the field, wired', () => {
  const shown = { source: 'gemini skills list (once per arm)', skills: ['demo'], contextFiles: [] };
  const parse = (name: string) => gemini.parse(fixture(name), { evidence: { shown }, exitCode: 0 });

  it('marks each acting tool the CLI offered as `act`, the skill and reads as what they are', () => {
    expect(calls(parse('gemini-field-events.jsonl'))).toEqual([
      'run_shell_command:act',
      'run_shell_command:act',
      'write_file:act',
      'replace:act',
      'web_fetch:act',
      'google_web_search:act',
      'invoke_agent:act',
      'activate_skill:skill:demo',
      'read_file:read',
    ]);
  });

  it('a call of an acting tool the CLI had not registered is no choice to act', () => {
    expect(calls(parse('gemini-headless-default-events.jsonl')).filter((c) => c.startsWith('write_file'))).toEqual(['write_file:other']);
  });

  it.each([
    ['every acting call refused, the workspace unchanged', 'gemini-field-events.jsonl', FIELD, undefined],
    ['the workspace changed', 'gemini-field-events.jsonl', { ...FIELD, workspaceChanged: ['x'] }, /workspace changed/],
    ['the headless menu (acting tools not offered)', 'gemini-headless-default-events.jsonl', FIELD, /field menu is wrong/],
  ])('%s', (_, name, expected, problem) => {
    const found = gemini.grading.isolationProblem(parse(name), expected as IsolationExpectation);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toMatch(problem);
  });

  it('the refusal the model reads is the one every CLI sends', () => {
    expect(GEMINI_FIELD_REFUSAL).toContain(FIELD_REFUSAL);
    expect(fixture('gemini-field-events.jsonl')).toContain(FIELD_REFUSAL);
  });

  it('the probe proves a refusal from the stream and the listing measured for it (the probe installs no skill)', () => {
    const probed = (name: string) => gemini.parse(fixture(name), { evidence: { shown: { ...shown, skills: [] } }, exitCode: 0 });
    expect(probeProblem(gemini, probed('gemini-field-events.jsonl'), [])).toBeUndefined();
    expect(probeProblem(gemini, probed('gemini-headless-default-events.jsonl'), [])).toMatch(/never got to make the acting call/);
    expect(probeProblem(gemini, gemini.parse(fixture('gemini-field-events.jsonl')), [])).toMatch(/no skill listing/);
  });
});

describe('one refusal for every CLI', () => {
  const recorded = readFileSync(join(ROOT, 'test', 'fixtures', 'claude-field', 'bash-refused.jsonl'), 'utf8');
  const earlier = 'skillprobe field trial: this tool call was refused before it ran; nothing was executed.';

  it('Claude Code refuses with the shared words; a run stored with its earlier words still holds, any other answer does not', () => {
    expect(recorded).toContain(FIELD_REFUSAL);
    expect(fieldEvidenceProblem(parseClaudeStream(recorded), { workspaceChanged: [] })).toBeUndefined();
    const stored = recorded.replaceAll(FIELD_REFUSAL, earlier);
    expect(fieldEvidenceProblem(parseClaudeStream(stored), { workspaceChanged: [] })).toBeUndefined();
    const ran = recorded.replaceAll(FIELD_REFUSAL, 'chart.png written');
    expect(fieldEvidenceProblem(parseClaudeStream(ran), { workspaceChanged: [] })).toMatch(/not answered by a refusal/);
  });

  it("the hook's settings send the shared words", () => {
    expect(fieldSettings()).toContain(FIELD_REFUSAL);
  });
});
