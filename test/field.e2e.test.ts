import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeCode } from '../src/agents/claude-code/adapter.js';
import { FIELD_REFUSAL } from '../src/agents/field-refusal.js';
import { gradeTrial } from '../src/grade/outcome.js';
import { fieldProbeProblem } from '../src/runner/field-probe.js';
import type { TrialRecord } from '../src/runner/trial.js';
import { parseProfile } from '../src/sim/profile.js';
import { startSimulator, type RunningSimulator } from '../src/sim/server.js';
import type { ToolCallEvent, ToolResultEvent } from '../src/transcript/types.js';
import { cleanup, makeProject, skillMd, testEnv } from './helpers.js';
import { claudeGrading } from './run-fixtures.js';
import { runTrials } from './trial-runner.js';

/**
 * Claude Code in the field, through the real pinned CLI against the simulator: a command, a write and a fetch are
 * each refused before they run (the workspace is unchanged: the canary file the command and the write aim at never
 * appears), the refusal reaches the model, the model goes on, and the trial grades as going around the skill. The
 * same cases in the lab offer no acting tool, so the model answers in text.
 */
const ACTS = { 'do-shell': ['shell', 'Bash'], 'do-write': ['write', 'Write'], 'do-fetch': ['fetch', 'WebFetch'] } as const;
const CASE_IDS = Object.keys(ACTS) as (keyof typeof ACTS)[];

const FILES = {
  'skills/chart/SKILL.md': skillMd('chart', 'Chart a CSV file as a PNG picture.'),
  'cases/main.yaml': CASE_IDS.map((id) => `- id: ${id}\n  prompt: "chart the sales csv (${id})"\n  expect: { skill: chart }\n`).join(''),
};
const PROFILE = parseProfile({ seed: 1, rules: CASE_IDS.map((id) => ({ case: id, do: [{ act: ACTS[id][0] }] })) });
const DECISION = { threshold: 0.9, delta: 0.1, alpha: 0.05, beta: 0.2, minTrials: 5, maxTrials: 50 };

const callsOf = (r: TrialRecord) => r.transcript.events.filter((e): e is ToolCallEvent => e.kind === 'tool_call');
const gradeOf = (r: TrialRecord, context?: 'field') =>
  gradeTrial(
    r.transcript,
    r.meta,
    { id: r.ref.caseId, expect: 'chart', exclusive: false, tags: [], decision: DECISION, ...(context ? { context } : {}) },
    'skill',
    1,
    claudeGrading([{ dir: 'chart', name: 'chart' }]),
  );

describe('Claude Code in the field (real CLI, simulator)', () => {
  let sim: RunningSimulator;
  const dirs: string[] = [];
  beforeAll(async () => {
    sim = await startSimulator(PROFILE, { record: true });
  });
  afterAll(async () => {
    await sim.stop();
    cleanup(...dirs);
  });

  it('the probe before a field run passes on the pinned CLI', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'sp-probe-'));
    dirs.push(scratch);
    expect(await fieldProbeProblem(claudeCode, claudeCode.resolveBinary(), scratch, testEnv())).toBeUndefined();
  });

  it('a command, a write and a fetch are each refused before they run; the model goes on; each trial grades self', async () => {
    const project = makeProject(FILES);
    dirs.push(project);
    const plan = CASE_IDS.map((id) => [id, 'skill'] as [string, 'skill']);
    const { records, workdir } = await runTrials(claudeCode, project, sim.url, testEnv(), plan, {
      model: 'sonnet',
      deadlineSeconds: 90,
      context: 'field',
    });
    dirs.push(workdir);
    for (const r of records) {
      const [, tool] = ACTS[r.ref.caseId as keyof typeof ACTS];
      const [call] = callsOf(r);
      expect(call, r.ref.caseId).toMatchObject({ name: tool, intent: 'act' });
      const answer = r.transcript.events.find((e): e is ToolResultEvent => e.kind === 'tool_result' && e.id === call!.id);
      expect(answer).toMatchObject({ isError: true, text: FIELD_REFUSAL });
      // Nothing ran: the canary file never appeared, nothing else in the workspace changed.
      expect(r.meta.evidence?.workspaceChanged).toEqual([]);
      // The refusal reached the model, which answered after it.
      const asked = sim.received.filter((q) => q.caseId === r.ref.caseId).map((q) => JSON.stringify(q.body));
      expect(asked.some((body) => body.includes(FIELD_REFUSAL))).toBe(true);
      const after = r.transcript.events.slice(r.transcript.events.indexOf(answer!));
      expect(after.some((e) => e.kind === 'text' && e.source === 'assistant' && /by hand/.test(e.text))).toBe(true);
      expect(gradeOf(r, 'field')).toMatchObject({ status: 'ok', fired: 'self', firedColumn: 'self', passed: false });
    }
    expect(records.map((r) => callsOf(r)[0]?.name)).toEqual(['Bash', 'Write', 'WebFetch']);
  });

  it('the same cases in the lab offer no acting tool: the model answers in text and no trial went around', async () => {
    const project = makeProject(FILES);
    dirs.push(project);
    const plan = CASE_IDS.map((id) => [id, 'skill'] as [string, 'skill']);
    const { records, workdir } = await runTrials(claudeCode, project, sim.url, testEnv(), plan, { model: 'sonnet', deadlineSeconds: 90 });
    dirs.push(workdir);
    for (const r of records) {
      expect(callsOf(r)).toEqual([]);
      expect(r.meta.evidence).toBeUndefined();
      expect(gradeOf(r)).toMatchObject({ status: 'ok', fired: 'none', passed: false });
    }
  });
});
