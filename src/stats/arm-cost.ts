import {
  ARM_COST_METRICS,
  NO_EVIDENCE,
  NONE,
  type AblationRow,
  type ArmCostMetric,
  type ArmCosts,
  type CostDifference,
  type GradableCase,
  type RunManifest,
  type TrialOutcome,
} from '../run/schema.js';
import type { Arm } from '../run/config-schema.js';
import { fiellerRatio, sampleMoments, welchContrast, welchDifference, type SampleMoments } from './mean-difference.js';

/** Each metric of one trial, where its CLI reported it. */
function metricOf(o: TrialOutcome, metric: ArmCostMetric): number | undefined {
  switch (metric) {
    case 'input':
      return o.usage?.input;
    case 'cached':
      return o.usage?.cached;
    case 'output':
      return o.usage?.output;
    case 'costUsd':
      return o.costUsd;
    case 'wallMs':
      return o.wallMs;
    case 'requests':
      return o.requests;
  }
}

type ArmSamples = Partial<Record<ArmCostMetric, SampleMoments>>;

/** Each metric's sample over the trials that report it. */
function armSamples(trials: readonly TrialOutcome[]): ArmSamples {
  const samples: ArmSamples = {};
  for (const metric of ARM_COST_METRICS) {
    const values = trials.flatMap((o) => {
      const x = metricOf(o, metric);
      return x === undefined ? [] : [x];
    });
    if (values.length) samples[metric] = sampleMoments(values);
  }
  return samples;
}

/** A difference as results.json keeps it: the ratio only where Fieller's interval is bounded. */
function costDifference(skill: SampleMoments, ablation: SampleMoments, confidence: number): CostDifference {
  const d = welchDifference(skill, ablation, confidence);
  const r = fiellerRatio(skill, ablation, confidence);
  const bounded = Number.isFinite(r.lo) && Number.isFinite(r.hi);
  return { diff: d.estimate, lo: d.lo, hi: d.hi, ...(bounded ? { ratio: { estimate: r.estimate, lo: r.lo, hi: r.hi } } : {}) };
}

/**
 * What a trial spends, per case and arm (skill: the family installed; ablation: removed), and skill − ablation with
 * Welch's interval and Fieller's for the ratio; per family skill, the same over its positive cases, each case weighing
 * the same (a contrast of the cases' means, so a case run longer by its design does not count for more). Trials
 * without evidence (faults) are left out: what they spent says nothing of the skill. Pure.
 */
export function armCosts(
  cases: readonly Pick<GradableCase, 'id' | 'expect'>[],
  outcomes: readonly TrialOutcome[],
  ablation: readonly Pick<AblationRow, 'caseId' | 'difference'>[],
  familyListing: RunManifest['familyListing'],
  confidence: number,
): ArmCosts {
  const measured = outcomes.filter((o) => !NO_EVIDENCE.has(o.status));
  const perCase = cases
    .map((c) => {
      const byArm = (['skill', 'ablation'] as const satisfies readonly Arm[])
        .map((arm) => ({ arm, trials: measured.filter((o) => o.caseId === c.id && o.arm === arm) }))
        .filter((a) => a.trials.length > 0)
        .map((a) => ({ ...a, samples: armSamples(a.trials) }));
      return { c, byArm };
    })
    .filter((p) => p.byArm.length > 0);
  const samplesOf = (caseId: string, arm: Arm) => perCase.find((p) => p.c.id === caseId)?.byArm.find((a) => a.arm === arm)?.samples;
  // A metric both arms measured twice or more: the fewest a variance, and so an interval, needs.
  const paired = (caseId: string, metric: ArmCostMetric) => {
    const [skill, abl] = [samplesOf(caseId, 'skill')?.[metric], samplesOf(caseId, 'ablation')?.[metric]];
    return skill && abl && skill.n >= 2 && abl.n >= 2 ? { skill, ablation: abl } : undefined;
  };

  const caseRows = perCase.map(({ c, byArm }) => ({
    caseId: c.id,
    expect: c.expect,
    arms: byArm.map(({ arm, trials, samples }) => ({
      arm,
      trials: trials.length,
      settled: trials.filter((o) => o.status === 'settled').length,
      metrics: Object.fromEntries(
        Object.entries(samples).map(([metric, s]) => [metric, { n: s.n, mean: s.mean, sd: Math.sqrt(s.variance) }]),
      ),
    })),
    difference: Object.fromEntries(
      ARM_COST_METRICS.flatMap((metric) => {
        const p = paired(c.id, metric);
        return p ? [[metric, costDifference(p.skill, p.ablation, confidence)]] : [];
      }),
    ),
  }));

  const family = [...new Set(cases.map((c) => c.expect).filter((e) => e !== NONE))];
  const skills = family.flatMap((skill) => {
    const own = cases.filter((c) => c.expect === skill);
    const difference = Object.fromEntries(
      ARM_COST_METRICS.flatMap((metric) => {
        const pairs = own.flatMap((c) => paired(c.id, metric) ?? []);
        if (!pairs.length) return [];
        const w = 1 / pairs.length;
        const groups = pairs.flatMap((p) => [
          { weight: w, sample: p.skill },
          { weight: -w, sample: p.ablation },
        ]);
        const d = welchContrast(groups, confidence);
        return [[metric, { diff: d.estimate, lo: d.lo, hi: d.hi }]];
      }),
    );
    const costed = own.filter((c) => ARM_COST_METRICS.some((m) => paired(c.id, m))).map((c) => c.id);
    if (!costed.length) return [];
    const rates = ablation.filter((a) => costed.includes(a.caseId) && Number.isFinite(a.difference.diff));
    const passRate = rates.length
      ? { diff: rates.reduce((sum, a) => sum + a.difference.diff, 0) / rates.length, cases: rates.length }
      : undefined;
    return [{ skill, cases: costed, difference, ...(passRate ? { passRate } : {}) }];
  });

  return {
    confidence,
    ...(familyListing
      ? {
          listing: {
            ...familyListing,
            ...(familyListing.budgetChars ? { share: familyListing.chars / familyListing.budgetChars } : {}),
          },
        }
      : {}),
    cases: caseRows,
    skills,
  };
}
