import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIELD_REFUSAL } from '../src/agents/field-refusal.js';
import type { AgentAdapter } from '../src/agents/types.js';
import { gradeTrial } from '../src/grade/outcome.js';
import { fieldProbeProblem } from '../src/runner/field-probe.js';
import type { TrialRecord } from '../src/runner/trial.js';
import { CANARY_FILE } from '../src/sim/dialects/anthropic.js';
import { parseProfile } from '../src/sim/profile.js';
import { startSimulator, type RunningSimulator } from '../src/sim/server.js';
import type { ToolCallEvent } from '../src/transcript/types.js';
import { cleanup, makeProject, ROOT, skillMd, testEnv } from './helpers.js';
import { runTrials } from './trial-runner.js';

/**
 * Codex and Gemini in the field, through the real pinned CLIs against the simulator: a command, a write and a fetch
 * are each refused before they run (the canary file never appears), the refusal reaches the model, and each trial
 * grades as going around the skill. The adapters come from the build: Codex's refusing hook is the compiled
 * `field-hook-main.js` beside its adapter.
 */
const CASE_IDS = ['do-shell', 'do-write', 'do-fetch'] as const;
const FILES = {
  'skills/chart/SKILL.md': skillMd('chart', 'Chart a CSV file as a PNG picture.'),
  'cases/main.yaml': CASE_IDS.map((id) => `- id: ${id}\n  prompt: "chart the sales csv (${id})"\n  expect: { skill: chart }\n`).join(''),
};
const PROFILE = parseProfile({ seed: 1, rules: CASE_IDS.map((id) => ({ case: id, do: [{ act: id.slice(3) }] })) });
const DECISION = { threshold: 0.9, delta: 0.1, alpha: 0.05, beta: 0.2, minTrials: 5, maxTrials: 50 };

const dist = join(ROOT, 'dist', 'agents');
async function built(path: string, name: string): Promise<AgentAdapter> {
  if (!existsSync(join(dist, path))) throw new Error('dist is missing: run `npm run build`');
  return ((await import(join(dist, path))) as Record<string, AgentAdapter>)[name]!;
}

describe.each([
  ['codex', 'codex/adapter.js', 'sim-model'],
  ['gemini', 'gemini/adapter.js', 'gemini-2.5-pro'],
] as const)('%s in the field (real CLI, simulator)', (name, path, model) => {
  let sim: RunningSimulator;
  let adapter: AgentAdapter;
  const dirs: string[] = [];
  beforeAll(async () => {
    adapter = await built(path, name);
    sim = await startSimulator(PROFILE, { record: true });
  });
  afterAll(async () => {
    await sim.stop();
    cleanup(...dirs);
  });

  it('the probe before a field run passes on the pinned CLI', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'sp-probe-'));
    dirs.push(scratch);
    expect(await fieldProbeProblem(adapter, adapter.resolveBinary(), scratch, testEnv())).toBeUndefined();
  });

  it('a command, a write and a fetch are each refused before they run; each trial grades self', async () => {
    const project = makeProject(FILES);
    dirs.push(project);
    const plan = CASE_IDS.map((id) => [id, 'skill'] as [string, 'skill']);
    const { records, workdir } = await runTrials(adapter, project, sim.url, testEnv(), plan, {
      model,
      deadlineSeconds: 90,
      context: 'field',
    });
    dirs.push(workdir);
    for (const r of records as TrialRecord[]) {
      const calls = r.transcript.events.filter((e): e is ToolCallEvent => e.kind === 'tool_call');
      expect(calls[0], r.ref.caseId).toMatchObject({ intent: 'act' });
      // Nothing ran: the canary file never appeared, nothing else in the workspace changed.
      expect(r.meta.evidence?.workspaceChanged).toEqual([]);
      expect(r.meta.evidence?.workspaceChanged).not.toContain(CANARY_FILE);
      // The refusal reached the model.
      const asked = sim.received.filter((q) => q.caseId === r.ref.caseId).map((q) => JSON.stringify(q.body));
      expect(asked.some((body) => body.includes(FIELD_REFUSAL))).toBe(true);
      const c = { id: r.ref.caseId, expect: 'chart', exclusive: false, tags: [], decision: DECISION, context: 'field' as const };
      const graded = gradeTrial(r.transcript, r.meta, c, 'skill', 1, {
        family: [{ dir: 'chart', name: 'chart' }],
        skillsFolder: adapter.skillsFolder,
        readCountsAsFiring: true,
        budgetStopsFail: true,
        conventions: adapter.grading,
      });
      expect(graded, r.ref.caseId).toMatchObject({ status: 'ok', fired: 'self', passed: false });
    }
  });
});
