import type { GradableCase } from '../grade/outcome.js';
import type { Config } from '../load/config.js';
import { fmt, table } from '../report/format.js';
import { fixedNEquivalent } from '../stats/binomial-test.js';
import { operatingCharacteristics, type SprtParams } from '../stats/sprt.js';

export interface CasePlan {
  caseId: string;
  params: SprtParams;
  /** Expected scored trials under SPRT when the true rate is p0, and when it is p1 (exact, truncated test). */
  asnAtP0: number;
  asnAtP1: number;
  inconclusiveAtP0: number;
  inconclusiveAtP1: number;
  /** The smallest fixed N with the same α and β. */
  fixedN?: number;
  /** Trials per case in this config's fixed mode. */
  configuredFixed: number;
}

export interface SuitePlan {
  mode: Config['decision']['mode'];
  arms: number;
  cases: CasePlan[];
}

/** Pure: the expected cost of a suite before any trial runs. */
export function planSuite(config: Config, cases: GradableCase[]): SuitePlan {
  return {
    mode: config.decision.mode,
    arms: config.arms.length,
    cases: cases.map((c) => {
      const p = c.decision;
      const at0 = operatingCharacteristics(p.threshold, p);
      const at1 = operatingCharacteristics(p.threshold - p.delta, p);
      return {
        caseId: c.id,
        params: p,
        asnAtP0: at0.expectedTrials,
        asnAtP1: at1.expectedTrials,
        inconclusiveAtP0: at0.undecided,
        inconclusiveAtP1: at1.undecided,
        fixedN: fixedNEquivalent(p.threshold, p.threshold - p.delta, p.alpha, p.beta),
        configuredFixed: config.trials,
      };
    }),
  };
}

export function renderPlan(plan: SuitePlan, pricePerTrial?: number): string {
  const cost = (trials: number) => (pricePerTrial === undefined ? '—' : `$${(trials * plan.arms * pricePerTrial).toFixed(2)}`);
  const rows = plan.cases.map((c) => [
    c.caseId,
    `${fmt(c.params.threshold)} vs ${fmt(c.params.threshold - c.params.delta)}`,
    `${c.params.alpha}/${c.params.beta}`,
    `${c.params.minTrials}–${c.params.maxTrials}`,
    fmt(c.asnAtP0, 1),
    fmt(c.asnAtP1, 1),
    `${fmt(c.inconclusiveAtP0 * 100, 0)}%/${fmt(c.inconclusiveAtP1 * 100, 0)}%`,
    c.fixedN === undefined ? '>5000' : String(c.fixedN),
    cost(Math.max(c.asnAtP0, c.asnAtP1)),
    cost(c.fixedN ?? Number.NaN),
  ]);
  const sum = (f: (c: CasePlan) => number) => plan.cases.reduce((s, c) => s + f(c), 0);
  const worstSprt = sum((c) => Math.max(c.asnAtP0, c.asnAtP1));
  const fixed = sum((c) => c.fixedN ?? Number.NaN);
  const lines = [
    `plan · mode ${plan.mode} · ${plan.cases.length} cases × ${plan.arms} arm(s)${pricePerTrial === undefined ? ' · pass --price-per-trial for costs' : ` · $${pricePerTrial} per trial`}`,
    'expected trials per case (exact, for the truncated test) when the true pass rate is p0 and when it is p1',
    '',
    table(
      [['case', 'p0 vs p1', 'α/β', 'min–max', 'SPRT @p0', 'SPRT @p1', 'inconcl. @p0/@p1', 'fixed N', 'SPRT cost (worse)', 'fixed-N cost'], ...rows],
      ['l', 'l', 'l', 'l', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
    '',
    `suite: SPRT at most ~${fmt(worstSprt, 0)} expected trials per arm (the worse of p0 and p1 per case) vs ${fmt(fixed, 0)} for fixed N with the same α and β` +
      (plan.mode === 'fixed' ? `; this config's fixed mode runs ${plan.cases.length * (plan.cases[0]?.configuredFixed ?? 0)} per arm` : ''),
    `total: SPRT ${cost(worstSprt)} vs fixed N ${cost(fixed)}`,
  ];
  return lines.join('\n') + '\n';
}
