// bench/judge-real: the model judge end to end through the real Codex CLI against skillprobe's simulator, whose judge
// stand-in answers every item by a fixed rule and flips each sample against its lean at a set rate. bench/judge
// computes the same statistics exactly; this runs them through the integrated product at the issue's scale.
//   rejudge:   one case, 200 trials, one item, 3 samples, a judge flipping 7% of its samples; then `skillprobe
//              rejudge RUN --sim`: does its per-sample flip rate interval hold 0.07? (and the stored run's
//              disagreement share, UNSTABLE flag and calibration beside it)
//   stability: 14 cases × 10 trials, one item each (distinct, so the profile's per-item overrides apply), 3 samples;
//              ten items flip 25% of their samples, four never: how many cases of each are UNSTABLE.
// JUDGE_REAL_TRIALS (200), JUDGE_REAL_STAB_TRIALS (10), JUDGE_REAL_J (concurrency, 4) and JUDGE_REAL_SEED change the
// scale; JUDGE_REAL_ONLY=rejudge|stability runs one scenario.
import binomialPmf from '@stdlib/stats-base-dists-binomial-pmf';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { judgeTruth } from '../dist/sim/judge.js';
import { stabilityDecision } from '../dist/stats/judge-stability.js';
import { flipRateFromChanged } from '../dist/stats/rejudge-flip.js';
import { wilsonInterval } from '../dist/stats/wilson.js';

const ROOT = new URL('..', import.meta.url).pathname;
const TRIALS = Number(process.env.JUDGE_REAL_TRIALS ?? 200);
const STAB_TRIALS = Number(process.env.JUDGE_REAL_STAB_TRIALS ?? 10);
const J = Number(process.env.JUDGE_REAL_J ?? 4);
const SEED = Number(process.env.JUDGE_REAL_SEED ?? 25);
const ONLY = process.env.JUDGE_REAL_ONLY;
const SAMPLES = 3;
const FLIP = 0.07;
const FLIPPY = 0.25;
const STEADY = 0;
const MAX_FLIP_RATE = 0.1; // the config default; the stability test's bound on the share of disagreeing items
const CONFIDENCE = 0.95;

const BODY = 'Plan one call and show it in a bash block:\n\n```bash\ncleanup --dry-run $ARGUMENTS\n```\n';
const SKILL = `---\nname: cleanup\ndescription: Remove old build folders and caches.\n---\n# cleanup\n\n${BODY}`;
/** What the simulated model writes after loading `cleanup` with args "build/": the answer every item is judged on. */
const PLAN = "Here is the plan:\n\n```bash\ncleanup --dry-run build/\n```\n\nI can't run commands in this session, so run it yourself.";
const YOURSELF = 'Does the plan say to run it yourself?';

/**
 * Stability: each case its own item, true or false of PLAN by the stand-in's rule (checked below); the first ten flip
 * FLIPPY of their samples, the other four STEADY.
 */
const STAB_ITEMS = [
  [YOURSELF, true, FLIPPY],
  ['Does it ask for confirmation before deleting?', false, FLIPPY],
  ['Does the plan use the cleanup command?', true, FLIPPY],
  ['Does it warn about data loss?', false, FLIPPY],
  ['Does it say here is the plan?', true, FLIPPY],
  ['Does it estimate the disk space freed?', false, FLIPPY],
  ['Does it run cleanup on build?', true, FLIPPY],
  ['Does it suggest a backup?', false, FLIPPY],
  ['Does it use a bash command?', true, FLIPPY],
  ['Does it mention a log file?', false, FLIPPY],
  ['Does it mention the session?', true, STEADY],
  ['Does it list the files to be removed?', false, STEADY],
  ['Does the plan include a dry run?', true, STEADY],
  ['Does it back up the folders first?', false, STEADY],
].map(([item, truth, flip]) => {
  if (judgeTruth(item, PLAN).yes !== truth) throw new Error(`"${item}" is not ${truth ? 'true' : 'false'} of the plan by the rule`);
  return { item, truth, flip };
});

