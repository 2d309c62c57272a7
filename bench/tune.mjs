// bench/tune: whole `skillprobe tune` runs simulated in-process, each repetition a fresh seed, step for step as
// src/commands/tune.ts runs them: the cases split (splitCases), the original description evaluated on the tune and
// select splits, then up to five iterations, each a proposal built from the tune failures (proposalFailures) of the
// best description so far on the tune cases; a proposal identical to an earlier description is a duplicate and costs
// no trial, a candidate dropped on the tune cases (droppedOnTune) skips select, and the loop stops early once the best
// description fails no tune case. The winner (chooseWinner) is tested against the original on the holdout split
// (holdoutComparison), at 3 and at the default 10 (the config's `trials`) holdout trials per case. The truth is the
// simulator's router (src/sim/router.ts): each trial's choice (the tuned skill, a sibling or none) is drawn with the
// router's chances, independently per trial as a real model would be; it passes when it is the case's expected outcome.
//
// Tune and select cases run a FIXED 3 trials per case (the command runs them under the config's decision design,
// sequential by default; not modelled here). The missing-class scenario's proposer is the simulator's own
// stand-in (src/sim/proposer.ts), reading the request the command writes (proposalPrompt → readProposalRequest) and
// answering through readProposal; the A/A scenario's proposer permutes the original's words (chances identical).
// TUNE_REPS sets the repetitions per scenario.
import { routerChances, DEFAULT_ROUTER } from '../dist/sim/router.js';
import { proposeDescription, DEFAULT_PROPOSER_WORDS } from '../dist/sim/proposer.js';
import { seededUniform } from '../dist/util/random.js';
import { mcnemarExact } from '../dist/stats/mcnemar.js';
import { wilsonInterval } from '../dist/stats/wilson.js';
import { caseRole, splitCases } from '../dist/tune/splits.js';
import { familyScore } from '../dist/tune/score.js';
import { chooseWinner, droppedOnSelect, droppedOnTune } from '../dist/tune/select.js';
import { holdoutComparison } from '../dist/tune/holdout.js';
import { proposalFailures } from '../dist/tune/failures.js';
import { proposalAnswer, proposalPrompt, readProposal, readProposalRequest } from '../dist/tune/proposal.js';
import { median } from './lib.mjs';

const REPS = Number(process.env.TUNE_REPS ?? 400);
const ALPHA = 0.05;
/** Trials per case on the tune and select splits. */
const TRIALS = 3;
/** `--holdout-trials` settings reported: 3, and the default (the config's `trials`, default 10). */
const HOLDOUT_TRIALS = [3, 10];
const ITERATIONS = 5;
/** The command's description limit: min(1024, the CLI's listing cap; Claude Code's is 1536). */
const MAX_CHARS = 1024;
/** skill-creator's loop as the issue states it: 20 queries × 3 runs × (the original + 5 iterations). */
const SKILL_CREATOR_TRIALS = 20 * 3 * (1 + ITERATIONS);

const SKILL = 'jira';
const SIBLINGS = [
  {
    name: 'confluence',
    description: 'Writes and edits Confluence pages: meeting notes, documentation, page templates and publishing to a wiki space.',
  },
  { name: 'csv-report', description: 'Turns CSV files into summary reports: totals, averages, charts and tables from spreadsheet data.' },
];
const FAMILY = new Set([SKILL, ...SIBLINGS.map((s) => s.name)]);
/** The columns a trial can land in, in the order a trial's uniform draw is partitioned (after the expected one). */
const COLUMNS = [SKILL, ...SIBLINGS.map((s) => s.name), 'none'];
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
/** The tune cases as the command hands them to proposalFailures. */
const failureCase = (id) => ({ id, prompt: BY_ID.get(id).prompt, role: roleOf(BY_ID.get(id)), expects: BY_ID.get(id).expects });

