// bench/tune: whole `skillprobe tune` runs simulated in-process, each repetition a fresh seed: the cases split
// (splitCases), the original description evaluated on the tune and select splits, five proposer iterations (each
// candidate on the tune cases, dropped there or evaluated on select), the winner chosen (chooseWinner) and tested
// against the original on the holdout split (holdoutComparison). The truth is the simulator's router
// (src/sim/router.ts): a trial passes with the router's chance of the expected outcome (the expected skill chosen,
// or none chosen on a case expecting none), drawn independently per trial as a real model would be.
//
// Tune and select cases run a FIXED 3 trials per case: the per-case sequential designs test one rate against a
// threshold, not two descriptions against each other. The holdout runs a fixed 3 trials per case under the original
// and under the winner only (none when the original stays). TUNE_REPS sets the repetitions per scenario.
import { routerChances, DEFAULT_ROUTER, terms } from '../dist/sim/router.js';
import { seededUniform } from '../dist/util/random.js';
import { mcnemarExact } from '../dist/stats/mcnemar.js';
import { wilsonInterval } from '../dist/stats/wilson.js';
import { caseRole, splitCases } from '../dist/tune/splits.js';
import { familyScore } from '../dist/tune/score.js';
import { chooseWinner, droppedOnSelect, droppedOnTune } from '../dist/tune/select.js';
import { holdoutComparison } from '../dist/tune/holdout.js';
import { median } from './lib.mjs';

const REPS = Number(process.env.TUNE_REPS ?? 200);
const ALPHA = 0.05;
const TRIALS = 3;
const ITERATIONS = 5;
/** skill-creator's loop: 20 queries × 3 runs × (the original + 5 iterations). */
const SKILL_CREATOR_TRIALS = 20 * 3 * (1 + ITERATIONS);

const SKILL = 'jira';
const SIBLINGS = [
  {
    name: 'confluence',
    description: 'Writes and edits Confluence pages: meeting notes, documentation, page templates and publishing to a wiki space.',
  },
  { name: 'csv-report', description: 'Turns CSV files into summary reports: totals, averages, charts and tables from spreadsheet data.' },
];
/** The tuned skill's description: it says nothing of sprints, backlogs or boards, a class of requests it is meant for. */
const ORIGINAL = 'Creates, updates and searches Jira issues: file a bug, change an issue status, assign a ticket, comment on an issue.';

const c = (id, prompt, expects, trap = false) => ({ id, prompt, expects, trap });
const CASES = [
  c('bug', 'File a bug in Jira for the login crash', SKILL),
  c('assign', 'Assign ticket PROJ-12 to Maria', SKILL),
  c('status', 'Move issue PROJ-9 to done status', SKILL),
  c('comment', 'Add a comment on the Jira issue about the outage', SKILL),
  c('search', 'Search Jira for open issues assigned to me', SKILL),
  c('create', 'Create an issue for the broken export button', SKILL),
  c('priority', 'Raise the priority of ticket PROJ-3', SKILL),
  c('plan', 'Plan the next sprint from the backlog', SKILL),
  c('top', 'Move the top backlog items into sprint 14', SKILL),
  c('board', 'Show the sprint board for our team', SKILL),
  c('close', 'Close the current sprint on the board and roll over unfinished work', SKILL),
  c('reorder', 'Reorder the backlog by priority before sprint planning', SKILL),
  c('start', 'Start a new sprint from the groomed backlog', SKILL),
  c('left', 'What is left on the sprint board', SKILL),
  c('story', 'Add the login story to the sprint backlog', SKILL),
  c('groom', 'Groom the backlog for the next sprint', SKILL),
  c('trap-page', 'Open a ticket to track fixing the outdated Confluence page', SKILL, true),
  c('trap-csv', 'File a bug about wrong totals in the CSV export', SKILL, true),
  c('notes', 'Write a meeting notes page in Confluence', 'confluence'),
  c('publish', 'Publish the onboarding documentation to the wiki space', 'confluence'),
  c('sales', 'Summarize sales.csv into a report with totals', 'csv-report'),
  c('retro', 'Document the sprint retrospective on a Confluence page', 'confluence', true),
  c('export', 'Report totals per status from the issues CSV file', 'csv-report', true),
  c('capital', 'What is the capital of France', 'none'),
  c('hashmap', 'Explain how a hash map works', 'none'),
  c('haiku', 'Write a haiku about autumn', 'none'),
  c('agile', 'What is a sprint in agile, in general terms', 'none', true),
  c('meaning', 'What does a product backlog mean in scrum', 'none', true),
];
const BY_ID = new Map(CASES.map((x) => [x.id, x]));
const roleOf = (x) => caseRole(x.expects, SKILL);

