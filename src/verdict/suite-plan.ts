import type { Config } from '../run/config-schema.js';
import { bestBetaAt, fixedNEquivalent } from '../stats/binomial-test.js';
import { caseDesign, caseDesignKind } from '../stats/case-design.js';
import { decisionMode } from '../stats/decision-modes/registry.js';
import { designOperating, exactErrors, worstExpectedTrials } from '../stats/sequential-design.js';
import { armsFor } from '../trials/schedule.js';
import type { GradableCase, SprtParams, StoredDesign } from '../run/schema.js';

/** A user's maxTrials below the design's maximum: what it costs in decisions, and what any test could do there. */
export interface CapShortfall {
  cap: number;
  designMax: number;
  /** Chance a case ends INCONCLUSIVE at the cap, when its true rate is p0 and when it is p1. */
  undecidedAtP0: number;
  undecidedAtP1: number;
  /** The smallest β any test of `cap` trials reaches while holding α (Neyman–Pearson's randomised test at the cap). */
  bestBetaAtCap: number;
}

export interface CasePlan {
  caseId: string;
  params: SprtParams;
  design: Pick<StoredDesign, 'kind' | 'maxTrials'>;
  /** Exact error rates of the design as it will run (with any cap). */
  alpha: number;
  beta: number;
  /** Expected scored trials when the true rate is p0, p1, and at the rate between them where it is largest (exact). */
  asnAtP0: number;
  asnAtP1: number;
  worst: { p: number; expectedTrials: number };
  inconclusiveAtP0: number;
  inconclusiveAtP1: number;
  capped?: CapShortfall;
  /** The smallest fixed N with the same α and β. */
  fixedN?: number;
  /** Trials per case in this config's fixed mode. */
  configuredFixed: number;
  /** Arms this case runs in (the ablation arm only where it scores, unless `ablation: always`). */
  arms: number;
}

export interface SuitePlan {
  mode: Config['decision']['mode'];
  cases: CasePlan[];
  /** The judge's share, when cases have `expect.judge` items. */
  judge?: JudgePlan;
}

/** What the judge will be asked: each judged trial's items and the controls, each `samples` times. */
export interface JudgePlan {
  samples: number;
  /** Items per judged trial, summed over the judged cases' worst expected trials (the trial count the table prices). */
  trialItems: number;
  /** Controls and examples: per item an empty answer and an injection, the item reworded (and reordered, with two items or more). */
  controls: number;
  /** Judge trials in all: (trial items + controls) × samples. */
  trials: number;
}

/** The judge's expected requests, from each judged case's trials (`trialsOf`) and its rubric. */
export function judgePlan(config: Config, cases: readonly GradableCase[], trialsOf: (c: GradableCase) => number): JudgePlan | undefined {
  const judged = cases.filter((c) => c.judge?.length);
  if (!judged.length) return undefined;
  const samples = config.judge?.samples ?? 3;
  const trialItems = judged.reduce((sum, c) => sum + trialsOf(c) * c.judge!.length, 0);
  const controls =
    judged.reduce((sum, c) => sum + c.judge!.length * (c.judge!.length > 1 ? 4 : 3), 0) + (config.judge?.calibration.length ?? 0);
  return { samples, trialItems, controls, trials: (trialItems + controls) * samples };
}

/** Pure: the expected cost of a suite before any trial runs. */
export function planSuite(config: Config, cases: GradableCase[]): SuitePlan {
  const mode = decisionMode(config.decision.mode);
  const judge = judgePlan(
    config,
    cases,
    (c) =>
      (mode.sequential ? worstExpectedTrials(caseDesign(c)).expectedTrials : config.trials) *
      armsFor(c, config.arms, config.ablation).length,
  );
  return {
    mode: config.decision.mode,
    ...(judge ? { judge } : {}),
    cases: cases.map((c) => {
      const p = c.decision;
      const design = caseDesign(c);
      const designMax = c.design?.maxTrials ?? design.maxTrials;
      const at0 = designOperating(design, design.p0);
      const at1 = designOperating(design, design.p1);
      const errors = exactErrors(design);
      return {
        caseId: c.id,
        params: p,
        design: { kind: caseDesignKind(c).kind, maxTrials: designMax },
        alpha: errors.alpha,
        beta: errors.beta,
        asnAtP0: at0.expectedTrials,
        asnAtP1: at1.expectedTrials,
        worst: worstExpectedTrials(design),
        inconclusiveAtP0: at0.undecided,
        inconclusiveAtP1: at1.undecided,
        ...(p.maxTrials < designMax
          ? {
              capped: {
                cap: p.maxTrials,
                designMax,
                undecidedAtP0: at0.undecided,
                undecidedAtP1: at1.undecided,
                bestBetaAtCap: bestBetaAt(p.maxTrials, p.threshold, p.threshold - p.delta, p.alpha),
              },
            }
          : {}),
        fixedN: fixedNEquivalent(p.threshold, p.threshold - p.delta, p.alpha, p.beta),
        configuredFixed: config.trials,
        arms: armsFor(c, config.arms, config.ablation).length,
      };
    }),
  };
}

/**
 * Trials a suite's runs take, summed over its cases: expected (each case at the rate where its design needs most),
 * and at most (each design's maximum, or the fixed count).
 */
export function plannedTrials(config: Config, cases: GradableCase[]): { expected: number; worst: number } {
  const plan = planSuite(config, cases);
  const sequential = decisionMode(plan.mode).sequential;
  return plan.cases.reduce(
    (sum, c) => ({
      expected: sum.expected + (sequential ? c.worst.expectedTrials : c.configuredFixed),
      worst: sum.worst + (sequential ? Math.min(c.design.maxTrials, c.params.maxTrials) : c.configuredFixed),
    }),
    { expected: 0, worst: 0 },
  );
}