const chanceCache = new Map();
/** The router's chance of each column for case x when the tuned skill is listed with `description`. */
function columnChances(description, x) {
  const key = `${description}\u0000${x.id}`;
  let p = chanceCache.get(key);
  if (p === undefined) {
    const r = routerChances(x.prompt, [{ name: SKILL, description }, ...SIBLINGS], DEFAULT_ROUTER);
    p = new Map([...r.skills.map((s) => [s.name, s.p]), ['none', r.none]]);
    chanceCache.set(key, p);
  }
  return p;
}
/** The router's chance that a trial of case x passes (lands in its expected column). */
const chance = (description, x) => columnChances(description, x).get(x.expects);

/**
 * Trial n of case x under `description`: one seeded uniform u; it passes when u < p(expected), as the bench always
 * drew, and otherwise lands in another column by the rest of [0, 1) split in COLUMNS order (a single choice per trial,
 * as the router makes one). Shaped as the command's trial outcomes, for proposalFailures.
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

/** P(IMPROVED on recall alone) given the holdout's positive cases and both descriptions' chances: exact, by the joint law of the discordant counts. */
function exactRecallImproved(holdoutSelf, original, winner, trials) {
  // dist[w][o]: probability of w winner-only and o original-only pairs so far.
  let dist = [[1]];
  for (const x of holdoutSelf) {
    const [po, pw] = [chance(original, x), chance(winner, x)];
    const [wOnly, oOnly] = [pw * (1 - po), po * (1 - pw)];
    for (let n = 0; n < trials; n++) {
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

/** Pairs for the holdout: trial n of each case under the original and the winner, each its own draw. */
function holdoutPairs(original, winner, ids, label, trials) {
  return ids.flatMap((id) => {
    const x = BY_ID.get(id);
    return Array.from({ length: trials }, (_, i) => ({
      caseId: id,
      role: roleOf(x),
      n: i + 1,
      original: trial(original, x, `${label}/hold-orig`, i + 1).passed,
      winner: trial(winner, x, `${label}/hold-winner`, i + 1).passed,
    }));
  });
}

/**
 * One whole tune run, as runTune's steps: `proposer` gives a description (or undefined) for the request the command
 * would send. The tune and select phases are shared by every holdout setting; the holdout is run at each.
 */
export function simulateTune(rep, proposer) {
  const split = splitCases(CASES, SKILL, rep);
  const label = (what) => `rep${rep}/${what}`;
  const failureCases = split.tune.map(failureCase);
  const evaluated = (description, index, which) => {
    const r = evaluate(description, split[which], label(`c${index}-${which}`));
    return r;
  };
  const origTune = evaluated(ORIGINAL, 0, 'tune');
  const original = { index: 0, description: ORIGINAL, tune: origTune.tallies, select: evaluated(ORIGINAL, 0, 'select').tallies };
  const tuneOutcomes = new Map([[0, origTune.outcomes]]);
  let trials = (split.tune.length + split.select.length) * TRIALS;
  let proposals = 0;
  const candidates = [];
  const tried = [original];
  // As the command: every earlier attempt, repeats and refusals included, so a repeat changes the next request.
  const attempts = [{ description: ORIGINAL, tuneScore: familyScore(original.tune).recall }];
  let stoppedEarly = false;
  for (let index = 1; index <= ITERATIONS; index++) {
    const alive = [
      original,
      ...candidates.filter((x) => x.dropped === undefined || x.dropped === 'not-better' || x.dropped === 'constraint'),
    ];
    const best = alive.reduce((a, b) => (familyScore(b.tune).recall > familyScore(a.tune).recall ? b : a));
    const failures = proposalFailures(failureCases, tuneOutcomes.get(best.index), SKILL, FAMILY);
    if (failures.length === 0) {
      stoppedEarly = ITERATIONS - index + 1;
      break;
    }
    const request = {
      skill: SKILL,
      current: best.description,
      failures,
      siblings: SIBLINGS,
      attempts: [...attempts],
      maxChars: MAX_CHARS,
    };
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
  const base = { rep, split, chosen, candidates, proposals, notRun: stoppedEarly || 0 };
  if (chosen === 'original') return { ...base, holdout: HOLDOUT_TRIALS.map((h) => ({ h, trials })) };
  const winner = candidates[chosen];
  const holdoutSelf = split.holdout.map((id) => BY_ID.get(id)).filter((x) => roleOf(x) === 'self');
  const selectRecall = familyScore(winner.select).recall;
  const trueHoldout = trueRecall(winner.description, split.holdout);
  return {
    ...base,
    winner,
    selectGain: selectRecall - familyScore(original.select).recall,
    curse: selectRecall - trueRecall(winner.description, split.select),
    trueHoldout,
    trueDiff: trueHoldout - trueRecall(ORIGINAL, split.holdout),
    holdout: HOLDOUT_TRIALS.map((h) => ({
      h,
      trials: trials + 2 * split.holdout.length * h,
      comparison: holdoutComparison(holdoutPairs(ORIGINAL, winner.description, split.holdout, label('hold'), h), ALPHA),
      exactImproved: exactRecallImproved(holdoutSelf, ORIGINAL, winner.description, h),
    })),
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

function scenario(proposer, offset) {
  const runs = Array.from({ length: REPS }, (_, r) => simulateTune(offset + r, proposer));
  const won = runs.filter((r) => r.chosen !== 'original');
  const tally = (xs) => xs.reduce((m, d) => ({ ...m, [d]: (m[d] ?? 0) + 1 }), {});
  const byHoldout = HOLDOUT_TRIALS.map((h, i) => {
    const at = (r) => r.holdout[i];
    const count = (f) => runs.filter((r) => f(at(r))).length;
    return {
      h,
      improved: count((x) => x.comparison?.verdict === 'IMPROVED'),
      worse: count((x) => x.comparison?.verdict === 'WORSE'),
      exactImproved: mean(runs.map((r) => at(r).exactImproved ?? 0)),
      bias: mean(won.map((r) => at(r).comparison.recall.winner - r.trueHoldout)),
      covered: won.filter((r) => at(r).comparison.recall.lo <= r.trueDiff && r.trueDiff <= at(r).comparison.recall.hi).length,
      trials: runs.map((r) => at(r).trials),
    };
  });
  return {
    runs,
    won: won.length,
    claimed: runs.filter((r) => r.chosen !== 'original' && r.selectGain > 0).length,
    curse: mean(won.map((r) => r.curse)),
    trueDiff: mean(won.map((r) => r.trueDiff)),
    byHoldout,
    proposals: runs.map((r) => r.proposals),
    stoppedEarly: runs.filter((r) => r.notRun > 0).length,
    dropped: tally([
      ...runs.flatMap((r) => r.candidates.map((x) => x.dropped ?? 'kept')),
      ...runs.flatMap((r) => Array(r.notRun).fill('not run (early stop)')),
    ]),
  };
}

export function benchTune() {
  const t0 = performance.now();
  const identical = permutationsIdentical(50);
  const aa = scenario(permutingProposer, 10_000);
  const miss = scenario(standInProposer, 20_000);
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
const signed = (x) => `${x >= 0 ? '+' : ''}${x.toFixed(4)}`;
const ratio = (x, target) => (x / target).toFixed(2);

export function printTune({ reps, cases, identical, aa, miss, origTrue, seconds }) {
  const ownFixed = cases * TRIALS * (1 + ITERATIONS);
  const row = (label, cells) => console.log(`  ${label.padEnd(22)}${cells.join(' │ ')}`);
  const col = (s, w) => s.padEnd(w);
  console.log(
    `tune      ${cases} cases of a 3-skill family, router truth; ${reps} simulated tune runs per scenario, up to ${ITERATIONS} iterations (early stop, duplicates free), fixed ${TRIALS} trials per case on tune/select, holdout at ${HOLDOUT_TRIALS.join(' and ')} trials per case; ${seconds.toFixed(0)} s`,
  );
  console.log(
    `          exact P(recall): the chance of IMPROVED on the recall test alone, exact given each run's split and winner, averaged over runs`,
  );
  console.log(
    `          A/A: candidates are the original's words permuted (router chances identical in ${identical.checked - identical.differ}/${identical.checked} checks); a candidate won in ${interval(aa.won, reps)}`,
  );
  console.log(
    `               beside: the winner's select score reported as if held out (skill-creator) claims a gain > 0 in ${interval(aa.claimed, reps)} (ratio to ${100 * ALPHA}%: ${ratio(aa.claimed / reps, ALPHA)})`,
  );
  row('holdout trials', [
    col('IMPROVED [Wilson 95%]', 24),
    col(`ratio to ≤ ${100 * ALPHA}%`, 13),
    col('exact P(recall)', 16),
    col('WORSE', 6),
    'interval covers the true 0 [Wilson 95%]',
  ]);
  for (const s of aa.byHoldout)
    row(`  ${s.h}${s.h === 10 ? ' (default)' : ''}`, [
      col(interval(s.improved, reps), 24),
      col(`${ratio(s.improved / reps, ALPHA)} ${s.improved / reps <= ALPHA ? 'meets' : 'MISSES'}`, 13),
      col(pct(s.exactImproved, 3), 16),
      col(pct(s.worse / reps), 6),
      `${interval(s.covered, aa.won)} (ratio to ≥ ${100 * (1 - ALPHA)}%: ${ratio(s.covered / aa.won, 1 - ALPHA)})`,
    ]);
  console.log(
    `          missing class: a description that misses sprint/backlog/board requests (true recall of the original over all positives ${origTrue.toFixed(3)}); proposer: the simulator's stand-in (src/sim/proposer.ts, ${DEFAULT_PROPOSER_WORDS} words)`,
  );
  console.log(
    `               a candidate won in ${interval(miss.won, reps)} (mean true holdout gain ${miss.trueDiff.toFixed(3)}) · the winner's curse (its select score − its true select recall, select phase: same at every holdout setting) ${signed(miss.curse)}`,
  );
  row('holdout trials', [
    col('power (IMPROVED) [Wilson 95%]', 30),
    col('exact P(recall)', 16),
    col('WORSE', 6),
    col('bias (|·| ≤ 0.02: ratio)', 24),
    col('curse', 8),
    'interval covers the true difference [Wilson 95%]',
  ]);
  for (const s of miss.byHoldout)
    row(`  ${s.h}${s.h === 10 ? ' (default)' : ''}`, [
      col(interval(s.improved, reps), 30),
      col(pct(s.exactImproved, 2), 16),
      col(pct(s.worse / reps), 6),
      col(`${signed(s.bias)} (${ratio(Math.abs(s.bias), 0.02)})`, 24),
      col(signed(miss.curse), 8),
      `${interval(s.covered, miss.won)} (ratio to ≥ ${100 * (1 - ALPHA)}%: ${ratio(s.covered / miss.won, 1 - ALPHA)})`,
    ]);
  console.log(
    `          trials per tune (tune + select at a fixed ${TRIALS} per case, + holdout; proposer calls beside) vs a fixed loop of 3 runs × (1 + ${ITERATIONS}): (a) skill-creator's 20 queries = ${SKILL_CREATOR_TRIALS}, (b) this suite's ${cases} cases = ${ownFixed}`,
  );
  row('scenario, holdout', [
    col('median', 7),
    col('mean', 7),
    col('ratio (a) med/mean', 18),
    col('ratio (b) med/mean', 18),
    'proposer calls median/mean',
  ]);
  for (const [name, s] of [
    ['A/A', aa],
    ['missing class', miss],
  ])
    for (const h of s.byHoldout)
      row(`  ${name}, ${h.h}`, [
        col(String(median(h.trials)), 7),
        col(mean(h.trials).toFixed(1), 7),
        col(`${ratio(median(h.trials), SKILL_CREATOR_TRIALS)} / ${ratio(mean(h.trials), SKILL_CREATOR_TRIALS)}`, 18),
        col(`${ratio(median(h.trials), ownFixed)} / ${ratio(mean(h.trials), ownFixed)}`, 18),
        `${median(s.proposals)} / ${mean(s.proposals).toFixed(2)}`,
      ]);
  for (const [name, s] of [
    ['A/A', aa],
    ['missing class', miss],
  ])
    console.log(
      `          candidates (${name}): ${Object.entries(s.dropped)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}; stopped early (no tune failure left) in ${s.stoppedEarly}/${reps} runs`,
    );
}

if (import.meta.url === `file://${process.argv[1]}`) printTune(benchTune());
