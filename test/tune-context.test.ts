import { describe, expect, it } from 'vitest';
import { prepareTune } from '../src/commands/tune.js';
import type { Context } from '../src/run/config-schema.js';
import { startingRecord, stepConfigs, type TuneOptions } from '../src/runner/tune-driver.js';
import { gradableCase } from '../src/trials/stored-case.js';
import { Captured, projectsRemovedAfterAll, testEnv } from './helpers.js';
import { MISSING_CLASS, tuneProject } from './tune-fixture.js';

/**
 * `tune --context field`: every nested run that measures a description (each candidate on the tune and select cases,
 * the original and the winner on the holdout) runs its cases in the context asked for, as its run folder stores them
 * and its trials are started with (`contextOf` of the case under the step's config); the tune record says which.
 */
describe('tune in a context', () => {
  const project = projectsRemovedAfterAll(() => tuneProject(MISSING_CLASS));

  /** The tune prepared in the project's folder, as `skillprobe tune csv-report --sim sim.yaml [--context C]` would. */
  const prepared = async (context: Context | undefined) => {
    const dir = project();
    const o: TuneOptions = {
      cwd: dir,
      skill: 'csv-report',
      sim: 'sim.yaml',
      overrides: { context },
      callerEnv: testEnv(),
      stderr: new Captured(),
    };
    // The suite's files are opened relative to the working folder, as the installed CLI opens them.
    return { o, p: await prepareTune(o, { run: false }) };
  };

  it.each<[Context | undefined, Context]>([
    ['field', 'field'],
    ['lab', 'lab'],
    [undefined, 'lab'],
  ])('--context %s: every measured case of every step in the %s, and the record says so', async (asked, where) => {
    const { o, p } = await prepared(asked);
    const configs = stepConfigs(p.loaded.config, o, p.options.holdoutTrials);
    const contextsOf = (config: typeof configs.evaluate, ids: readonly string[]) =>
      ids.map((id) => gradableCase(p.cases.get(id)!, config).context ?? 'lab');
    const steps = [
      ...contextsOf(configs.evaluate, p.splits.tune),
      ...contextsOf(configs.evaluate, p.splits.select),
      ...contextsOf(configs.holdout, p.splits.holdout),
    ];
    expect(steps.length).toBe(p.cases.size);
    expect(new Set(steps)).toEqual(new Set([where]));
    expect(startingRecord(p, o, 'transcripts/tune-x').context).toBe(where);
  });
});
