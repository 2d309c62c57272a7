// bench/tune: whole `skillprobe tune` runs simulated in-process, each repetition a fresh seed, step for step as
// src/tune/machine.ts decides them: the cases split (splitCases), the original description evaluated on the tune and
// select splits, then up to five iterations, each a proposal built from the tune failures (proposalFailures) of the
// best description so far on the tune cases; a proposal identical to an earlier description is a duplicate and costs
// no trial, a candidate dropped on the tune cases (droppedOnTune) skips select, and the loop stops early once the best
// description fails no tune case. The family is the shape the issue found: three skills, 24 cases, invoice-extract's
// description speaking only of invoices and PDFs while half its cases ask about bills, statements and charges. The
// truth is the simulator's router (src/sim/router.ts): each trial's choice (the tuned skill, a sibling or none) is
// drawn with the router's chances, independently per trial, for the original and the winner alike.
//
// The winner (chooseWinner) is tested against the original on the holdout split two ways, on the same tunes:
// today's fixed rule (h trials per case, McNemar's exact two-sided test, IMPROVED when the winner is significantly
// better; the original kept on a tie on select) at h = 4, 8, 10 (the default: the config's `trials`) and 12, and the
// sequential design (src/tune/holdout-design.ts: rounds until IMPROVED or a gain of 0.25 is ruled out, up to a cap of
// 2 × `trials` = 20, a look every 2 rounds; a tie on select broken by tune recall). For each, the chance of IMPROVED is
// computed exactly given each run's split and winner (`exact`), and every verdict is drawn too (`drawn`).
//
// Tune and select cases run a FIXED 3 trials per case (the command runs them under the config's decision design,
// sequential by default; not modelled here). The missing-class scenario's proposer is the simulator's own stand-in
// (src/sim/proposer.ts), reading the request the command writes and answering through readProposal; the A/A
// scenario's proposer permutes the original's words (chances identical). TUNE_REPS sets the repetitions per scenario.
import { routerChances, DEFAULT_ROUTER } from '../dist/sim/router.js';
import { proposeDescription, DEFAULT_PROPOSER_WORDS } from '../dist/sim/proposer.js';
import { seededUniform } from '../dist/util/random.js';
import { mcnemarExact } from '../dist/stats/mcnemar.js';
import { wilsonInterval } from '../dist/stats/wilson.js';
import { caseRole, splitCases } from '../dist/tune/splits.js';
import { familyScore } from '../dist/tune/score.js';
import { chooseWinner, droppedOnSelect, droppedOnTune } from '../dist/tune/select.js';
import { holdoutComparison, recallDiscordance, sequentialVerdict } from '../dist/tune/holdout.js';
import { HOLDOUT_DESIGN_DEFAULTS, holdoutOutcome, improvedChanceAtLooks, lookRounds } from '../dist/tune/holdout-design.js';
import { proposalFailures } from '../dist/tune/failures.js';
import { proposalAnswer, proposalPrompt, readProposal, readProposalRequest } from '../dist/tune/proposal.js';
import { median } from './lib.mjs';

const REPS = Number(process.env.TUNE_REPS ?? 400);
const ALPHA = 0.05;
/** Trials per case on the tune and select splits. */
const TRIALS = 3;
/** Today's fixed rule at these `--holdout-trials`; the default is the config's `trials` (10). */
const FIXED_HOLDOUT = [4, 8, 10, 12];
const DEFAULT_TRIALS = 10;
/** The sequential design's cap: the command's default, 2 × `trials`. */
const CAP = 2 * DEFAULT_TRIALS;
const DESIGN = {
  alpha: ALPHA,
  beta: HOLDOUT_DESIGN_DEFAULTS.beta,
  gain: HOLDOUT_DESIGN_DEFAULTS.gain,
  halfSpentAt: HOLDOUT_DESIGN_DEFAULTS.halfSpentAt,
};
const LOOKS = new Set(lookRounds(CAP));
const ITERATIONS = 5;
/** The command's description limit: min(1024, the CLI's listing cap; Claude Code's is 1536). */
const MAX_CHARS = 1024;

