// bench/follow-up-faults: what a follow-up whose process fails (crashes, hangs, is killed) does to a case's verdict.
// An ask-first skill passes only once its follow-up goes in; on Codex and Gemini each follow-up is a process of its
// own, which can fail on its own. The product scores such a trial as missing data (its user turn got no result:
// `infra_error`), so the verdict and interval read the usable trials; the simpler rule, what the runner did before,
// reads the first turn's result and scores the trial "did not fire".
//   exact:     for n trials, follow-up fault rate c and true pass rate p: usable trials m ~ Bin(n, 1-c), passes
//              k | m ~ Bin(m, p) (product) against k ~ Bin(n, p(1-c)) over all n (simpler rule). Printed: the false
//              FAIL rate at p = p0 (the exact one-sided binomial test at alpha, as verdicts use it), the power at a
//              rate 0.3 below p0, and the coverage of p by the 95% Wilson interval.
//   confirmed: seeded trials, each classified by the product's own trialStatus on a transcript of its conversation.
// FOLLOW_UP_FAULT_REPS sets the seeded runs per row.
import binomialPmf from '@stdlib/stats-base-dists-binomial-pmf';
import { rejectionCutoff } from '../dist/stats/binomial-test.js';
import { wilsonInterval } from '../dist/stats/wilson.js';
import { trialStatus } from '../dist/grade/status.js';
import { generator } from './lib.mjs';

const REPS = Number(process.env.FOLLOW_UP_FAULT_REPS ?? 2000);
const SEED = 35;
const ALPHA = 0.05;
const P0 = 0.8;
const BELOW = 0.3;
const SIZES = [10, 20, 50];
const FAULTS = [0, 0.05, 0.2];

/** P(a rule FAILs, and its interval covers p), summed exactly over what n trials can show. */
function exact(n, c, p) {
  const product = { fail: 0, covers: 0 };
  for (let m = 0; m <= n; m++) {
    const pm = binomialPmf(m, n, 1 - c);
    const cut = rejectionCutoff(m, P0, ALPHA);
    for (let k = 0; k <= m; k++) {
      const w = pm * binomialPmf(k, m, p);
      if (k <= cut) product.fail += w;
      const r = wilsonInterval(k, m, 0.95);
      if (r.lo <= p && p <= r.hi) product.covers += w;
    }
  }
  const simpler = { fail: 0, covers: 0 };
  const cut = rejectionCutoff(n, P0, ALPHA);
  for (let k = 0; k <= n; k++) {
    const w = binomialPmf(k, n, p * (1 - c));
    if (k <= cut) simpler.fail += w;
    const r = wilsonInterval(k, n, 0.95);
    if (r.lo <= p && p <= r.hi) simpler.covers += w;
  }
  return { product, simpler };
}

const ctx = { arm: 'skill', family: ['deploy'], isolationProblem: () => undefined };
const meta = (over) => ({
  exitCode: 0,
  signal: null,
  wallMs: 1000,
  quietMs: 5,
  timedOut: false,
  interrupted: false,
  stderrTail: '',
  attempt: 1,
  startedAt: '',
  ...over,
});
const asked = [
  { kind: 'user_turn', source: 'harness', turn: 1, text: 'ship it' },
  { kind: 'init', source: 'system', model: 'm', cliVersion: '', cwd: '/ws', tools: [], skills: [] },
  { kind: 'text', source: 'assistant', text: 'Which environment?' },
  { kind: 'result', source: 'system', status: 'success', turns: 1 },
  { kind: 'user_turn', source: 'harness', turn: 2, text: 'production' },
];

/** One trial's conversation: the follow-up's process fails with chance c, else the skill fires with chance p. */
function trial(random, c, p) {
  if (random() < c)
    return { status: trialStatus({ agent: 'codex', warnings: [], events: asked }, meta({ exitCode: 1 }), ctx).status, fired: false };
  const fired = random() < p;
  const events = [
    ...asked,
    { kind: 'text', source: 'assistant', text: fired ? 'Plan: deploy' : 'Done.' },
    { kind: 'result', source: 'system', status: 'success', turns: 2 },
  ];
  return { status: trialStatus({ agent: 'codex', warnings: [], events }, meta({}), ctx).status, fired };
}

function confirm(random, n, c, p) {
  let fails = 0;
  for (let i = 0; i < REPS; i++) {
    const usable = Array.from({ length: n }, () => trial(random, c, p)).filter((t) => t.status === 'ok');
    if (usable.filter((t) => t.fired).length <= rejectionCutoff(usable.length, P0, ALPHA)) fails++;
  }
  return fails / REPS;
}

export function benchFollowUpFaults() {
  const random = generator(SEED);
  const rows = [];
  for (const n of SIZES)
    for (const c of FAULTS) {
      const aa = exact(n, c, P0);
      const low = exact(n, c, P0 - BELOW);
      rows.push({ n, c, aa, low, confirmedAA: confirm(random, n, c, P0) });
    }
  return { rows };
}

export function printFollowUpFaults({ rows }) {
  console.log(
    `\nbench/follow-up-faults · p0 ${P0}, alpha ${ALPHA}, power at p0 - ${BELOW} · ${REPS} seeded runs per row confirm the A/A column`,
  );
  console.log(
    '    n  fault c  false FAIL at p0: product (seeded) · simpler   power: product · simpler   Wilson 95% coverage at p0: product · simpler',
  );
  const f = (x) => x.toFixed(3);
  for (const r of rows)
    console.log(
      `${String(r.n).padStart(5)}  ${r.c.toFixed(2).padStart(7)}  ${f(r.aa.product.fail).padStart(17)} (${f(r.confirmedAA)}) · ${f(r.aa.simpler.fail)}  ${f(r.low.product.fail).padStart(14)} · ${f(r.low.simpler.fail)}  ${f(r.aa.product.covers).padStart(33)} · ${f(r.aa.simpler.covers)}`,
    );
  const worst = Math.max(...rows.map((r) => r.aa.product.fail));
  console.log(`largest false FAIL at p0, product: ${f(worst)} (target ≤ ${ALPHA}: ${worst <= ALPHA ? 'met' : 'MISSED'})`);
}

if (import.meta.url === `file://${process.argv[1]}`) printFollowUpFaults(benchFollowUpFaults());
