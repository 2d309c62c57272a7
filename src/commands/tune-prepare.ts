import { readFile } from 'node:fs/promises';
import { InputError } from '../util/input-error.js';
import { rewriteDescriptionBytes } from '../load/rewrite-description.js';
import type { Case } from '../load/cases.js';
import { familyHash, type Skill } from '../load/skills.js';
import type { Config } from '../run/config-schema.js';
import { readTuneRecord } from '../run/tune-store.js';
import type { TuneRecord } from '../run/tune-schema.js';
import type { RunPlace } from '../runner/execute.js';
import { HOLDOUT_DESIGN_DEFAULTS } from '../tune/holdout-design.js';
import { caseRole, splitCases, splitProblems, type CaseRole, type SplitName } from '../tune/splits.js';
import { loadSuite, type LoadedSuite } from './run.js';
import { skillFile } from './tune-family.js';

export interface TuneOptions {
  /** The skill's folder or frontmatter name; read from tune.json on a resume. */
  skill?: string;
  config?: string;
  sim?: string;
  overrides: Partial<Record<keyof Config, unknown>>;
  proposerModel?: string;
  iterations?: number;
  holdoutTrials?: number;
  maxCostUsd?: number;
  pricePerTrial?: number;
  seed?: number;
  /** `--draw-seed`: the seed the tune's steps derive their simulator draws from. */
  drawSeed?: number;
  alpha?: number;
  /** `--gain`: the recall gain the holdout is designed to prove or rule out. */
  gain?: number;
  resume?: string;
  /** Where sealed workspaces are made (the system temp folder by default). */
  workdir?: string;
  callerEnv: NodeJS.ProcessEnv;
  stderr: NonNullable<RunPlace['stderr']>;
}

/** `holdoutCapPerTrial`: the holdout's cap on trials per case, in multiples of the config's `trials`. */
export const TUNE_DEFAULTS = { iterations: 5, seed: 1, alpha: 0.05, holdoutCapPerTrial: 2 } as const;
/** The description's limit in the Agent Skills spec. */
export const MAX_DESCRIPTION = 1024;

/** A tune ready to run: every input checked, nothing spent. */
export interface PreparedTune {
  loaded: LoadedSuite;
  tuned: Skill;
  /** Each case as a tune scores it: triggering only (plan checks and judged items belong to the skill's body, not its description). */
  cases: Map<string, Case>;
  roleOf: (caseId: string) => CaseRole;
  splits: Record<SplitName, string[]>;
  options: TuneRecord['options'];
  stored?: TuneRecord;
}

const refuse = (file: string, what: string, todo: string): never => {
  throw new InputError({ file, what, todo });
};