const SKILL = 'invoice-extract';
const SIBLINGS = [
  { name: 'pdf-tools', description: 'Merges, splits, rotates and compresses PDF files and pages.' },
  {
    name: 'spreadsheet-report',
    description: 'Builds summary reports and charts from spreadsheets and CSV files: totals per column, averages and pivot tables.',
  },
];
const FAMILY = new Set([SKILL, ...SIBLINGS.map((x) => x.name)]);
/** The columns a trial can land in, in the order a trial's uniform draw is partitioned (after the expected one). */
const COLUMNS = [SKILL, ...SIBLINGS.map((x) => x.name), 'none'];
/** The tuned skill's description: invoices and PDFs only, though half its cases ask about bills, statements and charges. */
const ORIGINAL = 'Extracts data from invoices and PDF invoices: invoice totals, invoice numbers, due dates, vendor names and line items.';

const c = (id, prompt, expects, trap = false) => ({ id, prompt, expects, trap });
const CASES = [
  c('inv-total', 'Extract the total from this invoice PDF', SKILL),
  c('inv-number', 'What is the invoice number on the attached invoice', SKILL),
  c('inv-due', 'Find the due date on this vendor invoice', SKILL),
  c('inv-lines', 'List the line items of invoice 4471', SKILL),
  c('inv-vendor', 'Which vendor sent this invoice and for how much', SKILL),
  c('inv-tax', 'Pull the tax amount from the PDF invoice', SKILL),
  c('bill-due', 'When is this bill due and how much do we owe', SKILL),
  c('bill-lines', 'Pull the charges from the water bill', SKILL),
  c('stmt-charges', 'Summarize the charges on this statement', SKILL),
  c('stmt-vendor', 'What did the supplier charge us on the monthly statement', SKILL),
  c('bill-phone', 'List every charge on my phone bill', SKILL),
  c('stmt-amount', 'What is the amount due on this account statement', SKILL),
  c('pdf-merge', 'Merge these two PDF files into one', 'pdf-tools'),
  c('pdf-rotate', 'Rotate page 3 of the PDF', 'pdf-tools'),
  c('pdf-split', 'Split the PDF into one file per chapter', 'pdf-tools', true),
  c('sheet-chart', 'Make a chart from sales.csv', 'spreadsheet-report'),
  c('sheet-totals', 'Totals per column of the budget spreadsheet', 'spreadsheet-report'),
  c('sheet-pivot', 'Pivot table of expenses by month from the CSV', 'spreadsheet-report', true),
  c('neg-pay', 'Pay an overdue bill online', 'none', true),
  c('neg-cycle', 'What is a billing cycle, in general terms', 'none', true),
  c('neg-split', 'How do we split the bill at dinner fairly', 'none', true),
  c('neg-capital', 'What is the capital of France', 'none'),
  c('neg-haiku', 'Write a haiku about autumn', 'none'),
  c('neg-recursion', 'Explain recursion with an example', 'none'),
];
const BY_ID = new Map(CASES.map((x) => [x.id, x]));
const roleOf = (x) => caseRole(x.expects, SKILL);
/** The tune cases as the command hands them to proposalFailures. */
const failureCase = (id) => ({ id, prompt: BY_ID.get(id).prompt, role: roleOf(BY_ID.get(id)), expects: BY_ID.get(id).expects });

const chanceCache = new Map();
/** The router's chance of each column for case x when the tuned skill is listed with `description`. */
function columnChances(description, x) {
  const key = `${description}\u0000${x.id}`;
  let p = chanceCache.get(key);
  if (p === undefined) {
    const r = routerChances(x.prompt, [{ name: SKILL, description }, ...SIBLINGS], DEFAULT_ROUTER);
    p = new Map([...r.skills.map((k) => [k.name, k.p]), ['none', r.none]]);
    chanceCache.set(key, p);
  }
  return p;
}
/** The router's chance that a trial of case x passes (lands in its expected column). */
const chance = (description, x) => columnChances(description, x).get(x.expects);