const chanceCache = new Map();
/** The router's chance that a trial of case x passes when the tuned skill is listed with `description`. */
function chance(description, x) {
  const key = `${description}\u0000${x.id}`;
  let p = chanceCache.get(key);
  if (p === undefined) {
    const r = routerChances(x.prompt, [{ name: SKILL, description }, ...SIBLINGS], DEFAULT_ROUTER);
    p = x.expects === 'none' ? r.none : r.skills.find((s) => s.name === x.expects).p;
    chanceCache.set(key, p);
  }
  return p;
}

/** Fixed `TRIALS` trials per case, each an independent seeded draw labelled by repetition, evaluation and trial. */
function evaluate(description, ids, label) {
  return ids.map((id) => {
    const x = BY_ID.get(id);
    let passes = 0;
    for (let n = 1; n <= TRIALS; n++) passes += seededUniform(7, label, id, String(n)) < chance(description, x);
    return { caseId: id, role: roleOf(x), passes, trials: TRIALS };
  });
}

/** A text's words, lower-cased (the proposer leaves out those the router ignores: stop words, single letters). */
const words = (text) => text.toLowerCase().match(/[a-z]+/g) ?? [];

/**
 * A proposer from the failures: three words drawn (seeded, without replacement) from the tune cases the current
 * description missed and appended, a word in more failing prompts more likely (weighted keys u^(1/w)), as a model
 * would name the class of request the failures share.
 */
export function appendingProposer({ current, failures, seed }) {
  const have = new Set(words(current));
  const weight = new Map();
  for (const f of failures)
    for (const w of new Set(words(f.prompt))) if (terms(w).length > 0 && !have.has(w)) weight.set(w, (weight.get(w) ?? 0) + 1);
  if (weight.size === 0) return undefined;
  const drawn = [...weight]
    .map(([w, k]) => ({ w, key: seededUniform(seed, 'word', w) ** (1 / k) }))
    .sort((a, b) => b.key - a.key)
    .slice(0, 3)
    .map((d) => d.w);
  return `${current} ${drawn.join(', ')}.`;
}

/** The A/A proposer: the original's words in a seeded order. BM25 reads a bag of words, so the chances are the original's. */
export function permutingProposer({ original, seed }) {
  return original
    .split(/\s+/)
    .map((w, i) => ({ w, u: seededUniform(seed, 'perm', String(i)) }))
    .sort((a, b) => a.u - b.u)
    .map((d) => d.w)
    .join(' ');
}

