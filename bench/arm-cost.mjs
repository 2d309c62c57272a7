// bench/arm-cost: how honest the PER ARM section's "skill − ablation: +d [lo, hi]" is. A case's arms each run the few
// trials its design gives (the demo: 6 to 19), and what a trial spends is rarely normal: a skill that loads in most
// trials but not all makes two humps, and real input tokens skew to the right. Seeded draws, per shape and size:
//   A/A:       both arms drawn alike; how often the interval leaves out 0 (a false "differs"; the target is ≤ α).
//   coverage:  the skill arm spends more; how often the interval holds the true difference (target ≥ 1 − α), and how
//              often it leaves out 0 (power). Fieller's ratio interval likewise against the true ratio.
// For Welch's t interval (the product's), beside the normal interval on the same standard error (the simpler one it
// replaces) and a bootstrap-t (resampling each arm, which can follow a skew the t cannot, at B× the work).
// ARM_COST_REPS sets the draws per row; ARM_COST_BOOT the bootstrap's resamples.
import { fiellerRatio, sampleMoments, welchDifference } from '../dist/stats/mean-difference.js';
import { zFor } from '../dist/stats/wilson.js';
import { generator } from './lib.mjs';

const REPS = Number(process.env.ARM_COST_REPS ?? 4000);
const BOOT = Number(process.env.ARM_COST_BOOT ?? 499);
const SEED = 37;
const CONFIDENCE = 0.95;
const SIZES = [6, 10, 19];

/** A standard normal draw (Box–Muller). */
const normal = (u) => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());

/**
 * What one trial spends, in input tokens, per shape: `ablation` draws the arm without the skill, `skill` the arm with
 * it; `trueDiff` and `trueRatio` are their means' difference and ratio.
 */
const SHAPES = [
  {
    // The simulator's: every trial alike but for a little noise.
    name: 'steady (sd 5%)',
    ablation: (u) => 9000 * (1 + 0.05 * normal(u)),
    skill: (u) => 19000 * (1 + 0.05 * normal(u)),
    trueDiff: 10000,
    trueRatio: 19000 / 9000,
  },
  {
    // The skill loads in 70% of trials (its body sent back: +10,000), in none without it.
    name: 'fires in 70%',
    ablation: (u) => 9000 * (1 + 0.05 * normal(u)),
    skill: (u) => 9000 * (1 + 0.05 * normal(u)) + (u() < 0.7 ? 10000 : 0),
    trueDiff: 7000,
    trueRatio: 16000 / 9000,
  },
  {
    // Right-skewed: log-normal with its mean 1.2× its median, the skill arm 1.5× the other.
    name: 'skewed (mean 1.2× median)',
    ablation: (u) => logNormal(u, 5000, 1.2),
    skill: (u) => logNormal(u, 7500, 1.2),
    trueDiff: 2500,
    trueRatio: 1.5,
  },
  {
    // A heavy tail: the mean twice the median (a few trials spend many times the typical one).
    name: 'heavy tail (mean 2× median)',
    ablation: (u) => logNormal(u, 5000, 2),
    skill: (u) => logNormal(u, 7500, 2),
    trueDiff: 2500,
    trueRatio: 1.5,
  },
];

/** A log-normal draw with the given mean, and its mean `skew` times its median (σ = √(2 ln skew)). */
function logNormal(u, mean, skew) {
  const sigma = Math.sqrt(2 * Math.log(skew));
  return mean * Math.exp(sigma * normal(u) - sigma ** 2 / 2);
}

const draw = (u, f, n) => Array.from({ length: n }, () => f(u));

function normalInterval(a, b) {
  const [ma, mb] = [sampleMoments(a), sampleMoments(b)];
  const diff = ma.mean - mb.mean;
  const half = zFor(CONFIDENCE) * Math.sqrt(ma.variance / ma.n + mb.variance / mb.n);
  return { lo: diff - half, hi: diff + half };
}