/**
 * Trial n of case x under `description`: one seeded uniform u; it passes when u < p(expected), and otherwise lands in
 * another column by the rest of [0, 1) split in COLUMNS order. Shaped as the command's trial outcomes.
 */
function trial(description, x, label, n) {
  const p = columnChances(description, x);
  let u = seededUniform(7, label, x.id, String(n));
  let column = x.expects;
  if (u >= p.get(x.expects)) {
    u -= p.get(x.expects);
    column = COLUMNS.filter((k) => k !== x.expects).find((k) => (u -= p.get(k)) < 0) ?? 'none';
  }
  const passed = column === x.expects;
  return { caseId: x.id, arm: 'skill', n, passed, firedColumn: column, firings: column === 'none' ? [] : [{ skill: column }] };
}

/** Fixed `TRIALS` trials per case: the tallies the selection reads and the outcomes the proposer's failures come from. */
function evaluate(description, ids, label) {
  const outcomes = ids.flatMap((id) => Array.from({ length: TRIALS }, (_, i) => trial(description, BY_ID.get(id), label, i + 1)));
  const tallies = ids.map((id) => ({
    caseId: id,
    role: roleOf(BY_ID.get(id)),
    passes: outcomes.filter((o) => o.caseId === id && o.passed).length,
    trials: TRIALS,
  }));
  return { tallies, outcomes };
}

/** The simulator's proposer stand-in, asked the way the command asks: the prompt it writes, read back, answered, read. */
export function standInProposer({ request, seed }) {
  const answer = proposalAnswer(proposeDescription(readProposalRequest(proposalPrompt(request)), { seed, words: DEFAULT_PROPOSER_WORDS }));
  return readProposal(answer);
}

/** The A/A proposer: the original's words in a seeded order. BM25 reads a bag of words, so the chances are the original's. */
export function permutingProposer({ original, seed, index }) {
  return original
    .split(/\s+/)
    .map((w, i) => ({ w, u: seededUniform(seed, 'perm', String(index), String(i)) }))
    .sort((a, b) => a.u - b.u)
    .map((d) => d.w)
    .join(' ');
}

const mcnemarMemo = new Map();
/** McNemar's exact p for w winner-only and o original-only pairs, memoised. */
function mcnemarP(w, o) {
  const key = `${w}/${o}`;
  let p = mcnemarMemo.get(key);
  if (p === undefined) mcnemarMemo.set(key, (p = mcnemarExact({ both: 0, skillOnly: w, ablationOnly: o, neither: 0 })));
  return p;
}

/** Today's rule: P(IMPROVED on recall alone) at h fixed trials per case, exact by the joint law of the discordant counts. */
function exactFixedImproved(cases, h) {
  let dist = [[1]];
  for (const { original: po, winner: pw } of cases) {
    const [wOnly, oOnly] = [pw * (1 - po), po * (1 - pw)];
    for (let n = 0; n < h; n++) {
      const next = Array.from({ length: dist.length + 1 }, () => new Array(dist.length + 1).fill(0));
      dist.forEach((row, w) =>
        row.forEach((m, o) => {
          if (m === 0) return;
          next[w + 1][o] += m * wOnly;
          next[w][o + 1] += m * oOnly;
          next[w][o] += m * (1 - wOnly - oOnly);
        }),
      );
      dist = next;
    }
  }
  let p = 0;
  dist.forEach((row, w) =>
    row.forEach((m, o) => {
      if (w > o && m > 0 && mcnemarP(w, o) < ALPHA) p += m;
    }),
  );
  return p;
}

