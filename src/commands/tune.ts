import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { rewriteDescriptionBytes } from '../load/rewrite-description.js';
import { familyHash } from '../load/skills.js';
import type { TunePlanRow } from '../report/tune/plan.js';
import type { Config } from '../run/config-schema.js';
import { readTuneRecord } from '../run/tune-store.js';
import { TUNE_FILE, type TuneRecord } from '../run/tune-schema.js';
import { runTune as driveTune, type PreparedTune, type TuneOptions } from '../runner/tune-driver.js';
import { skillFile } from '../runner/tune-family.js';
import { gradableCase } from '../trials/stored-case.js';
import { refuse, tuneOptions, tuneSplits } from '../tune/options.js';
import type { SplitName } from '../tune/splits.js';
import { plannedTrials } from '../verdict/suite-plan.js';
import { tuneReportInput, writeReports, type ReporterChoice, type ReportIo } from '../runner/reports.js';
import { startNestedRun } from '../runner/pipeline.js';
import { loadSuite, type LoadedSuite } from '../runner/load-suite.js';
import { fromFolder } from '../util/paths.js';

/**
 * `skillprobe tune`: its input checked (prepareTune), its plan (planTune), the loop driven (runner/tune-driver.ts, the
 * decisions in tune/machine.ts) and its report. The only command-level glue of a tune: what needs the run command's
 * loader, planner and reporters.
 */

/** Everything that can be wrong with a tune's input, found before anything is spent. */
export async function prepareTune(o: TuneOptions, need: { run: boolean } = { run: true }): Promise<PreparedTune<LoadedSuite>> {
  const stored = o.resume === undefined ? undefined : await readTuneRecord(o.resume, o.cwd);
  const skillName = stored?.skill ?? o.skill;
  if (skillName === undefined) return refuse('tune', 'no skill named', 'name the skill to tune: `skillprobe tune <skill>`');
  if (stored && o.skill !== undefined && o.skill !== stored.skill)
    refuse('--resume', `the tune being resumed is of ${stored.skill}, not ${o.skill}`, `leave the skill out, or name ${stored.skill}`);
  if (stored?.simulator && o.sim === undefined)
    refuse(
      '--sim',
      `tune ${stored.tuneId} ran against the model simulator (profile ${stored.simulator.profile}), and its resume must too`,
      `add --sim ${stored.simulator.profile}`,
    );
  if (o.drawSeed !== undefined && o.sim === undefined)
    refuse('--draw-seed', "seeds the model simulator's draws, and this tune has no simulator", 'add --sim <profile>, or drop --draw-seed');
  if (stored && o.drawSeed !== undefined && stored.draws?.seed !== o.drawSeed)
    refuse(
      '--draw-seed',
      `tune ${stored.tuneId} draws from seed ${stored.draws?.seed ?? 'none'}, and its resume must too`,
      'drop --draw-seed',
    );
  if (stored?.context !== undefined && o.overrides.context !== undefined && o.overrides.context !== stored.context)
    refuse('--context', `tune ${stored.tuneId} ran its trials in the ${stored.context}, and its resume must too`, 'drop --context');
  const maxCostUsd = o.maxCostUsd ?? stored?.options.maxCostUsd;
  // The cap goes through the suite's checks too: an agent that reports no cost could never be stopped by it.
  const overrides = {
    ...o.overrides,
    ...(stored ? { agent: stored.agent, ...(stored.context ? { context: stored.context } : {}) } : {}),
    ...(maxCostUsd !== undefined ? { maxCostUsd } : {}),
  };
  const loaded = loadSuite({ cwd: o.cwd, config: o.config, sim: o.sim, overrides, callerEnv: o.callerEnv }, { ...need, judge: false });
  const tuned = loaded.skills.find((s) => s.dir === skillName || s.name === skillName);
  if (!tuned)
    return refuse(skillName, 'no skill of that name in the skills folder', `name one of ${loaded.skills.map((s) => s.dir).join(', ')}`);
  // Refused now, not after the proposer has been paid: the file must take a new (plain) description in place.
  rewriteDescriptionBytes(await readFile(skillFile(tuned)), skillFile(tuned), 'A new description.');
  if (stored && stored.original !== tuned.description)
    refuse(skillFile(tuned), 'its description changed since the tune began', 'put the original description back, or start a new tune');
  // Any other edit too: the holdout would compare two versions of the skill, not two descriptions.
  if (stored?.familyHash !== undefined && stored.familyHash !== familyHash(loaded.skills))
    refuse(
      loaded.config.skillsDir,
      'a skill of the family changed since the tune began (a SKILL.md body or another file)',
      'put the skills back as they were, or start a new tune',
    );
  const options = tuneOptions(o, stored, loaded.config.trials);
  const { roles, splits } = tuneSplits(loaded.suite.cases, tuned, options.seed, loaded.suite.files, stored);
  const cases = new Map(
    loaded.suite.cases.map((c) => [
      c.id,
      { ...c, plan: undefined, expect: { skill: c.expect.skill, ...(c.expect.not !== undefined ? { not: c.expect.not } : {}) } },
    ]),
  );
  return { loaded, tuned, cases, roleOf: (id) => roles[id]!, splits, options, stored };
}

/** Runs a tune to its answer, each nested run through the run pipeline. */
export const runTune = (p: PreparedTune<LoadedSuite>, o: TuneOptions, say: (text: string) => void) => driveTune(p, o, say, startNestedRun);

/** Trials a nested run on one split takes: expected and at most. */
const splitTrials = (config: Config, p: PreparedTune, split: SplitName) =>
  plannedTrials(
    config,
    p.splits[split].map((id) => gradableCase(p.cases.get(id)!, config)),
  );

/**
 * What a tune may spend before anything runs, pure: the original on the tune and select cases, each iteration's
 * proposer and its candidate on both, and the holdout for the original and the winner. Expected counts take every
 * case at the rate where its design needs most trials; worst counts take each design's maximum.
 */
export function planTune(p: PreparedTune, evaluate: Config): TunePlanRow[] {
  const tune = splitTrials(evaluate, p, 'tune');
  const select = splitTrials(evaluate, p, 'select');
  const holdout = p.splits.holdout.length * p.options.holdoutTrials;
  const n = p.options.iterations;
  return [
    {
      what: `original on tune (${p.splits.tune.length} cases) and select (${p.splits.select.length})`,
      runs: 1,
      expected: tune.expected + select.expected,
      worst: tune.worst + select.worst,
    },
    { what: 'proposer calls', runs: n, expected: n, worst: n },
    {
      what: 'candidates on tune and select',
      runs: n,
      expected: n * (tune.expected + select.expected),
      worst: n * (tune.worst + select.worst),
    },
    {
      what: `holdout (${p.splits.holdout.length} cases × at most ${p.options.holdoutTrials} trials), original and winner`,
      runs: 2,
      expected: 2 * holdout,
      worst: 2 * holdout,
    },
  ];
}

export const isTuneFolder = (dir: string, cwd: string) => existsSync(join(fromFolder(cwd, dir), TUNE_FILE));

/** Every chosen report of a tune. */
export async function reportTune(
  dir: string,
  record: TuneRecord,
  choices: readonly ReporterChoice[],
  io: ReportIo & { cwd: string },
): Promise<{ failed: string[] }> {
  const input = await tuneReportInput(dir, record, io.cwd);
  return writeReports(choices, (r) => r.renderTune!(input), io);
}
