import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { claudeCode } from '../src/agents/claude-code/adapter.js';
import { gradeJudged } from '../src/grade/judged.js';
import { metaPath, transcriptPath } from '../src/run/schema.js';
import { RunStore } from '../src/run/store.js';
import type { SuiteToRun } from '../src/runner/execute.js';
import { judgeNestedRun, withJudgeStep } from '../src/runner/judge-stage.js';
import { judgeOf, readJudgeSteps } from '../src/runner/judge-steps.js';
import { gradeStored } from '../src/runner/stored-grades.js';
import { readJudgeStep } from '../src/runner/judge-steps.js';
import { ClaudeStream } from './claude-stream.js';
import { judgedRunFolder } from './judged-run-fixture.js';
import { DECISION, handMadeManifest, storeTrial, trialMeta } from './run-fixtures.js';

/**
 * The judge stage in process, on hand-made judged runs (nothing spawned): which requests a run still asks of the judge,
 * in which nested run folder and role, and how a step's answers join those read before. The real CLI's judge paths
 * are in test/judge.e2e.test.ts.
 */

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

/** A hand-made judged run (2 trials: 2 trial items, 3 controls), read as the pipeline reads it, less `unanswer` stored answers. */
async function judgedRun(unanswer: string[] = [], maxCostUsd?: number) {
  const root = mkdtempSync(join(tmpdir(), 'sp-judge-stage-'));
  roots.push(root);
  const { dir, step, manifest } = await judgedRunFolder(root);
  for (const ref of unanswer.map((caseId) => ({ caseId, arm: 'ablation' as const, n: 1 })))
    for (const file of [metaPath(ref), transcriptPath(ref)]) rmSync(join(step, file));
  const { store } = await RunStore.open(dir);
  const trials = await gradeStored(store, manifest);
  const { steps } = await readJudgeSteps(dir);
  const config = { ...manifest.config, ...(maxCostUsd !== undefined ? { maxCostUsd } : {}) };
  const suite: SuiteToRun = { config, skills: [], suite: { cases: [], files: [], hash: '' }, adapter: claudeCode, binary: 'claude' };
  const ask = judgeNestedRun(suite, {}, { dir, manifest }, trials, steps, judgeOf(manifest), 0.25);
  return { dir, manifest, trials, steps, ask };
}

describe('judge stage: what a run still asks the judge', () => {
  it('a run whose every request has its stored answer asks nothing: a regrade or a resume replays them', async () => {
    const { ask, steps, manifest, trials } = await judgedRun();
    expect(ask).toBeUndefined();
    expect(gradeJudged(manifest, trials, steps, judgeOf(manifest)).judge).toMatchObject({ calibrated: true, requests: 5, unanswered: 0 });
  });

  it.each([
    [['judged.skill.1.item1'], 1],
    [['judged.skill.1.item1', 'control.reworded.judged.item1'], 2],
  ])('answers missing for %j: only those are asked, as judge requests of one nested run', async (missing, n) => {
    const { ask, dir } = await judgedRun(missing, 1);
    expect(ask!.request.cases.map((c) => c.id).sort()).toEqual([...missing].sort());
    expect([ask!.needed, ask!.asks]).toEqual([n, 5]);
    expect(ask!.request.role).toBe('judge');
    expect(ask!.request.dir).toMatch(new RegExp(`^${dir}/judge/step-[0-9a-f]{12}$`));
    // `samples` trials a request, none of the skills installed, the cap less what the trials under test spent.
    expect(ask!.request.config).toMatchObject({ trials: 1, arms: ['ablation'], ablation: 'always', judge: undefined, maxCostUsd: 0.75 });
    expect(ask!.request.config.decision.mode).toBe('fixed');
  });

  it('the same requests missing again name the same folder (a stopped step is resumed there); others name another', async () => {
    const a = (await judgedRun(['judged.skill.1.item1'])).ask!;
    const b = (await judgedRun(['judged.skill.1.item1'])).ask!;
    const c = (await judgedRun(['judged.skill.2.item1'])).ask!;
    expect(basename(a.request.dir)).toBe(basename(b.request.dir));
    expect(basename(c.request.dir)).not.toBe(basename(a.request.dir));
  });

  it("a step's answers take the place of what was read of its folder before, the steps kept in folder order", () => {
    const step = (dir: string, answers: number) => ({
      dir,
      manifest: {} as never,
      answers: new Map(Array.from({ length: answers }, (_, i) => [`r${i}`, { prompt: 'p', samples: ['yes' as const] }])),
      damaged: [],
    });
    const merged = withJudgeStep([step('/run/judge/step-a', 1), step('/run/judge/step-c', 1)], step('/run/judge/step-b', 2));
    expect(merged.map((s) => [basename(s.dir), s.answers.size])).toEqual([
      ['step-a', 1],
      ['step-b', 2],
      ['step-c', 1],
    ]);
    const resumed = withJudgeStep(merged, step('/elsewhere/step-a', 3));
    expect(resumed.map((s) => [basename(s.dir), s.answers.size])).toEqual([
      ['step-a', 3],
      ['step-b', 2],
      ['step-c', 1],
    ]);
  });
});

describe("judge stage: a step's answers read back", () => {
  it('its cost is summed in trial order whatever order the reads end in, so a regrade stores the same figure', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sp-judge-cost-'));
    roots.push(root);
    const costs = [0.1, 0.2, 0.3];
    const defs = costs.map((_, i) => ({
      id: `r${i + 1}`,
      prompt: 'p',
      expect: 'none' as const,
      exclusive: false,
      tags: [],
      decision: DECISION,
    }));
    const step = await RunStore.create(root, 'step-1');
    await step.writeManifest(handMadeManifest(defs, 1, { runId: 'step-1', family: [] }));
    for (const [i, cost] of costs.entries()) {
      const raw = new ClaudeStream('/ws', [], [])
        .text('YES')
        .result()
        .raw()
        .replace('"type":"result",', `"type":"result","total_cost_usd":${cost},`);
      await storeTrial(step, { caseId: `r${i + 1}`, arm: 'ablation', n: 1 }, raw, trialMeta());
    }
    // The first trial's read ends last, the last one's first.
    const readTrial = RunStore.prototype.readTrial;
    const spy = vi.spyOn(RunStore.prototype, 'readTrial').mockImplementation(async function (this: RunStore, ref) {
      await new Promise((r) => setTimeout(r, 60 - 20 * Number(ref.caseId.slice(1))));
      return readTrial.call(this, ref);
    });
    try {
      const read = await readJudgeStep(step.dir);
      expect(read && 'answers' in read ? read.costUsd : undefined).toBe(0.1 + 0.2 + 0.3);
    } finally {
      spy.mockRestore();
    }
  });
});
