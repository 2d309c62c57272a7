import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeCode } from '../src/agents/claude-code/adapter.js';
import { claudeBundled } from '../src/agents/claude-code/field.js';
import { FIELD_REFUSAL } from '../src/agents/field-refusal.js';
import type { AgentAdapter } from '../src/agents/types.js';
import { gradeTrial } from '../src/grade/outcome.js';
import type { TrialRecord } from '../src/runner/trial.js';
import { parseProfile } from '../src/sim/profile.js';
import { startSimulator, type RunningSimulator } from '../src/sim/server.js';
import { viewRequest } from '../src/sim/dialects/index.js';
import type { ToolCallEvent, ToolResultEvent } from '../src/transcript/types.js';
import { cleanup, makeProject, ROOT, skillMd, testEnv } from './helpers.js';
import { runTrials } from './trial-runner.js';

/**
 * Each CLI in the field, through the real pinned CLI against the simulator: a command, a write and a fetch are each
 * refused before they run (the workspace is unchanged: the canary file the command and the write aim at never
 * appears), the refusal reaches the model, the model goes on, and the trial grades as going around the skill.
 * Claude Code's same cases in the lab offer no acting tool, so the model answers in text. That the probe before a field
 * run passes on each pinned CLI is every field run's: a run refuses (exit 2, no trial) unless it does, and
 * mcp.e2e.test.ts runs one in the field through each CLI.
 */
const CASE_IDS = ['do-shell', 'do-write', 'do-fetch'] as const;

/** Per agent, a case its simulated model answers with one of the CLI's bundled skills, listed in the field. */
const BUNDLED_CASES = { 'claude-code': 'simplify', codex: 'imagegen', gemini: 'skill-creator' } as const;

const FILES = {
  'skills/chart/SKILL.md': skillMd('chart', 'Chart a CSV file as a PNG picture.'),
  'cases/main.yaml': [...CASE_IDS, ...Object.values(BUNDLED_CASES).map((s) => `to-${s}`)]
    .map((id) => `- id: ${id}\n  prompt: "chart the sales csv (${id})"\n  expect: { skill: chart }\n`)
    .join(''),
};
const PROFILE = parseProfile({
  seed: 1,
  rules: [
    ...CASE_IDS.map((id) => ({ case: id, do: [{ act: id.slice('do-'.length) }] })),
    ...Object.values(BUNDLED_CASES).map((skill) => ({ case: `to-${skill}`, do: [{ skill }] })),
  ],
});
const DECISION = { threshold: 0.9, delta: 0.1, alpha: 0.05, beta: 0.2, minTrials: 5, maxTrials: 50 };

/** Codex's and Gemini's adapters from the build: Codex's refusing hook is the compiled `field-hook-main.js` beside its adapter. */
async function built(path: string, name: string): Promise<AgentAdapter> {
  const file = join(ROOT, 'dist', 'agents', path);
  if (!existsSync(file)) throw new Error('dist is missing: run `npm run build`');
  return ((await import(file)) as Record<string, AgentAdapter>)[name]!;
}

/**
 * Each agent, its model, the tool each case's acting call reaches (Codex's write and fetch go through its shell), and
 * whether its transcript places the model's last words after the refusal: Codex's stream never shows a refused call,
 * and its hook's log places one among the commands that ran, not among the messages.
 */
const AGENTS = [
  ['claude-code', async () => claudeCode, 'sonnet', ['Bash', 'Write', 'WebFetch'], true],
  ['codex', () => built('codex/adapter.js', 'codex'), 'sim-model', ['Bash', 'Bash', 'Bash'], false],
  ['gemini', () => built('gemini/adapter.js', 'gemini'), 'gemini-2.5-pro', ['run_shell_command', 'write_file', 'web_fetch'], true],
] as const;

const callsOf = (r: TrialRecord) => r.transcript.events.filter((e): e is ToolCallEvent => e.kind === 'tool_call');
/** A trial's first acting call (Claude Code 2.1.332 loads a deferred tool with ToolSearch, a lookup, before it). */
const actingCallOf = (r: TrialRecord) => callsOf(r).find((c) => c.intent === 'act');
const gradeOf = (adapter: AgentAdapter, r: TrialRecord, context?: 'field') =>
  gradeTrial(
    r.transcript,
    r.meta,
    { id: r.ref.caseId, expect: 'chart', exclusive: false, tags: [], decision: DECISION, ...(context ? { context } : {}) },
    'skill',
    1,
    {
      family: [{ dir: 'chart', name: 'chart' }],
      skillsFolder: adapter.skillsFolder,
      readCountsAsFiring: true,
      budgetStopsFail: true,
      conventions: adapter.grading,
    },
  );

