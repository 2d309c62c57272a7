import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JudgeAsk } from '../src/grade/judge-asks.js';
import { runJudgeAsks } from '../src/grade/judged.js';
import { configSchema } from '../src/run/config-schema.js';
import type { GradableCase, RunManifest } from '../src/run/schema.js';
import { RunStore } from '../src/run/store.js';
import { ClaudeStream } from './claude-stream.js';
import { DECISION, handMadeManifest, storeTrial, trialMeta } from './run-fixtures.js';

/** The judged case of a hand-made judged run, and its one rubric item. */
export const JUDGED_ITEM = 'Does it say done?';

/**
 * A finished, judged run written by hand under `root` (nothing spawned), as if simulated with the profile `root/sim.yaml`
 * (so a rejudge of it asks only the simulator, on loopback): case `judged` fired its skill and said
 * "done" in each of `trials` trials, and one judge step under `judge/` answered every request the run calls for, each
 * once: yes to the trials' item, and the right answer to every control (or what `reply` says). Returns the run folder and its judge step.
 */
export async function judgedRunFolder(
  root: string,
  o: { trials?: number; reply?: (a: JudgeAsk) => string } = {},
): Promise<{ dir: string; step: string; manifest: RunManifest }> {
  const trials = o.trials ?? 2;
  const store = await RunStore.create(root, 'judged');
  const defs: GradableCase[] = [{ id: 'judged', expect: 'atl-jira', exclusive: false, tags: [], decision: DECISION, judge: [JUDGED_ITEM] }];
  const manifest = handMadeManifest(defs, trials, {
    runId: 'judged',
    simulator: { profile: 'sim.yaml', name: 'judged', seed: 1 },
    config: configSchema.parse({ arms: ['skill'], decision: { mode: 'fixed' }, judge: { model: 'judge-model', samples: 1 } }),
  });
  await store.writeManifest(manifest);
  writeFileSync(join(root, 'sim.yaml'), 'name: judged\nseed: 1\nrules: []\n');
  for (let n = 1; n <= trials; n++)
    await storeTrial(
      store,
      { caseId: 'judged', arm: 'skill', n },
      new ClaudeStream().skill('atl-jira').text('done').result().raw(),
      trialMeta(),
    );
  const texts = Array.from({ length: trials }, (_, i) => ({ ref: { caseId: 'judged', arm: 'skill' as const, n: i + 1 }, text: 'done' }));
  const asks = runJudgeAsks(manifest, { judgedTexts: texts });
  const judge = await RunStore.create(join(store.dir, 'judge'), 'step-1');
  const askDefs: GradableCase[] = asks.map((a) => ({
    id: a.id,
    prompt: a.prompt,
    expect: 'none',
    exclusive: false,
    tags: [],
    decision: DECISION,
  }));
  await judge.writeManifest(
    handMadeManifest(askDefs, asks.length, {
      runId: 'step-1',
      model: 'judge-model',
      family: [],
      config: configSchema.parse({ arms: ['ablation'] }),
    }),
  );
  for (const a of asks) {
    const answer = o.reply?.(a) ?? (a.purpose.kind === 'control' && a.purpose.expected === 'no' ? 'NO' : 'YES');
    await storeTrial(
      judge,
      { caseId: a.id, arm: 'ablation', n: 1 },
      new ClaudeStream('/ws', [], []).text(answer).result().raw(),
      trialMeta(),
    );
  }
  return { dir: store.dir, step: judge.dir, manifest };
}