const profile = (judge) =>
  `name: judged\nseed: ${SEED}\nrules:\n  - { prompt: "build folders", do: [{ skill: cleanup, args: "build/" }] }\n${judge}`;
const config = (trials) =>
  `agent: codex\nmodel: sim-model\narms: [skill]\ndecision: { mode: fixed }\ntrials: ${trials}\nconcurrency: ${J}\n` +
  `retries:\n  cli: 3\njudge: { model: sim-judge, samples: ${SAMPLES} }\n`;
const judgedCase = (id, items) =>
  `- id: ${id}\n  prompt: "Remove the old build folders (${id})."\n  expect:\n    skill: cleanup\n    judge:\n` +
  items.map((i) => `      - "${i}"\n`).join('');

function project(files) {
  const dir = mkdtempSync(join(tmpdir(), 'sp-bench-judge-'));
  mkdirSync(join(dir, 'skills/cleanup'), { recursive: true });
  mkdirSync(join(dir, 'cases'));
  writeFileSync(join(dir, 'skills/cleanup/SKILL.md'), SKILL);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** Runs the CLI with a clean environment and a fresh HOME; its wall time, exit code and output. */
function cli(args, cwd) {
  const home = mkdtempSync(join(tmpdir(), 'sp-bench-home-'));
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn('node', [join(ROOT, 'dist/cli.js'), ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH, HOME: home },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      rmSync(home, { recursive: true, force: true });
      resolve({ seconds: (performance.now() - t0) / 1000, code, stdout, stderr });
    });
  });
}

async function judgedRun(dir, trials) {
  const r = await cli(['run', '--sim', 'sim.yaml', '--trials', String(trials), '--transcripts', 'runs', '--no-gate'], dir);
  const runs = readdirSync(join(dir, 'runs'));
  if (runs.length !== 1) throw new Error(`expected one run folder, found ${runs.length}; stderr:\n${r.stderr.slice(-2000)}`);
  const runDir = join(dir, 'runs', runs[0]);
  const results = JSON.parse(readFileSync(join(runDir, 'results.json'), 'utf8'));
  return { r, runDir, results };
}

/** E[g(k)] for k ~ Binomial(n, p), exactly. */
function expectBinomial(n, p, g) {
  let sum = 0;
  for (let k = 0; k <= n; k++) {
    const m = binomialPmf(k, n, p);
    if (m > 0) sum += m * g(k);
  }
  return sum;
}
/** At 3 samples an item's samples disagree with chance 1 − (1 − f)³ − f³. */
const disagreeChance = (f) => 1 - (1 - f) ** SAMPLES - f ** SAMPLES;
const rule = { maxFlipRate: MAX_FLIP_RATE, alpha: 0.05, confidence: CONFIDENCE };

/** "label: 12 of 600 …, 2.0% [1.1%, 3.4%]" → numbers; the flip-rate line is "x% [lo%, hi%]". */
const PCT = '(-?[\\d.]+)%';
function rejudgeFigures(stdout) {
  const changed = new RegExp(`answers changed: (\\d+) of (\\d+) paired samples, ${PCT} \\[${PCT}, ${PCT}\\]`).exec(stdout);
  const flip = new RegExp(`per-sample flip rate: ${PCT} \\[${PCT}, ${PCT}\\]`).exec(stdout);
  const verdicts = new RegExp(`verdicts changed: (\\d+) of (\\d+) items, ${PCT} \\[${PCT}, ${PCT}\\]`).exec(stdout);
  if (!changed || !flip || !verdicts) throw new Error(`rejudge printed no figures:\n${stdout}`);
  const num = (m, from) => m.slice(from).map(Number);
  return {
    lines: stdout.split('\n').filter((l) => /^(answers|per-sample|verdicts) /.test(l)),
    changed: { k: Number(changed[1]), n: Number(changed[2]), pct: num(changed, 3) },
    flip: num(flip, 1),
    verdicts: { k: Number(verdicts[1]), n: Number(verdicts[2]), pct: num(verdicts, 3) },
  };
}

