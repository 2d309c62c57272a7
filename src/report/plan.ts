import { fmt, paragraph, REPORT_WIDTH, table } from './format.js';
import { FIXED_N_LIMIT } from '../stats/binomial-test.js';
import { decisionMode } from '../stats/decision-modes/registry.js';
import type { CasePlan, SuitePlan } from '../verdict/suite-plan.js';
import type { Auth } from '../run/config-schema.js';

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

export function renderPlan(plan: SuitePlan, pricePerTrial?: number, auth: Auth = 'key'): string {
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
    // A login spends no dollars: what a run takes of the subscription's quota is its trials (and their requests).
    ...(auth === 'login'
      ? [
          paragraph(
            `subscription login: the plan's quota pays, in trials: at most ${mode.sequential ? sum((c) => c.params.maxTrials * c.arms) : configured} in all arms ` +
              `(each case at its design's maximum), ~${fmt(mode.sequential ? sequentialTotal : configured, 0)} expected; --max-trials N caps each case's`,
          ),
        ]
      : []),
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