const mean = (xs) => (xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length);
const trueRecall = (description, ids) =>
  mean(
    ids
      .map((id) => BY_ID.get(id))
      .filter((x) => roleOf(x) === 'self')
      .map((x) => chance(description, x)),
  );

/** Holdout pairs for rounds from+1 … to: trial n of each case under the original and the winner, each its own draw. */
function holdoutPairs(original, winner, ids, label, from, to) {
  return ids.flatMap((id) => {
    const x = BY_ID.get(id);
    return Array.from({ length: to - from }, (_, i) => ({
      caseId: id,
      role: roleOf(x),
      n: from + i + 1,
      original: trial(original, x, `${label}/hold-orig`, from + i + 1).passed,
      winner: trial(winner, x, `${label}/hold-winner`, from + i + 1).passed,
    }));
  });
}

/** The sequential holdout as runHoldout runs it: a look after each batch of rounds until decided or the cap. */
function sequentialHoldout(winner, ids, label) {
  const pairs = [];
  let done = 0;
  let outcome = 'continue';
  for (const upTo of lookRounds(CAP)) {
    pairs.push(...holdoutPairs(ORIGINAL, winner, ids, label, done, upTo));
    done = upTo;
    const seen = recallDiscordance(pairs);
    outcome = holdoutOutcome(DESIGN, seen.discordant, seen.winnerOnly);
    if (outcome !== 'continue') break;
  }
  const cmp = holdoutComparison(pairs, ALPHA);
  return { rounds: done, outcome, comparison: cmp, verdict: sequentialVerdict(cmp, outcome === 'improved', ALPHA) };
}

/**
 * One whole tune run, as runTune's steps: `proposer` gives a description (or undefined) for the request the command
 * would send. The tune and select phases are shared by both holdout rules; today's rule keeps the original on a tie
 * on select, the new one breaks it by tune recall.
 */