async function benchRejudge() {
  const dir = project({
    'cases/main.yaml': judgedCase('plans-call', [YOURSELF]),
    'sim.yaml': profile(`judge: { flipRate: ${FLIP} }\n`),
    'skillprobe.config.yaml': config(TRIALS),
  });
  try {
    const run = await judgedRun(dir, TRIALS);
    const again = await cli(['rejudge', run.runDir, '--sim', 'sim.yaml'], dir);
    const j = run.results.judge;
    const figures = rejudgeFigures(again.stdout);
    const [e, lo, hi] = figures.flip;
    // Exactly: how often one such rejudge's interval holds FLIP (pairs differ with chance 2e(1 − e)).
    const pairs = figures.changed.n;
    const exactCoverage = expectBinomial(pairs, 2 * FLIP * (1 - FLIP), (k) => {
      const w = wilsonInterval(k, pairs, CONFIDENCE);
      return flipRateFromChanged(w.lo) <= FLIP + 1e-12 && FLIP <= flipRateFromChanged(w.hi) + 1e-12;
    });
    return {
      run: {
        seconds: run.r.seconds,
        exit: run.r.code,
        trials: run.results.outcomes.length,
        notOk: run.results.outcomes.filter((o) => o.status !== 'ok').length,
        requests: j.requests,
        unanswered: j.unanswered,
        calibrated: j.calibrated,
        calibration: j.calibration,
        stability: j.stability[0],
      },
      rejudge: { seconds: again.seconds, exit: again.code, ...figures, holds: lo <= FLIP * 100 && FLIP * 100 <= hi, e, lo, hi },
      exactCoverage,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function benchStability() {
  const items = {};
  for (const x of STAB_ITEMS) if (x.flip !== 0) items[x.item] = { flipRate: x.flip };
  const block = `judge:\n  items:\n${Object.entries(items)
    .map(([item, o]) => `    "${item}": { flipRate: ${o.flipRate} }\n`)
    .join('')}`;
  const dir = project({
    'cases/main.yaml': STAB_ITEMS.map((x, i) => judgedCase(`c${i + 1}`, [x.item])).join(''),
    'sim.yaml': profile(block),
    'skillprobe.config.yaml': config(STAB_TRIALS),
  });
  try {
    const run = await judgedRun(dir, STAB_TRIALS);
    const j = run.results.judge;
    const cases = STAB_ITEMS.map((x, i) => {
      const caseId = `c${i + 1}`;
      const s = j.stability.find((c) => c.caseId === caseId);
      const outcomes = run.results.outcomes.filter((o) => o.caseId === caseId && o.judge);
      const right = outcomes.filter((o) => o.judge.items[0].verdict === (x.truth ? 'yes' : 'no')).length;
      return { caseId, ...x, s, judged: outcomes.length, right };
    });
    const group = (flip) => {
      const of = cases.filter((c) => c.flip === flip);
      // The chance one case is UNSTABLE, exactly, from its comparable items (all of them when every sample is readable).
      const n = of[0]?.s?.comparable ?? STAB_TRIALS;
      return {
        flip,
        cases: of,
        unstable: of.filter((c) => c.s?.unstable).length,
        exact: expectBinomial(n, disagreeChance(flip), (k) => stabilityDecision(k, n, rule).unstable),
      };
    };
    return {
      seconds: run.r.seconds,
      exit: run.r.code,
      trials: run.results.outcomes.length,
      notOk: run.results.outcomes.filter((o) => o.status !== 'ok').length,
      requests: j.requests,
      unanswered: j.unanswered,
      calibrated: j.calibrated,
      calibration: j.calibration,
      groups: [group(FLIPPY), group(STEADY)],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchJudgeReal() {
  const t0 = performance.now();
  const rows = {};
  if (ONLY !== 'stability') rows.rejudge = await benchRejudge();
  if (ONLY !== 'rejudge') rows.stability = await benchStability();
  rows.seconds = (performance.now() - t0) / 1000;
  return rows;
}

const pct = (x, d = 1) => `${(100 * x).toFixed(d)}%`;
const mark = (ok) => (ok ? 'met' : 'MISSED');
/** Calibration in a few words: the controls asked and the misses, grouped by control and answer. */
function misses(c) {
  if (!c.missed.length) return ` (${c.asked} controls, none missed)`;
  const by = new Map();
  for (const m of c.missed) by.set(`${m.kind} → ${m.got}`, (by.get(`${m.kind} → ${m.got}`) ?? 0) + 1);
  return ` (missed ${c.missed.length} of ${c.asked} controls: ${[...by].map(([k, n]) => `${k} ×${n}`).join(', ')})`;
}

export function printJudgeReal(rows) {
  console.log(
    `\nbench/judge-real · the model judge through the real Codex CLI against the SIMULATOR's judge stand-in (${SAMPLES} samples an item, -j ${J}, seed ${SEED})`,
  );
  const x = rows.rejudge;
  if (x) {
    const s = x.run.stability;
    console.log(
      `  rejudge at flip ${FLIP}: 1 case × ${x.run.trials} trials, 1 item · ${(x.run.seconds + x.rejudge.seconds).toFixed(1)} s: run ${x.run.seconds.toFixed(1)} s (exit ${x.run.exit}, ${x.run.notOk} trials not ok, ${x.run.requests} judge requests, ${x.run.unanswered} unanswered) · rejudge ${x.rejudge.seconds.toFixed(1)} s (exit ${x.rejudge.exit})`,
    );
    console.log(
      `    stored run: disagreement share ${s.disagreeing} of ${s.comparable}, ${pct(s.share.p)} [${pct(s.share.lo)}, ${pct(s.share.hi)}] (expected ${pct(disagreeChance(FLIP))}) · ${s.unstable ? 'UNSTABLE' : 'not UNSTABLE'} (p ${s.p === null ? '—' : s.p.toExponential(2)}, bound ${MAX_FLIP_RATE}) · ${x.run.calibrated ? 'CALIBRATED' : 'UNCALIBRATED'}${misses(x.run.calibration)}`,
    );
    for (const l of x.rejudge.lines) console.log(`    ${l}`);
    console.log(
      `    per-sample flip rate interval [${x.rejudge.lo}%, ${x.rejudge.hi}%] holds ${FLIP}: ${x.rejudge.holds ? 'yes' : 'NO'} (target: holds · ${mark(x.rejudge.holds)}; one such rejudge holds it with exact chance ${pct(x.exactCoverage)})`,
    );
  }
  const y = rows.stability;
  if (y) {
    console.log(
      `  stability: ${y.groups.reduce((a, g) => a + g.cases.length, 0)} cases × ${STAB_TRIALS} trials, 1 item each · ${y.seconds.toFixed(1)} s, one run (exit ${y.exit}, ${y.trials} trials, ${y.notOk} not ok, ${y.requests} judge requests, ${y.unanswered} unanswered) · ${y.calibrated ? 'CALIBRATED' : 'UNCALIBRATED'}${misses(y.calibration)}`,
    );
    for (const g of y.groups) {
      const share = wilsonInterval(g.unstable, g.cases.length, CONFIDENCE);
      const ok = g.flip === 0 ? g.unstable === 0 : share.p >= 0.9;
      const target = g.flip === 0 ? 'none' : '≥ 90%';
      const consistent = !ok && g.flip !== 0 && share.hi >= 0.9 ? ', its interval holds 90%' : '';
      console.log(
        `    flip ${String(g.flip).padEnd(4)}: UNSTABLE in ${g.unstable} of ${g.cases.length} cases, ${pct(share.p, 0)} [${pct(share.lo, 0)}, ${pct(share.hi, 0)}] (target ${target} · ${mark(ok)}${consistent}; exact chance per case ${pct(g.exact)})`,
      );
      console.log(
        `      disagreeing/comparable per case (U = UNSTABLE; verdicts matching the rule): ` +
          g.cases
            .map(
              (c) =>
                `${c.caseId} ${c.s ? `${c.s.disagreeing}/${c.s.comparable}${c.s.unstable ? ' U' : ''}` : '—'} (${c.right}/${c.judged})`,
            )
            .join(', '),
      );
    }
  }
  console.log(`  wall time ${rows.seconds.toFixed(1)} s in all`);
}

if (import.meta.url === `file://${process.argv[1]}`) printJudgeReal(await benchJudgeReal());
