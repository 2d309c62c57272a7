import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { trialKey } from '../src/run/schema.js';
import { RunStore } from '../src/run/store.js';
import { onlyRun, resultsOf } from './e2e-scenarios.js';
import { cleanup, makeProject, runInProcess, skillMd } from './helpers.js';

/**
 * The run's pipeline, in process through the real Claude Code CLI against the simulator: a judged run reads each
 * stored trial once, its own and its judge's. The judge's requests are built from the trials as read after they ran,
 * the grades applied to that same read, and the judge's nested run hands its answers back from its own single read.
 */

const ITEM = 'Does the plan say to run it yourself?';
const files = {
  'skills/cleanup/SKILL.md': skillMd(
    'cleanup',
    'Remove old build folders and caches.',
    'Plan one call and show it in a bash block:\n\n```bash\ncleanup --dry-run $ARGUMENTS\n```\n',
  ),
  'cases/main.yaml': `- id: plans-call\n  prompt: "Remove the old build folders."\n  expect:\n    skill: cleanup\n    judge:\n      - "${ITEM}"\n`,
  'sim.yaml': 'name: judged\nseed: 3\nrules:\n  - { prompt: "build folders", do: [{ skill: cleanup, args: "build/" }] }\n',
  'skillprobe.config.yaml': 'arms: [skill]\ndecision: { mode: fixed }\ntrials: 1\njudge: { model: sim-judge, samples: 1 }\n',
};

describe('pipeline: a judged run reads the run folder once', () => {
  const project = makeProject(files);
  const workdir = mkdtempSync(join(tmpdir(), 'sp-work-'));
  afterAll(() => cleanup(project, workdir));

  it('each trial file, of the run and of its judge step, is read exactly once; the judged result is unchanged', async () => {
    const reads = new Map<string, number>();
    const readTrial = RunStore.prototype.readTrial;
    const spy = vi.spyOn(RunStore.prototype, 'readTrial').mockImplementation(function (this: RunStore, ref) {
      const key = `${relative(project, this.dir)} ${trialKey(ref)}`;
      reads.set(key, (reads.get(key) ?? 0) + 1);
      return readTrial.call(this, ref);
    });
    try {
      const r = await runInProcess(['run', '--sim', 'sim.yaml', '--transcripts', 'runs', '--workdir', workdir], { cwd: project });
      expect(r.stderr).toMatch(/judge: claude-code sim-judge asks 4 requests \(0 answered before\), 1 samples each: 4 judge trials/);
      // One trial a case decides nothing: INCONCLUSIVE.
      expect(r.exitCode).toBe(3);
    } finally {
      spy.mockRestore();
    }
    const dir = onlyRun(project);
    const results = resultsOf(dir);
    expect(results.judge).toMatchObject({ calibrated: true, requests: 4, unanswered: 0 });
    expect(results.outcomes.map((o) => [o.caseId, o.judge?.items.map((i) => i.verdict)])).toEqual([['plans-call', ['yes']]]);
    const [step] = readdirSync(join(dir, 'judge'));
    const runDir = relative(project, dir);
    const stepDir = join(runDir, 'judge', step!);
    // The run's one trial, and the judge step's four: one read each.
    expect([...reads].sort()).toEqual(
      [
        [`${runDir} plans-call/skill/1`, 1],
        ...resultsOf(join(dir, 'judge', step!)).outcomes.map((o) => [`${stepDir} ${trialKey(o)}`, 1] as [string, number]),
      ].sort(),
    );
    expect(reads.size).toBe(5);
  }, 240_000);
});