/** Everything that can be wrong with a tune's input, found before anything is spent. */
export async function prepareTune(o: TuneOptions, need: { run: boolean } = { run: true }): Promise<PreparedTune> {
  const stored = o.resume === undefined ? undefined : await readTuneRecord(o.resume);
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
  const maxCostUsd = o.maxCostUsd ?? stored?.options.maxCostUsd;
  // The cap goes through the suite's checks too: an agent that reports no cost could never be stopped by it.
  const overrides = { ...o.overrides, ...(stored ? { agent: stored.agent } : {}), ...(maxCostUsd !== undefined ? { maxCostUsd } : {}) };
  const loaded = loadSuite({ config: o.config, sim: o.sim, overrides, callerEnv: o.callerEnv }, { ...need, judge: false });
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
  const options: TuneRecord['options'] = stored
    ? { ...stored.options, ...(o.maxCostUsd !== undefined ? { maxCostUsd: o.maxCostUsd } : {}), ...raisedCap(stored, o) }
    : {
        seed: o.seed ?? TUNE_DEFAULTS.seed,
        iterations: o.iterations ?? TUNE_DEFAULTS.iterations,
        holdoutTrials: o.holdoutTrials ?? TUNE_DEFAULTS.holdoutCapPerTrial * loaded.config.trials,
        alpha: o.alpha ?? TUNE_DEFAULTS.alpha,
        gain: o.gain ?? HOLDOUT_DESIGN_DEFAULTS.gain,
        ...(o.maxCostUsd !== undefined ? { maxCostUsd: o.maxCostUsd } : {}),
      };
  capProblem(options.maxCostUsd, o.pricePerTrial, stored);
  const asDir = (skill: string) => (skill === tuned.name ? tuned.dir : skill);
  const expects = (c: Case) => asDir(c.expect.skill);
  const forbids = (c: Case) => (c.expect.not !== undefined ? { not: asDir(c.expect.not) } : {});
  const roles = new Map(loaded.suite.cases.map((c) => [c.id, caseRole(expects(c), tuned.dir, forbids(c).not)]));
  const splitInput = loaded.suite.cases.map((c) => ({
    id: c.id,
    expects: expects(c),
    ...forbids(c),
    trap: c.against !== undefined || c.tags.includes('trap') || c.tags.includes('near-miss'),
    ...(c.split ? { pinned: c.split } : {}),
  }));
  const splits = splitCases(splitInput, tuned.dir, options.seed);
  const problems = splitProblems(splits, splitInput, tuned.dir);
  if (problems.length)
    throw new InputError(
      problems.map((text) => {
        const [, what, todo] = /^(.*?): (add .*)$/.exec(text) ?? [text, text, 'add cases, or pin cases to splits with `split:`'];
        return { file: loaded.suite.files.join(', '), what: what!, todo: todo! };
      }),
    );
  if (stored && JSON.stringify(stored.splits) !== JSON.stringify(splits))
    refuse(
      '--resume',
      "the suite's cases changed since the tune began, so its splits would too",
      'resume with the cases it began with, or start a new tune',
    );
  const cases = new Map(
    loaded.suite.cases.map((c) => [
      c.id,
      { ...c, plan: undefined, expect: { skill: c.expect.skill, ...(c.expect.not !== undefined ? { not: c.expect.not } : {}) } },
    ]),
  );
  return { loaded, tuned, cases, roleOf: (id) => roles.get(id)!, splits, options, stored };
}

/**
 * A resume's `--holdout-trials`: a higher cap goes on sampling the holdout where the last cap stopped it (the
 * sequential test's error holds whatever the cap), a lower one is refused; `--gain` must be the tune's own.
 */
function raisedCap(stored: TuneRecord, o: TuneOptions): Partial<TuneRecord['options']> {
  const gain = stored.options.gain ?? HOLDOUT_DESIGN_DEFAULTS.gain;
  if (o.gain !== undefined && o.gain !== gain)
    refuse('--gain', `tune ${stored.tuneId} was designed for a gain of ${gain}, and its resume must be too`, 'drop --gain');
  const cap = o.holdoutTrials;
  if (cap === undefined || cap === stored.options.holdoutTrials) return {};
  if (cap < stored.options.holdoutTrials)
    refuse(
      '--holdout-trials',
      `tune ${stored.tuneId} may already have run ${stored.options.holdoutTrials} holdout trials per case: a resume can only raise it`,
      `pass more than ${stored.options.holdoutTrials}, or drop --holdout-trials`,
    );
  return { holdoutTrials: cap, holdoutCapsBefore: [...(stored.options.holdoutCapsBefore ?? []), stored.options.holdoutTrials] };
}

/**
 * A cap that pays for no further trial: below the price per trial the user gave, or, on a resume, below what is left
 * after what the tune spent, at the mean cost of its trials so far.
 */
function capProblem(cap: number | undefined, pricePerTrial: number | undefined, stored: TuneRecord | undefined): void {
  if (cap === undefined) return;
  const spent = stored?.costUsd ?? 0;
  const price = pricePerTrial ?? (stored?.costUsd !== undefined && stored.trials > 0 ? stored.costUsd / stored.trials : undefined);
  if (price === undefined || cap - spent >= price) return;
  const at = `${price.toFixed(4)} USD a trial${pricePerTrial === undefined ? ' (the mean so far)' : ''}`;
  refuse(
    '--max-cost',
    spent > 0
      ? `${cap} USD leaves ${(cap - spent).toFixed(4)} USD after the ${spent.toFixed(4)} USD spent: no trial at ${at}`
      : `${cap} USD pays for no trial at ${at}`,
    'raise --max-cost, or drop it',
  );
}
