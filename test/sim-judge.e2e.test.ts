import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapterFor } from '../src/agents/registry.js';
import { judgeSample } from '../src/grade/judge-answers.js';
import type { Arm } from '../src/run/config-schema.js';
import { judgePrompt, readJudgeReply } from '../src/checks/judge-prompt.js';
import type { TrialRecord } from '../src/runner/trial.js';
import { viewRequest } from '../src/sim/dialects/index.js';
import { parseProfile } from '../src/sim/profile.js';
import { startSimulator, type RunningSimulator } from '../src/sim/server.js';
import { baseProject, cleanup, makeProject, testEnv } from './helpers.js';
import { CONFIRMS, RUBRIC } from './judge-requests.js';
import { runTrials } from './trial-runner.js';

/** Each agent's real pinned CLI, as the tune and conformance tests run it. */
const AGENT_MODELS: Record<string, string> = { 'claude-code': 'sonnet', codex: 'sim-model', gemini: 'gemini-2.5-flash' };

/** What each CLI still offers with no tools: Codex always offers a question to the user, which headless has none to ask. */
const LEFT_WITH_NO_TOOLS: Record<string, string[]> = { 'claude-code': [], codex: ['request_user_input'], gemini: [] };

/** Two judge requests whose true answers are YES and NO. */
const JUDGED = [
  { id: 'judge-yes', request: { rubric: RUBRIC, item: 0, answer: CONFIRMS, variant: 'plain' }, sample: 'yes' },
  { id: 'judge-no', request: { rubric: RUBRIC, item: 1, answer: CONFIRMS, variant: 'reordered' }, sample: 'no' },
] as const;

describe.each(Object.entries(AGENT_MODELS))('a judge request through the real %s CLI gets the stand-in’s verdict', (agent, model) => {
  let project: string;
  let sim: RunningSimulator;
  let records: TrialRecord[];
  let workdir: string;

  beforeAll(async () => {
    project = makeProject({
      ...baseProject(),
      'cases/main.yaml': JUDGED.map(
        (j) => `- id: ${j.id}\n  prompt: ${JSON.stringify(judgePrompt(j.request))}\n  expect: { skill: none }\n`,
      ).join(''),
    });
    // A rule matching every prompt: the judge stand-in answers anyway.
    sim = await startSimulator(parseProfile({ seed: 1, rules: [{ prompt: '.', do: [{ answer: 'A rule answer.' }] }] }), {
      record: true,
    });
    ({ records, workdir } = await runTrials(
      adapterFor(agent),
      project,
      sim.url,
      testEnv(),
      JUDGED.map((j): [string, Arm] => [j.id, 'ablation']),
      { model, deadlineSeconds: 120, role: 'judge' },
    ));
  }, 300_000);

  afterAll(async () => {
    await sim?.stop();
    cleanup(project, workdir);
  });

  it.each(JUDGED.map((j) => [j.id, j.sample] as const))('%s: %s', (id, sample) => {
    const record = records.find((r) => r.ref.caseId === id)!;
    const text = record.transcript.events.flatMap((e) => (e.kind === 'text' && e.source === 'assistant' ? [e.text] : [])).join('\n');
    expect(readJudgeReply(text)).toBe(sample);
    expect(record.transcript.events.filter((e) => e.kind === 'tool_call')).toEqual([]);
    // The trial passes the CLI's isolation check with no tool offered: a sample, not an error.
    expect(judgeSample(record.transcript, record.meta, adapterFor(agent).grading.isolationProblem)).toBe(sample);
  });

  it('the judge is offered no tool that reads, writes or runs anything: every request it sent held none', () => {
    const asked = sim.received.filter((r) => JUDGED.some((j) => j.id === r.caseId));
    expect(asked.length).toBeGreaterThanOrEqual(JUDGED.length);
    for (const r of asked) expect(viewRequest(r.wire, r.body).tools).toEqual(LEFT_WITH_NO_TOOLS[agent]);
  });
});