export function simulateTune(rep, proposer) {
  const split = splitCases(CASES, SKILL, rep);
  const label = (what) => `rep${rep}/${what}`;
  const failureCases = split.tune.map(failureCase);
  const evaluated = (description, index, which) => evaluate(description, split[which], label(`c${index}-${which}`));
  const origTune = evaluated(ORIGINAL, 0, 'tune');
  const original = { index: 0, description: ORIGINAL, tune: origTune.tallies, select: evaluated(ORIGINAL, 0, 'select').tallies };
  const tuneOutcomes = new Map([[0, origTune.outcomes]]);
  let trials = (split.tune.length + split.select.length) * TRIALS;
  let proposals = 0;
  const candidates = [];
  const tried = [original];
  const attempts = [{ description: ORIGINAL, tuneScore: familyScore(original.tune).recall }];
  for (let index = 1; index <= ITERATIONS; index++) {
    const alive = [
      original,
      ...candidates.filter((x) => x.dropped === undefined || x.dropped === 'not-better' || x.dropped === 'constraint'),
    ];
    const best = alive.reduce((a, b) => (familyScore(b.tune).recall > familyScore(a.tune).recall ? b : a));
    const failures = proposalFailures(failureCases, tuneOutcomes.get(best.index), SKILL, FAMILY);
    if (failures.length === 0) break;
    const request = { skill: SKILL, current: best.description, failures, siblings: SIBLINGS, attempts: [...attempts], maxChars: MAX_CHARS };
    proposals++;
    const description = proposer({ request, original: ORIGINAL, seed: rep, index });
    const cand = { index, description: description ?? '', tune: [] };
    candidates.push(cand);
    if (description === undefined) {
      cand.dropped = 'no-proposal';
      attempts.push({ description: '', refused: 'the answer held no <description>' });
      continue;
    }
    if (tried.some((t) => t.description === description)) {
      cand.dropped = 'duplicate';
      attempts.push({ ...attempts.find((a) => a.description === description), refused: 'a repeat of an earlier attempt' });
      continue;
    }
    tried.push(cand);
    const onTuneRun = evaluated(description, index, 'tune');
    cand.tune = onTuneRun.tallies;
    tuneOutcomes.set(index, onTuneRun.outcomes);
    attempts.push({ description, tuneScore: familyScore(cand.tune).recall });
    trials += split.tune.length * TRIALS;
    const onTune = droppedOnTune(original, cand);
    if (onTune) {
      cand.dropped = onTune;
      continue;
    }
    cand.select = evaluated(description, index, 'select').tallies;
    trials += split.select.length * TRIALS;
    const onSelect = droppedOnSelect(original, cand);
    if (onSelect) cand.dropped = onSelect;
  }
  const chosen = chooseWinner(original, candidates);
  // Today's rule: only a candidate strictly above the original on select could win.
  const strictlyBetter = (x) => x.select !== undefined && familyScore(x.select).recall > familyScore(original.select).recall;
  const chosenToday = chooseWinner(
    original,
    candidates.map((x) => (strictlyBetter(x) ? x : { ...x, dropped: x.dropped ?? 'not-better' })),
  );
  const holdoutSelf = split.holdout.map((id) => BY_ID.get(id)).filter((x) => roleOf(x) === 'self');
  const origHoldout = trueRecall(ORIGINAL, split.holdout);
  const judged = (won) => {
    if (won === 'original') return undefined;
    const winner = candidates[won];
    const trueHoldout = trueRecall(winner.description, split.holdout);
    return { winner, trueHoldout, trueDiff: trueHoldout - origHoldout };
  };
  const today = judged(chosenToday);
  const fixed = FIXED_HOLDOUT.map((h) => {
    if (!today) return { h, trials, verdict: undefined, exact: 0 };
    return {
      h,
      trials: trials + 2 * split.holdout.length * h,
      comparison: holdoutComparison(holdoutPairs(ORIGINAL, today.winner.description, split.holdout, label('fixed'), 0, h), ALPHA),
      exact: exactFixedImproved(
        holdoutSelf.map((x) => ({ original: chance(ORIGINAL, x), winner: chance(today.winner.description, x) })),
        h,
      ),
    };
  });
  const now = judged(chosen);
  const cases = now && holdoutSelf.map((x) => ({ original: chance(ORIGINAL, x), winner: chance(now.winner.description, x) }));
  const seq = now
    ? {
        ...sequentialHoldout(now.winner.description, split.holdout, label('seq')),
        exact: improvedChanceAtLooks(cases, DESIGN, CAP, (r) => LOOKS.has(r)),
      }
    : { rounds: 0, exact: 0 };
  return {
    rep,
    candidates,
    proposals,
    today,
    now,
    fixed,
    seq: { ...seq, trials: trials + 2 * split.holdout.length * seq.rounds },
    tieRescued: chosen !== 'original' && chosenToday === 'original',
  };
}

/** Every permuted description's chances equal the original's on every case, bit for bit. */
function permutationsIdentical(reps) {
  let checked = 0;
  let differ = 0;
  for (let r = 0; r < reps; r++) {
    const d = permutingProposer({ original: ORIGINAL, seed: r, index: 1 });
    for (const x of CASES) {
      const [a, b] = [
        routerChances(x.prompt, [{ name: SKILL, description: ORIGINAL }, ...SIBLINGS], DEFAULT_ROUTER),
        routerChances(x.prompt, [{ name: SKILL, description: d }, ...SIBLINGS], DEFAULT_ROUTER),
      ];
      checked++;
      differ += JSON.stringify(a) !== JSON.stringify(b);
    }
  }
  return { checked, differ };
}

