import type { Config } from '../run/config-schema.js';
import { fmt, paragraph, REPORT_WIDTH, table } from '../report/format.js';
import { bestBetaAt, FIXED_N_LIMIT, fixedNEquivalent } from '../stats/binomial-test.js';
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

const pct = (x: number) => `${fmt(x * 100, 0)}%`;

/**
 * One line per case whose maxTrials cuts its design short: said before anything is spent, with the error rates a
 * test capped there could reach instead.
 */
export function capWarnings(plan: SuitePlan): string[] {
  return plan.cases.flatMap((c) => {
    const s = c.capped;
    if (!s || !decisionMode(plan.mode).sequential) return [];
    const best =
      s.bestBetaAtCap >= 1
        ? `no test of ${s.cap} trials can FAIL a case at α ${c.params.alpha}`
        : `no test of ${s.cap} trials holds α ${c.params.alpha} with β below ${fmt(s.bestBetaAtCap, 2)}`;
    return [
      `case ${c.caseId}: maxTrials ${s.cap} is below the ${s.designMax} by which its design decides: it ends INCONCLUSIVE with chance ${pct(s.undecidedAtP0)} at p0 and ${pct(s.undecidedAtP1)} at p1; ${best} (nominal β ${c.params.beta}). Remove maxTrials, or raise it to ${s.designMax}, to decide every case at the nominal error rates.`,
    ];
  });
}

export function renderPlan(plan: SuitePlan, pricePerTrial?: number): string {
  const price = (trials: number) => (pricePerTrial === undefined ? '—' : `$${(trials * pricePerTrial).toFixed(2)}`);
  // A case's trials run in each of its arms: the ablation arm only where it scores.
  const worstSequential = (c: CasePlan) => c.worst.expectedTrials * c.arms;
  // Beyond the search limit a case has no fixed N: it counts as the limit, and totals become lower bounds.
  const fixedOf = (c: CasePlan) => (c.fixedN ?? FIXED_N_LIMIT) * c.arms;
  const beyond = plan.cases.some((c) => c.fixedN === undefined) ? '≥ ' : '';
  const designRows = plan.cases.map((c) => [
    c.caseId,
    `${fmt(c.params.threshold)} vs ${fmt(c.params.threshold - c.params.delta)}`,
    `${c.params.alpha}/${c.params.beta}`,
    `${fmt(c.alpha, 3)}/${fmt(c.beta, 3)}`,
    `${c.params.minTrials}–${c.params.maxTrials}${c.capped ? ` (of ${c.capped.designMax})` : ''}`,
    String(c.arms),
  ]);
  const trialRows = plan.cases.map((c) => [
    c.caseId,
    fmt(c.asnAtP0, 1),
    fmt(c.asnAtP1, 1),
    `${fmt(c.worst.expectedTrials, 1)} @${fmt(c.worst.p, 2)}`,
    `${pct(c.inconclusiveAtP0)}/${pct(c.inconclusiveAtP1)}`,
    c.fixedN === undefined ? `>${FIXED_N_LIMIT}` : String(c.fixedN),
    price(worstSequential(c)),
    c.fixedN === undefined && pricePerTrial !== undefined ? `>${price(fixedOf(c))}` : price(fixedOf(c)),
  ]);
  const sum = (f: (c: CasePlan) => number) => plan.cases.reduce((s, c) => s + f(c), 0);
  const sequentialTotal = sum(worstSequential);
  const fixedTotal = sum(fixedOf);
  const configured = sum((c) => c.configuredFixed * c.arms);
  const mode = decisionMode(plan.mode);
  const test = mode.design.names.plan;
  const warnings = capWarnings(plan);
  // Two tables, so each fits the report's width: the design per case, then what it is expected to take.
  const fit = (rows: string[][], align: ('l' | 'r')[]) => table(rows, align, { maxWidth: REPORT_WIDTH, wrap: ['id'] });
  const priced = pricePerTrial === undefined ? 'pass --price-per-trial for costs' : `$${pricePerTrial} per trial`;
  const lines = [
    paragraph(`plan · mode ${plan.mode} · ${plan.cases.length} cases · ${sum((c) => c.arms)} case-arms · ${priced}`),
    '',
    paragraph(
      `the design per case: p0 against p1, α/β as asked and exact as the design will run under ${test}, its trials (min–max), its arms`,
    ),
    fit([['case', 'p0 vs p1', 'α/β asked', 'α/β exact', 'min–max', 'arms'], ...designRows], ['l', 'l', 'l', 'l', 'l', 'r']),
    '',
    paragraph(
      'expected trials per case and arm (exact, by dynamic programming over its boundaries) when the true pass rate is p0, p1, and ' +
        'the rate between them where it is largest; the chance of ending INCONCLUSIVE; the smallest fixed N with the same α and β; the costs',
    ),
    fit(
      [['case', 'E[n]\n@p0', 'E[n]\n@p1', 'E[n]\nworst', 'inconcl.\n@p0/@p1', 'fixed\nN', 'cost\n(worst)', 'fixed-N\ncost'], ...trialRows],
      ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
    '',
    paragraph(
      `suite: ${test} at most ~${fmt(sequentialTotal, 0)} expected trials in all arms (each case at its worst rate) ` +
        `vs ${beyond}${fmt(fixedTotal, 0)} for fixed N with the same α and β` +
        (mode.sequential ? '' : `; this config's ${plan.mode} mode runs ${configured}`),
    ),
    paragraph(`total: sequential ${price(sequentialTotal)} vs fixed N ${beyond}${price(fixedTotal)}`),
    ...(plan.judge
      ? [
          paragraph(
            `judge: ~${fmt(plan.judge.trials, 0)} judge trials beside them (${fmt(plan.judge.trialItems, 0)} judged items of those trials ` +
              `and ${plan.judge.controls} controls and examples, ${plan.judge.samples} samples each) · ${price(plan.judge.trials)}` +
              (pricePerTrial === undefined ? '' : ' at the same price per trial (a judge trial is one short answer: usually less)'),
          ),
        ]
      : []),
    ...(warnings.length ? ['', ...warnings.map((w) => paragraph(`warning: ${w}`))] : []),
  ];
  return lines.join('\n') + '\n';
}