/** The bootstrap-t interval: the studentised difference's own quantiles, from each arm resampled apart. */
function bootstrapT(u, a, b) {
  const [ma, mb] = [sampleMoments(a), sampleMoments(b)];
  const diff = ma.mean - mb.mean;
  const se = Math.sqrt(ma.variance / ma.n + mb.variance / mb.n);
  if (se === 0) return { lo: diff, hi: diff };
  const resample = (xs) => sampleMoments(xs.map(() => xs[Math.floor(u() * xs.length)]));
  const ts = [];
  for (let i = 0; i < BOOT; i++) {
    const [ra, rb] = [resample(a), resample(b)];
    const s = Math.sqrt(ra.variance / ra.n + rb.variance / rb.n);
    if (s > 0) ts.push((ra.mean - rb.mean - diff) / s);
  }
  ts.sort((x, y) => x - y);
  const q = (p) => ts[Math.min(ts.length - 1, Math.max(0, Math.floor(p * ts.length)))];
  const tail = (1 - CONFIDENCE) / 2;
  return { lo: diff - q(1 - tail) * se, hi: diff - q(tail) * se };
}

const RULES = {
  welch: (u, a, b) => welchDifference(sampleMoments(a), sampleMoments(b), CONFIDENCE),
  normal: (u, a, b) => normalInterval(a, b),
  bootstrapT: (u, a, b) => bootstrapT(u, a, b),
};

const holds = (r, x) => r.lo <= x && x <= r.hi;

/** One row: per rule, A/A false "differs", and with the skill spending more, coverage and power; Fieller's coverage. */
export function benchArmCost() {
  const rows = [];
  for (const [s, shape] of SHAPES.entries())
    for (const n of SIZES) {
      const u = generator(SEED * 1000 + s * 100 + n);
      const count = Object.fromEntries(Object.keys(RULES).map((k) => [k, { falseDiffers: 0, covered: 0, power: 0 }]));
      let fieller = 0;
      for (let rep = 0; rep < REPS; rep++) {
        const [a1, a2] = [draw(u, shape.ablation, n), draw(u, shape.ablation, n)];
        const [skill, ablation] = [draw(u, shape.skill, n), draw(u, shape.ablation, n)];
        for (const [name, rule] of Object.entries(RULES)) {
          if (!holds(rule(u, a1, a2), 0)) count[name].falseDiffers++;
          const r = rule(u, skill, ablation);
          if (holds(r, shape.trueDiff)) count[name].covered++;
          if (!holds(r, 0)) count[name].power++;
        }
        if (holds(fiellerRatio(sampleMoments(skill), sampleMoments(ablation), CONFIDENCE), shape.trueRatio)) fieller++;
      }
      const share = (x) => x / REPS;
      rows.push({
        shape: shape.name,
        n,
        rules: Object.fromEntries(
          Object.entries(count).map(([k, c]) => [
            k,
            { falseDiffers: share(c.falseDiffers), coverage: share(c.covered), power: share(c.power) },
          ]),
        ),
        fiellerCoverage: share(fieller),
      });
    }
  return rows;
}

const pct = (x) => `${(100 * x).toFixed(1)}%`.padStart(6);

export function printArmCost(rows) {
  const alpha = 1 - CONFIDENCE;
  console.log(`\n== arm cost: skill − ablation per trial, ${REPS} seeded draws per row (bootstrap-t: ${BOOT} resamples) ==`);
  console.log(
    `A/A false "differs" (target ≤ ${pct(alpha).trim()}) · coverage of the true difference (target ≥ ${pct(CONFIDENCE).trim()}) · power`,
  );
  console.log(
    `${'shape'.padEnd(28)}${'n'.padStart(4)} ${['welch', 'normal', 'boot-t'].map((h) => `  ${h}: A/A  cover  power`.padStart(27)).join('')}  fieller cover`,
  );
  for (const r of rows) {
    const cells = ['welch', 'normal', 'bootstrapT'].map((k) => {
      const x = r.rules[k];
      return `${pct(x.falseDiffers)} ${pct(x.coverage)} ${pct(x.power)}`.padStart(27);
    });
    console.log(`${r.shape.padEnd(28)}${String(r.n).padStart(4)} ${cells.join('')}  ${pct(r.fiellerCoverage).padStart(13)}`);
  }
  const worst = (k, f) => Math.max(...rows.map((r) => f(r.rules[k])));
  const least = (k, f) => Math.min(...rows.map((r) => f(r.rules[k])));
  for (const [k, label] of [
    ['welch', "Welch's t (the product's)"],
    ['normal', 'normal interval (the simpler one)'],
    ['bootstrapT', 'bootstrap-t'],
  ])
    console.log(
      `${label}: worst A/A false "differs" ${pct(worst(k, (x) => x.falseDiffers)).trim()}, least coverage ${pct(least(k, (x) => x.coverage)).trim()}`,
    );
}

if (import.meta.url === `file://${process.argv[1]}`) printArmCost(benchArmCost());