/** A rule's figures over runs: `at(run)` gives its holdout (verdict, exact chance, trials), `won(run)` its winner. */
function ruleFigures(runs, at, won, gainAtLeast) {
  const withWinner = runs.filter((r) => won(r));
  const big = withWinner.filter((r) => won(r).trueDiff >= gainAtLeast);
  return {
    improved: runs.filter((r) => at(r).verdict === 'IMPROVED').length,
    worse: runs.filter((r) => at(r).verdict === 'WORSE').length,
    exact: mean(runs.map((r) => at(r).exact ?? 0)),
    powerBig: mean(big.map((r) => at(r).exact)),
    big: big.length,
    bias: mean(withWinner.map((r) => at(r).comparison.recall.winner - won(r).trueHoldout)),
    covered: withWinner.filter((r) => at(r).comparison.recall.lo <= won(r).trueDiff && won(r).trueDiff <= at(r).comparison.recall.hi)
      .length,
    won: withWinner.length,
    trials: runs.map((r) => at(r).trials),
  };
}

function scenario(proposer, offset) {
  const runs = Array.from({ length: REPS }, (_, r) => simulateTune(offset + r, proposer));
  const fixed = FIXED_HOLDOUT.map((h, i) => ({
    h,
    ...ruleFigures(
      runs,
      (r) => ({ ...r.fixed[i], verdict: r.fixed[i].comparison?.verdict }),
      (r) => r.today,
      0.25,
    ),
  }));
  const seq = ruleFigures(
    runs,
    (r) => r.seq,
    (r) => r.now,
    0.25,
  );
  const rounds = runs.filter((r) => r.now).map((r) => r.seq.rounds);
  return {
    runs,
    fixed,
    seq,
    rounds,
    tieRescued: runs.filter((r) => r.tieRescued).length,
    trueDiff: mean(runs.filter((r) => r.now).map((r) => r.now.trueDiff)),
  };
}

/**
 * A true gain of exactly `gain` on each run's holdout positives, planted where the issue's family has it: the
 * positives the original description misses (bills, statements, charges) are raised, least likely first up to
 * certainty, until the positives' mean rises by `gain`. Exact P(IMPROVED) of each rule, averaged over the splits.
 */
function planted(gain) {
  const fixed = FIXED_HOLDOUT.map(() => []);
  const seq = [];
  for (let rep = 0; rep < REPS; rep++) {
    const holdoutSelf = splitCases(CASES, SKILL, 30_000 + rep)
      .holdout.map((id) => BY_ID.get(id))
      .filter((x) => roleOf(x) === 'self');
    const cases = holdoutSelf.map((x) => ({ original: chance(ORIGINAL, x), winner: chance(ORIGINAL, x) }));
    let left = gain * cases.length;
    for (const c of [...cases].sort((a, b) => a.original - b.original)) {
      const up = Math.min(1 - c.original, left);
      c.winner = c.original + up;
      left -= up;
    }
    if (left > 1e-9) continue;
    FIXED_HOLDOUT.forEach((h, i) => fixed[i].push(exactFixedImproved(cases, h)));
    seq.push(improvedChanceAtLooks(cases, DESIGN, CAP, (r) => LOOKS.has(r)));
  }
  return { splits: seq.length, fixed: fixed.map(mean), seq: mean(seq) };
}

export function benchTune() {
  const t0 = performance.now();
  const identical = permutationsIdentical(50);
  const plant = planted(DESIGN.gain);
  const aa = scenario(permutingProposer, 10_000);
  const miss = scenario(standInProposer, 20_000);
  const origTrue = trueRecall(
    ORIGINAL,
    CASES.map((x) => x.id),
  );
  return { reps: REPS, cases: CASES.length, identical, aa, miss, plant, origTrue, seconds: (performance.now() - t0) / 1000 };
}

const pct = (x, digits = 1) => `${(100 * x).toFixed(digits)}%`;
const interval = (k, n) => {
  const w = wilsonInterval(k, n);
  return `${pct(w.p)} [${pct(w.lo)}, ${pct(w.hi)}]`;
};
const signed = (x) => `${x >= 0 ? '+' : ''}${x.toFixed(4)}`;
const ratio = (x, target) => (x / target).toFixed(2);