describe.each(AGENTS)('%s in the field (real CLI, simulator)', (name, load, model, tools, textAfterRefusal) => {
  let sim: RunningSimulator;
  let adapter: AgentAdapter;
  const dirs: string[] = [];
  const plan = CASE_IDS.map((id) => [id, 'skill'] as [string, 'skill']);
  const bundled = BUNDLED_CASES[name];
  /**
   * The field's trials, the acting cases' and the bundled skill's in one run of the runner (its listing probed once),
   * started by the first test that reads them.
   */
  let field: Promise<TrialRecord[]> | undefined;
  const fieldTrials = () =>
    (field ??= (async () => {
      const project = makeProject(FILES);
      dirs.push(project);
      const { records, workdir } = await runTrials(adapter, project, sim.url, testEnv(), [...plan, [`to-${bundled}`, 'skill']], {
        model,
        deadlineSeconds: 90,
        context: 'field',
      });
      dirs.push(workdir);
      return records;
    })());
  beforeAll(async () => {
    adapter = await load();
    sim = await startSimulator(PROFILE, { record: true });
  });
  afterAll(async () => {
    await sim.stop();
    cleanup(...dirs);
  });

  it('a command, a write and a fetch are each refused before they run; the model goes on; each trial grades self', async () => {
    const records = (await fieldTrials()).filter((r) => r.ref.caseId !== `to-${bundled}`);
    for (const r of records) {
      const call = actingCallOf(r);
      expect(call, r.ref.caseId).toBeDefined();
      // Only a lookup goes before it, and it ran.
      const before = callsOf(r).slice(0, callsOf(r).indexOf(call!));
      expect(before.filter((c) => c.name !== 'ToolSearch')).toEqual([]);
      const answer = r.transcript.events.find((e): e is ToolResultEvent => e.kind === 'tool_result' && e.id === call!.id);
      expect(answer?.isError).toBe(true);
      expect(answer?.text).toContain(FIELD_REFUSAL);
      // Nothing ran: the canary file never appeared, nothing else in the workspace changed.
      expect(r.meta.evidence?.workspaceChanged).toEqual([]);
      // The refusal reached the model, which answered after it.
      const asked = sim.received.filter((q) => q.caseId === r.ref.caseId).map((q) => JSON.stringify(q.body));
      expect(asked.some((body) => body.includes(FIELD_REFUSAL))).toBe(true);
      const after = textAfterRefusal ? r.transcript.events.slice(r.transcript.events.indexOf(answer!)) : r.transcript.events;
      expect(after.some((e) => e.kind === 'text' && e.source === 'assistant' && /by hand/.test(e.text))).toBe(true);
      expect(gradeOf(adapter, r, 'field')).toMatchObject({ status: 'ok', fired: 'self', firedColumn: 'self', passed: false });
    }
    expect(records.map((r) => actingCallOf(r)?.name)).toEqual(tools);
  });

  it("lists the CLI's bundled skills beside the family, and a trial that goes to one grades as going to that neighbour", async () => {
    const record = (await fieldTrials()).find((r) => r.ref.caseId === `to-${bundled}`)!;
    // The model was offered exactly the family and the bundled skills measured on the CLI's version.
    const first = sim.received.find((q) => q.caseId === `to-${bundled}`)!;
    const init = record.transcript.events.find((e) => e.kind === 'init');
    const measured = name === 'claude-code' ? claudeBundled(init?.cliVersion).listed : adapter.grading.bundledSkills;
    expect(viewRequest(first.wire, first.body).offeredSkills.toSorted()).toEqual(['chart', ...measured].toSorted());
    expect(gradeOf(adapter, record, 'field')).toMatchObject({
      status: 'ok',
      fired: 'neighbour',
      firedColumn: `neighbour:${bundled}`,
      passed: false,
      firings: [{ neighbour: bundled, via: 'invoke', status: 'loaded' }],
    });
  });

  // Only Claude Code's lab offers no acting tool (Codex's lab offers its shell, in a read-only sandbox).
  if (name === 'claude-code')
    it('the same cases in the lab offer no acting tool: the model answers in text and no trial went around', async () => {
      const project = makeProject(FILES);
      dirs.push(project);
      const { records, workdir } = await runTrials(adapter, project, sim.url, testEnv(), plan, { model, deadlineSeconds: 90 });
      dirs.push(workdir);
      for (const r of records) {
        expect(callsOf(r)).toEqual([]);
        expect(r.meta.evidence).toBeUndefined();
        expect(gradeOf(adapter, r)).toMatchObject({ status: 'ok', fired: 'none', passed: false });
      }
    });
});