/** P(IMPROVED on recall alone) given the holdout's positive cases and both descriptions' chances: exact, by the joint law of the discordant counts. */
function exactRecallImproved(holdoutSelf, original, winner) {
  // dist[w][o]: probability of w winner-only and o original-only pairs so far.
  let dist = [[1]];
  for (const x of holdoutSelf) {
    const [po, pw] = [chance(original, x), chance(winner, x)];
    const [wOnly, oOnly] = [pw * (1 - po), po * (1 - pw)];
    for (let n = 0; n < TRIALS; n++) {
      const next = Array.from({ length: dist.length + 1 }, () => new Array(dist.length + 1).fill(0));
      dist.forEach((row, w) =>
        row.forEach((m, o) => {
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
      if (w > o && mcnemarExact({ both: 0, skillOnly: w, ablationOnly: o, neither: 0 }) < ALPHA) p += m;
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

/** One whole tune run. */
export function simulateTune(rep, proposer) {
  const split = splitCases(CASES, SKILL, rep);
  const label = (what) => `rep${rep}/${what}`;
  const original = {
    description: ORIGINAL,
    tune: evaluate(ORIGINAL, split.tune, label('orig-tune')),
    select: evaluate(ORIGINAL, split.select, label('orig-select')),
  };
  let trials = (split.tune.length + split.select.length) * TRIALS;
  const candidates = [];
  let current = original;
  for (let i = 0; i < ITERATIONS; i++) {
    const failures = current.tune.filter((t) => t.role === 'self' && t.passes < t.trials).map((t) => BY_ID.get(t.caseId));
    const description = proposer({ original: ORIGINAL, current: current.description, failures, seed: rep * 100 + i });
    if (description === undefined) {
      candidates.push({ description: '', tune: [], dropped: 'no-proposal' });
      continue;
    }
    const cand = { description, tune: evaluate(description, split.tune, label(`c${i}-tune`)) };
    trials += split.tune.length * TRIALS;
    const onTune = droppedOnTune(original, cand);
    if (onTune) {
      candidates.push({ ...cand, dropped: onTune });
      continue;
    }
    cand.select = evaluate(description, split.select, label(`c${i}-select`));
    trials += split.select.length * TRIALS;
    const onSelect = droppedOnSelect(original, cand);
    candidates.push(onSelect ? { ...cand, dropped: onSelect } : cand);
    current = cand;
  }
  const chosen = chooseWinner(original, candidates);
  const result = { rep, split, trials, chosen, candidates };
  if (chosen === 'original') return result;
  const winner = candidates[chosen];
  const o = evaluatePairs(ORIGINAL, split.holdout, label('hold-orig'));
  const w = evaluatePairs(winner.description, split.holdout, label('hold-winner'));
  const pairs = o.map((p, i) => ({ ...p, original: p.passed, winner: w[i].passed }));
  trials += 2 * split.holdout.length * TRIALS;
  const holdoutSelf = split.holdout.map((id) => BY_ID.get(id)).filter((x) => roleOf(x) === 'self');
  return {
    ...result,
    trials,
    winner,
    comparison: holdoutComparison(pairs, ALPHA),
    selectGain: familyScore(winner.select).recall - familyScore(original.select).recall,
    selectRecall: familyScore(winner.select).recall,
    trueSelect: trueRecall(winner.description, split.select),
    trueHoldout: trueRecall(winner.description, split.holdout),
    trueDiff: trueRecall(winner.description, split.holdout) - trueRecall(ORIGINAL, split.holdout),
    exactImproved: exactRecallImproved(holdoutSelf, ORIGINAL, winner.description),
  };
}

function evaluatePairs(description, ids, label) {
  return ids.flatMap((id) => {
    const x = BY_ID.get(id);
    return Array.from({ length: TRIALS }, (_, i) => ({
      caseId: id,
      role: roleOf(x),
      n: i + 1,
      passed: seededUniform(7, label, id, String(i + 1)) < chance(description, x),
    }));
  });
}

/** Every permuted description's chances equal the original's on every case, bit for bit. */
function permutationsIdentical(reps) {
  let checked = 0;
  let differ = 0;
  for (let r = 0; r < reps; r++) {
    const d = permutingProposer({ original: ORIGINAL, seed: r });
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

function scenario(proposer, offset) {
  const runs = Array.from({ length: REPS }, (_, r) => simulateTune(offset + r, proposer));
  const won = runs.filter((r) => r.chosen !== 'original');
  const count = (f) => runs.filter(f).length;
  return {
    runs,
    won: won.length,
    improved: count((r) => r.comparison?.verdict === 'IMPROVED'),
    worse: count((r) => r.comparison?.verdict === 'WORSE'),
    claimed: count((r) => r.chosen !== 'original' && r.selectGain > 0),
    exactImproved: mean(runs.map((r) => r.exactImproved ?? 0)),
    bias: mean(won.map((r) => r.comparison.recall.winner - r.trueHoldout)),
    curse: mean(won.map((r) => r.selectRecall - r.trueSelect)),
    covered: won.filter((r) => r.comparison.recall.lo <= r.trueDiff && r.trueDiff <= r.comparison.recall.hi).length,
    trueDiff: mean(won.map((r) => r.trueDiff)),
    trials: runs.map((r) => r.trials),
    dropped: runs.flatMap((r) => r.candidates.map((x) => x.dropped ?? 'kept')).reduce((m, d) => ({ ...m, [d]: (m[d] ?? 0) + 1 }), {}),
  };
}

export function benchTune() {
  const t0 = performance.now();
  const identical = permutationsIdentical(50);
  const aa = scenario(permutingProposer, 10_000);
  const miss = scenario(appendingProposer, 20_000);
  const origTrue = trueRecall(
    ORIGINAL,
    CASES.map((x) => x.id),
  );
  return { reps: REPS, cases: CASES.length, identical, aa, miss, origTrue, seconds: (performance.now() - t0) / 1000 };
}

const pct = (x, digits = 1) => `${(100 * x).toFixed(digits)}%`;
const interval = (k, n) => {
  const w = wilsonInterval(k, n);
  return `${pct(w.p)} [${pct(w.lo)}, ${pct(w.hi)}]`;
};

export function printTune({ reps, cases, identical, aa, miss, origTrue, seconds }) {
  const ratio = (x, target) => (x / target).toFixed(2);
  console.log(
    `tune      ${cases} cases of a 3-skill family, router truth; ${reps} simulated tune runs per scenario, ${ITERATIONS} iterations, fixed ${TRIALS} trials per case and description; ${seconds.toFixed(0)} s`,
  );
  console.log(
    `          A/A: candidates are the original's words permuted (router chances identical in ${identical.checked - identical.differ}/${identical.checked} checks)`,
  );
  console.log(
    `               IMPROVED ${interval(aa.improved, reps)} (target ≤ ${100 * ALPHA}%: ratio ${ratio(aa.improved / reps, ALPHA)}; recall test alone, exact given each run's split and winner: ${pct(aa.exactImproved, 3)}) · WORSE ${pct(aa.worse / reps)}`,
  );
  console.log(
    `               beside: the winner's select score reported as if held out (skill-creator) claims a gain > 0 in ${interval(aa.claimed, reps)} (ratio to ${100 * ALPHA}%: ${ratio(aa.claimed / reps, ALPHA)}); a candidate won in ${pct(aa.won / reps)}`,
  );
  console.log(
    `               recall-difference interval covers the true 0 in ${interval(aa.covered, aa.won)} of runs with a winner (target ≥ ${100 * (1 - ALPHA)}%: ratio ${ratio(aa.covered / aa.won, 1 - ALPHA)})`,
  );
  console.log(
    `          a description that misses sprint/backlog/board requests (true recall of the original over all positives ${origTrue.toFixed(3)}), proposer appends words from the tune failures:`,
  );
  console.log(
    `               power (IMPROVED) ${interval(miss.improved, reps)}; recall test alone, exact given each run's split and winner: ${pct(miss.exactImproved, 2)} · WORSE ${pct(miss.worse / reps)} · a candidate won in ${pct(miss.won / reps)} (mean true holdout gain ${miss.trueDiff.toFixed(3)})`,
  );
  console.log(
    `               winner's holdout recall − its true holdout recall: mean ${miss.bias >= 0 ? '+' : ''}${miss.bias.toFixed(4)} (target |bias| ≤ 0.02: ratio ${ratio(Math.abs(miss.bias), 0.02)}) · its select score − its true select recall: ${miss.curse >= 0 ? '+' : ''}${miss.curse.toFixed(4)} (the winner's curse)`,
  );
  console.log(
    `               recall-difference interval covers the exact true difference in ${interval(miss.covered, miss.won)} of runs with a winner (target ≥ ${100 * (1 - ALPHA)}%: ratio ${ratio(miss.covered / miss.won, 1 - ALPHA)})`,
  );
  for (const [name, s] of [
    ['A/A', aa],
    ['missing class', miss],
  ]) {
    console.log(
      `          trials per tune (${name}): median ${median(s.trials)}, mean ${mean(s.trials).toFixed(1)} vs skill-creator's ${SKILL_CREATOR_TRIALS} (ratio ${ratio(mean(s.trials), SKILL_CREATOR_TRIALS)}) · candidates: ${Object.entries(
        s.dropped,
      )
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) printTune(benchTune());