export function printTune({ reps, cases, identical, aa, miss, plant, origTrue, seconds }) {
  const row = (label, cells) => console.log(`  ${label.padEnd(26)}${cells.join(' │ ')}`);
  const col = (s, w) => s.padEnd(w);
  const today = (s) => s.fixed.find((f) => f.h === DEFAULT_TRIALS);
  console.log(
    `tune      the issue's family (${cases} cases, 3 skills, invoice-extract's description misses bills/statements/charges; true recall of the original ${origTrue.toFixed(3)}); ${reps} simulated tunes per scenario, up to ${ITERATIONS} iterations, ${TRIALS} trials per case on tune/select; ${seconds.toFixed(0)} s`,
  );
  console.log(
    `          holdout: today's fixed rule at h trials per case (two-sided McNemar at ${ALPHA}) beside the sequential design (gain ${DESIGN.gain}, α ${ALPHA} one-sided, β ${DESIGN.beta}, cap ${CAP}, a look every 2 rounds); exact = P(IMPROVED) exact given each run's split and winner`,
  );
  const header = () =>
    row('holdout rule', [
      col('IMPROVED drawn [Wilson 95%]', 30),
      col('exact', 8),
      col('WORSE', 6),
      col('power, true gain ≥ 0.25 (runs)', 31),
      col('bias (≤ 0.02)', 14),
      col('trials mean (× today)', 22),
      'covers the true difference',
    ]);
  const line = (name, f, base) =>
    row(name, [
      col(interval(f.improved, reps), 30),
      col(pct(f.exact, 2), 8),
      col(pct(f.worse / reps), 6),
      col(`${Number.isNaN(f.powerBig) ? '—' : pct(f.powerBig)} (${f.big})`, 31),
      col(f.won ? signed(f.bias) : '—', 14),
      col(`${mean(f.trials).toFixed(1)} (${ratio(mean(f.trials), mean(base.trials))})`, 22),
      f.won ? interval(f.covered, f.won) : '—',
    ]);
  console.log(
    `          A/A: candidates are the original's words permuted (router chances identical in ${identical.checked - identical.differ}/${identical.checked} checks); a candidate won in ${interval(aa.runs.filter((r) => r.now).length, reps)}; false IMPROVED must stay ≤ ${pct(ALPHA, 0)}`,
  );
  header();
  for (const f of aa.fixed) line(`  fixed ${f.h}${f.h === DEFAULT_TRIALS ? ' (today)' : ''}`, f, today(aa));
  line(`  sequential, cap ${CAP}`, aa.seq, today(aa));
  console.log(
    `          missing class: proposer = the simulator's stand-in; a winner reached the holdout in ${interval(miss.runs.filter((r) => r.now).length, reps)} (mean true holdout gain ${miss.trueDiff.toFixed(3)}); ties on select that today's rule ended before the holdout: ${miss.tieRescued}`,
  );
  header();
  for (const f of miss.fixed) line(`  fixed ${f.h}${f.h === DEFAULT_TRIALS ? ' (today)' : ''}`, f, today(miss));
  line(`  sequential, cap ${CAP}`, miss.seq, today(miss));
  console.log(
    `          a true recall gain of ${DESIGN.gain} planted on the holdout's missed positives (${plant.splits} splits): exact power ${FIXED_HOLDOUT.map((h, i) => `fixed ${h} ${pct(plant.fixed[i])}`).join(', ')}; sequential, cap ${CAP}: ${pct(plant.seq)} (target ≥ 80%)`,
  );
  const rounds = miss.rounds;
  console.log(
    `          sequential holdout rounds (missing class): median ${median(rounds)}, mean ${mean(rounds).toFixed(1)}, at the cap ${rounds.filter((r) => r === CAP).length}/${rounds.length}; (A/A): median ${median(aa.rounds)}, at the cap ${aa.rounds.filter((r) => r === CAP).length}/${aa.rounds.length}`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) printTune(benchTune());
