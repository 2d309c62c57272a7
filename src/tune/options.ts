import type { Case } from '../load/cases.js';
import type { TuneRecord } from '../run/tune-schema.js';
import { InputError } from '../util/input-error.js';
import { HOLDOUT_DESIGN_DEFAULTS } from './holdout-design.js';
import { caseRole, splitCases, splitProblems, type CaseRole, type SplitName } from './splits.js';

/** `holdoutCapPerTrial`: the holdout's cap on trials per case, in multiples of the config's `trials`. */
export const TUNE_DEFAULTS = { iterations: 5, seed: 1, alpha: 0.05, holdoutCapPerTrial: 2 } as const;
/** The description's limit in the Agent Skills spec. */
export const MAX_DESCRIPTION = 1024;

/** What the user chose for a tune's design (flags); a resume takes the rest from its tune.json. */
export interface TuneChoices {
  iterations?: number;
  holdoutTrials?: number;
  maxCostUsd?: number;
  pricePerTrial?: number;
  seed?: number;
  alpha?: number;
  /** `--gain`: the recall gain the holdout is designed to prove or rule out. */
  gain?: number;
}

export const refuse = (file: string, what: string, todo: string): never => {
  throw new InputError({ file, what, todo });
};

/** The tune's options: the flags over the defaults, or on a resume the stored ones with what a resume may change. Pure. */
export function tuneOptions(o: TuneChoices, stored: TuneRecord | undefined, configTrials: number): TuneRecord['options'] {
  const options: TuneRecord['options'] = stored
    ? { ...stored.options, ...(o.maxCostUsd !== undefined ? { maxCostUsd: o.maxCostUsd } : {}), ...raisedCap(stored, o) }
    : {
        seed: o.seed ?? TUNE_DEFAULTS.seed,
        iterations: o.iterations ?? TUNE_DEFAULTS.iterations,
        holdoutTrials: o.holdoutTrials ?? TUNE_DEFAULTS.holdoutCapPerTrial * configTrials,
        alpha: o.alpha ?? TUNE_DEFAULTS.alpha,
        gain: o.gain ?? HOLDOUT_DESIGN_DEFAULTS.gain,
        ...(o.maxCostUsd !== undefined ? { maxCostUsd: o.maxCostUsd } : {}),
      };
  capProblem(options.maxCostUsd, o.pricePerTrial, stored);
  return options;
}

/**
 * A resume's `--holdout-trials`: a higher cap goes on sampling the holdout where the last cap stopped it (the
 * sequential test's error holds whatever the cap), a lower one is refused; `--gain` must be the tune's own.
 */
function raisedCap(stored: TuneRecord, o: TuneChoices): Partial<TuneRecord['options']> {
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

/**
 * Each case's role and split, seen from the tuned skill (`skill`: its folder; `name`: its frontmatter name, which a
 * case may use too). Refused: splits too small to say anything, and on a resume, splits that differ from the stored.
 */
export function tuneSplits(
  cases: readonly Case[],
  skill: { dir: string; name: string },
  seed: number,
  files: readonly string[],
  stored: TuneRecord | undefined,
): { roles: Record<string, CaseRole>; splits: Record<SplitName, string[]> } {
  const asDir = (name: string) => (name === skill.name ? skill.dir : name);
  const not = (c: Case) => (c.expect.not !== undefined ? { not: asDir(c.expect.not) } : {});
  const roles = Object.fromEntries(cases.map((c) => [c.id, caseRole(asDir(c.expect.skill), skill.dir, not(c).not)]));
  const splitInput = cases.map((c) => ({
    id: c.id,
    expects: asDir(c.expect.skill),
    ...not(c),
    trap: c.against !== undefined || c.tags.includes('trap') || c.tags.includes('near-miss'),
    ...(c.split ? { pinned: c.split } : {}),
  }));
  const splits = splitCases(splitInput, skill.dir, seed);
  const problems = splitProblems(splits, splitInput, skill.dir);
  if (problems.length)
    throw new InputError(
      problems.map((text) => {
        const [, what, todo] = /^(.*?): (add .*)$/.exec(text) ?? [text, text, 'add cases, or pin cases to splits with `split:`'];
        return { file: files.join(', '), what: what!, todo: todo! };
      }),
    );
  if (stored && JSON.stringify(stored.splits) !== JSON.stringify(splits))
    refuse(
      '--resume',
      "the suite's cases changed since the tune began, so its splits would too",
      'resume with the cases it began with, or start a new tune',
    );
  return { roles, splits };
}
