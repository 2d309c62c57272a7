import type { Config } from '../run/config-schema.js';
import { fmt, table } from '../report/format.js';
import { FIXED_N_LIMIT, fixedNEquivalent } from '../stats/binomial-test.js';
import { operatingCharacteristics } from '../stats/sprt.js';
import { armsFor } from '../trials/schedule.js';
import type { GradableCase, SprtParams } from '../run/schema.js';

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
  /** Arms this case runs in (the ablation arm only where it scores, unless `ablation: always`). */
  arms: number;
}

export interface SuitePlan {
  mode: Config['decision']['mode'];
  cases: CasePlan[];
}

/** Pure: the expected cost of a suite before any trial runs. */
export function planSuite(config: Config, cases: GradableCase[]): SuitePlan {
  return {
    mode: config.decision.mode,
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
        arms: armsFor(c, config.arms, config.ablation).length,
      };
    }),
  };
}

export function renderPlan(plan: SuitePlan, pricePerTrial?: number): string {
  const price = (trials: number) => (pricePerTrial === undefined ? '—' : `$${(trials * pricePerTrial).toFixed(2)}`);
  // A case's trials run in each of its arms: the ablation arm only where it scores.
  const worstSprt = (c: CasePlan) => Math.max(c.asnAtP0, c.asnAtP1) * c.arms;
  // Beyond the search limit a case has no fixed N: it counts as the limit, and totals become lower bounds.
  const fixedOf = (c: CasePlan) => (c.fixedN ?? FIXED_N_LIMIT) * c.arms;
  const beyond = plan.cases.some((c) => c.fixedN === undefined) ? '≥ ' : '';
  const rows = plan.cases.map((c) => [
    c.caseId,
    `${fmt(c.params.threshold)} vs ${fmt(c.params.threshold - c.params.delta)}`,
    `${c.params.alpha}/${c.params.beta}`,
    `${c.params.minTrials}–${c.params.maxTrials}`,
    String(c.arms),
    fmt(c.asnAtP0, 1),
    fmt(c.asnAtP1, 1),
    `${fmt(c.inconclusiveAtP0 * 100, 0)}%/${fmt(c.inconclusiveAtP1 * 100, 0)}%`,
    c.fixedN === undefined ? `>${FIXED_N_LIMIT}` : String(c.fixedN),
    price(worstSprt(c)),
    c.fixedN === undefined && pricePerTrial !== undefined ? `>${price(fixedOf(c))}` : price(fixedOf(c)),
  ]);
  const sum = (f: (c: CasePlan) => number) => plan.cases.reduce((s, c) => s + f(c), 0);
  const sprtTotal = sum(worstSprt);
  const fixedTotal = sum(fixedOf);
  const configured = sum((c) => c.configuredFixed * c.arms);
  const lines = [
    `plan · mode ${plan.mode} · ${plan.cases.length} cases · ${sum((c) => c.arms)} case-arms${pricePerTrial === undefined ? ' · pass --price-per-trial for costs' : ` · $${pricePerTrial} per trial`}`,
    'expected trials per case and arm (exact, for the truncated test) when the true pass rate is p0 and when it is p1',
    '',
    table(
      [['case', 'p0 vs p1', 'α/β', 'min–max', 'arms', 'SPRT @p0', 'SPRT @p1', 'inconcl. @p0/@p1', 'fixed N', 'SPRT cost (worse)', 'fixed-N cost'], ...rows],
      ['l', 'l', 'l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
    '',
    `suite: SPRT at most ~${fmt(sprtTotal, 0)} expected trials in all arms (the worse of p0 and p1 per case) vs ${beyond}${fmt(fixedTotal, 0)} for fixed N with the same α and β` +
      (plan.mode === 'fixed' ? `; this config's fixed mode runs ${configured}` : ''),
    `total: SPRT ${price(sprtTotal)} vs fixed N ${beyond}${price(fixedTotal)}`,
  ];
  return lines.join('\n') + '\n';
}
