import betaQuantile from '@stdlib/stats-base-dists-beta-quantile';
import type { Interval } from '../run/schema.js';

/** A sample's size, mean and variance (n − 1 in the denominator): all the intervals below need of it. */
export interface SampleMoments {
  n: number;
  mean: number;
  variance: number;
}

export function sampleMoments(values: readonly number[]): SampleMoments {
  const n = values.length;
  const mean = n ? values.reduce((a, b) => a + b, 0) / n : Number.NaN;
  const variance = n > 1 ? values.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1) : Number.NaN;
  return { n, mean, variance };
}

/**
 * The upper `tail` quantile of Student's t with `df` degrees of freedom (any real df > 0), through the beta
 * distribution: P(|T| > t) = I_{df/(df+t²)}(df/2, 1/2).
 */
export function studentQuantile(tail: number, df: number): number {
  const x = betaQuantile(2 * tail, df / 2, 0.5);
  return Math.sqrt((df * (1 - x)) / x);
}

/** An estimate with its interval; `df`, the Satterthwaite degrees of freedom it used (NaN when it needed none). */
export type Estimate = { estimate: number; df: number } & Interval;

const nothing = (): Estimate => ({ estimate: Number.NaN, df: Number.NaN, lo: Number.NaN, hi: Number.NaN });

/**
 * Σ weight × mean over independent samples, with Welch's t interval: the variance Σ w² s²/n, and the
 * Welch–Satterthwaite degrees of freedom (Σ vᵢ)² / Σ vᵢ²/(nᵢ − 1). Skill − ablation is weights +1, −1; the average
 * of several cases' differences is ±1/k each. Every sample needs two values (else NaN); samples that never vary give
 * the point itself.
 */
export function welchContrast(groups: readonly { weight: number; sample: SampleMoments }[], confidence = 0.95): Estimate {
  if (!groups.length || groups.some((g) => g.sample.n < 2)) return nothing();
  const estimate = groups.reduce((a, g) => a + g.weight * g.sample.mean, 0);
  const parts = groups.map((g) => ({ v: (g.weight ** 2 * g.sample.variance) / g.sample.n, df: g.sample.n - 1 }));
  const variance = parts.reduce((a, p) => a + p.v, 0);
  if (variance === 0) return { estimate, df: Number.NaN, lo: estimate, hi: estimate };
  const df = variance ** 2 / parts.reduce((a, p) => a + p.v ** 2 / p.df, 0);
  const half = studentQuantile((1 - confidence) / 2, df) * Math.sqrt(variance);
  return { estimate, df, lo: estimate - half, hi: estimate + half };
}

/** Mean of `a` − mean of `b`, with Welch's interval. */
export const welchDifference = (a: SampleMoments, b: SampleMoments, confidence = 0.95): Estimate =>
  welchContrast(
    [
      { weight: 1, sample: a },
      { weight: -1, sample: b },
    ],
    confidence,
  );

/**
 * Mean of `a` over mean of `b`, with Fieller's interval: every θ for which a − θb is within Welch's t of 0. Where
 * `b`'s mean is not told apart from 0 the set is unbounded, given as [−∞, ∞].
 */
export function fiellerRatio(a: SampleMoments, b: SampleMoments, confidence = 0.95): Estimate {
  if (a.n < 2 || b.n < 2 || b.mean === 0) return nothing();
  const estimate = a.mean / b.mean;
  const [va, vb] = [a.variance / a.n, b.variance / b.n];
  if (va + vb === 0) return { estimate, df: Number.NaN, lo: estimate, hi: estimate };
  // The degrees of freedom of a − θ̂b, as Welch's.
  const vbAt = estimate ** 2 * vb;
  const df = (va + vbAt) ** 2 / (va ** 2 / (a.n - 1) + vbAt ** 2 / (b.n - 1));
  const t2 = studentQuantile((1 - confidence) / 2, df) ** 2;
  // (ā − θ b̄)² = t² (va + θ² vb): a quadratic in θ whose roots are the limits while b̄² > t² vb.
  const qa = b.mean ** 2 - t2 * vb;
  if (qa <= 0) return { estimate, df, lo: -Infinity, hi: Infinity };
  const qb = a.mean * b.mean;
  const qc = a.mean ** 2 - t2 * va;
  const root = Math.sqrt(Math.max(0, qb ** 2 - qa * qc));
  return { estimate, df, lo: (qb - root) / qa, hi: (qb + root) / qa };
}
