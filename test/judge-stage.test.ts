import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { claudeCode } from '../src/agents/claude-code/adapter.js';
import { gradeJudged } from '../src/grade/judged.js';
import { metaPath, transcriptPath, type RunManifest } from '../src/run/schema.js';
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

/** Removes a judge step's stored answers to `requests` (their trials' files). */
const unanswer = (step: string, requests: string[]) => {
  for (const ref of requests.map((caseId) => ({ caseId, arm: 'ablation' as const, n: 1 })))
    for (const file of [metaPath(ref), transcriptPath(ref)]) rmSync(join(step, file));
};

/** What the judge stage asks of a judged run folder, its trials and steps read as the pipeline reads them. */
async function askOf(dir: string, manifest: RunManifest, maxCostUsd?: number) {
  const { store } = await RunStore.open(dir);
  const trials = await gradeStored(store, manifest);
  const { steps } = await readJudgeSteps(dir);
  const config = { ...manifest.config, ...(maxCostUsd !== undefined ? { maxCostUsd } : {}) };
  const suite: SuiteToRun = { config, skills: [], suite: { cases: [], files: [], hash: '' }, adapter: claudeCode, binary: 'claude' };
  const ask = judgeNestedRun(suite, { cwd: dir, callerEnv: {} }, { dir, manifest }, trials, steps, judgeOf(manifest), 0.25);
  return { trials, steps, ask };
}

/** A hand-made judged run (2 trials: 2 trial items, 3 controls), read as the pipeline reads it, less `unanswered` stored answers. */
async function judgedRun(unanswered: string[] = [], maxCostUsd?: number) {
  const root = mkdtempSync(join(tmpdir(), 'sp-judge-stage-'));
  roots.push(root);
  const { dir, step, manifest } = await judgedRunFolder(root);
  unanswer(step, unanswered);
  return { dir, step, manifest, ...(await askOf(dir, manifest, maxCostUsd)) };
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

  it('a step stopped after answering some requests is resumed in its own folder with all its requests; a finished one is not', async () => {
    const { dir, step, manifest, ask } = await judgedRun(['judged.skill.1.item1', 'control.reworded.judged.item1']);
    // The step as the stage first made it: every request of the run, in the folder named for them.
    const aside = join(dirname(dir), 'step-aside');
    renameSync(step, aside);
    const first = (await askOf(dir, manifest)).ask!;
    expect([first.needed, first.asks, first.request.cases.length]).toEqual([5, 5, 5]);
    renameSync(aside, first.request.dir);
    // Stopped (Ctrl-C) after three of its five requests were answered in full.
    const stopped = JSON.parse(readFileSync(join(first.request.dir, 'run.json'), 'utf8')) as RunManifest;
    writeFileSync(join(first.request.dir, 'run.json'), JSON.stringify({ ...stopped, status: 'interrupted' }));
    const resumed = (await askOf(dir, manifest)).ask!;
    expect(resumed.request.dir).toBe(first.request.dir);
    expect(resumed.request.cases.map((c) => c.id)).toEqual(first.request.cases.map((c) => c.id));
    expect([resumed.needed, resumed.asks]).toEqual([2, 5]);
    // The same step finished with those two unanswered (damaged): never run again, the two asked in a step of their own.
    writeFileSync(join(first.request.dir, 'run.json'), JSON.stringify(stopped));
    const after = (await askOf(dir, manifest)).ask!;
    expect(basename(after.request.dir)).toBe(basename(ask!.request.dir));
    expect(after.request.dir).not.toBe(first.request.dir);
    expect(after.request.cases.map((c) => c.id).sort()).toEqual(['control.reworded.judged.item1', 'judged.skill.1.item1']);
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
