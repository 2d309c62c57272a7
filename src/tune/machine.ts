import type { Results, TrialOutcome } from '../run/schema.js';
import type { TuneIteration, TuneRecord, TuneStep } from '../run/tune-schema.js';
import { pct } from '../util/text.js';
import { failedBySiblingsOnly, proposalFailures, type FailureCase } from './failures.js';
import type { HoldoutPair } from './holdout.js';
import { holdoutOutcome, type HoldoutOutcome } from './holdout-design.js';
import { batchPairs, holdoutAnswer, holdoutDesign, holdoutSchedule, nullIfNaN, type HoldoutSpent } from './holdout-look.js';
import { recallDiscordance } from './holdout.js';
import { proposalPrompt, readProposal, type ProposalRequest } from './proposal.js';
import { familyScore, type CaseTally } from './score.js';
import { chooseWinner, droppedOnSelect, droppedOnTune, type DropReason } from './select.js';
import type { CaseRole, SplitName } from './splits.js';

/**
 * The tune loop as a state machine, pure: `next(state)` names the one thing to do (a nested run, or the check of a
 * candidate family), the driver does it, and `learn(state, action, answer)` folds the answer in. Nothing here reads
 * a file, a clock or a random number, so the same answers give the same tune: a resumed tune replays its finished
 * nested runs (read back from their folders) through the same machine and reaches the same decisions.
 *
 * The loop: the original on the tune and select cases; then up to `iterations` times a proposal from the best
 * description's tune failures, its family checked, evaluated on tune (dropped there when clearly worse) and select;
 * the winner on select against the original, sequentially, on the holdout.
 */

/** What stays fixed through a tune: its inputs, as the machine needs them. */
export interface TuneSetup {
  /** The tuned skill's folder name. */
  skill: string;
  original: string;
  options: TuneRecord['options'];
  splits: Record<SplitName, string[]>;
  roles: Readonly<Record<string, CaseRole>>;
  /** The tune split's cases, as the proposer is shown their failures. */
  failureCases: FailureCase[];
  /** Every skill's folder name in the family. */
  family: string[];
  siblings: ProposalRequest['siblings'];
  /** The most characters a proposal may have (the spec's limit, or the CLI's listing cap). */
  maxChars: number;
}

export type StopStatus = 'interrupted' | 'cost_capped';
export type EndStatus = 'completed' | StopStatus;
type Budget = { maxCostUsd: number | undefined };

/** What the machine asks for next. Every nested run is named by its folder under the tune's. */
export type TuneAction =
  | ({ kind: 'evaluate'; name: string; candidate: number; split: 'tune' | 'select' } & Budget)
  | ({ kind: 'propose'; name: string; candidate: number; prompt: string } & Budget)
  | { kind: 'check'; candidate: number; description: string }
  | ({ kind: 'holdout'; name: string; side: 'original' | 'winner'; candidate: number; trials: number } & Budget)
  | { kind: 'done'; status: EndStatus };

/** A nested run's answer, as the driver reads it; a run stopped by Ctrl-C or the cost cap ends the tune. */
export interface RunAnswer {
  /** Relative to the tune's folder. */
  dir: string;
  status: 'completed' | StopStatus;
  trials: number;
  costUsd?: number;
  results: Pick<Results, 'verdicts' | 'outcomes'>;
  /** The proposer's run: what the assistant wrote (undefined: no text). */
  text?: string;
}

export type CheckAnswer = { ok: true } | { problem: string };

interface Evaluation extends TuneStep {
  tallies: CaseTally[];
}

interface Candidate {
  index: number;
  /** null until proposed, and when the proposer gave none. */
  description: string | null;
  proposer?: { dir: string; trials: number; costUsd?: number };
  tune?: Evaluation;
  /** The skill-arm outcomes on the tune cases: what the proposer is shown when this is the best description. */
  tuneOutcomes?: TrialOutcome[];
  select?: Evaluation;
  dropped?: DropReason;
  detail?: string;
}

type Phase =
  | { kind: 'evaluate'; candidate: number; split: 'tune' | 'select' }
  | { kind: 'propose'; candidate: number }
  | { kind: 'check'; candidate: number }
  | { kind: 'holdout'; side: 'original' | 'winner'; look: number }
  | { kind: 'done'; status: EndStatus };

interface Holdout {
  winner: number;
  /** Rounds run so far: trials per holdout case under each description. */
  rounds: number;
  pairs: HoldoutPair[];
  spent: Record<'original' | 'winner', HoldoutSpent>;
  /** The original's outcomes of the look under way, waiting for the winner's. */
  pending?: TrialOutcome[];
  outcome: HoldoutOutcome;
}

export interface TuneState {
  setup: TuneSetup;
  phase: Phase;
  candidates: Candidate[];
  /** What the proposer is shown of every earlier attempt, repeats and refusals included: shown the same request again, it would answer the same again. */
  attempts: ProposalRequest['attempts'];
  spent: { trials: number; costUsd: number; reported: boolean };
  holdout?: Holdout;
  answer?: Pick<TuneRecord, 'winner' | 'holdout' | 'verdict' | 'result'>;
}

export function startTune(setup: TuneSetup): TuneState {
  return {
    setup,
    phase: { kind: 'evaluate', candidate: 0, split: 'tune' },
    candidates: [{ index: 0, description: setup.original }],
    attempts: [],
    spent: { trials: 0, costUsd: 0, reported: false },
  };
}

/** The next thing to do; a nested run when the cost cap is already reached ends the tune instead. */
export function next(state: TuneState): TuneAction {
  const { phase, setup } = state;
  if (phase.kind === 'done') return phase;
  if (phase.kind === 'check') {
    const c = state.candidates[phase.candidate]!;
    return { kind: 'check', candidate: c.index, description: c.description! };
  }
  const cap = setup.options.maxCostUsd;
  const maxCostUsd = cap === undefined ? undefined : cap - state.spent.costUsd;
  if (maxCostUsd !== undefined && maxCostUsd <= 0) return { kind: 'done', status: 'cost_capped' };
  if (phase.kind === 'evaluate') return { ...phase, name: `iterations/${phase.candidate}/${phase.split}`, maxCostUsd };
  if (phase.kind === 'propose')
    return {
      kind: 'propose',
      name: `iterations/${phase.candidate}/proposer`,
      candidate: phase.candidate,
      prompt: proposerPrompt(state),
      maxCostUsd,
    };
  const h = state.holdout!;
  const upTo = holdoutSchedule(setup.options)[phase.look]!;
  return {
    kind: 'holdout',
    name: `holdout/${h.rounds + 1}-${upTo}/${phase.side}`,
    side: phase.side,
    candidate: phase.side === 'original' ? 0 : h.winner,
    trials: upTo - h.rounds,
    maxCostUsd,
  };
}

/** The state after `action` was done and answered, and what to tell the user of it. */
export function learn(state: TuneState, action: TuneAction, answer: RunAnswer | CheckAnswer): { state: TuneState; notes: string[] } {
  const s = structuredClone(state);
  const notes: string[] = [];
  if (action.kind === 'check') checked(s, action, answer as CheckAnswer, notes);
  else if (action.kind === 'done') throw new Error('a done tune learns nothing');
  else {
    const run = answer as RunAnswer;
    s.spent.trials += run.trials;
    if (run.costUsd !== undefined) [s.spent.costUsd, s.spent.reported] = [s.spent.costUsd + run.costUsd, true];
    if (run.status !== 'completed') s.phase = { kind: 'done', status: run.status };
    else if (action.kind === 'evaluate') evaluated(s, action, run, notes);
    else if (action.kind === 'propose') proposed(s, action, run, notes);
    else looked(s, action, run, notes);
  }
  return { state: s, notes };
}

const summary = (run: RunAnswer) => ({ dir: run.dir, trials: run.trials, ...(run.costUsd !== undefined ? { costUsd: run.costUsd } : {}) });
const recallOf = (c: Candidate, split: 'tune' | 'select') => familyScore(c[split]!.tallies).recall;
const asEvaluated = (c: Candidate) => ({
  description: c.description ?? '',
  tune: c.tune?.tallies ?? [],
  ...(c.select ? { select: c.select.tallies } : {}),
  ...(c.dropped ? { dropped: c.dropped } : {}),
});
const named = (index: number) => (index === 0 ? 'the original' : `iteration ${index}`);

function evaluated(s: TuneState, action: Extract<TuneAction, { kind: 'evaluate' }>, run: RunAnswer, notes: string[]): void {
  const c = s.candidates[action.candidate]!;
  const tallies = run.results.verdicts.map((v) => ({
    caseId: v.caseId,
    role: s.setup.roles[v.caseId]!,
    passes: v.passes,
    trials: v.scored,
    ...(v.estimate ? { estimate: v.estimate.rate } : {}),
  }));
  const score = familyScore(tallies);
  c[action.split] = {
    dir: run.dir,
    score: { recall: nullIfNaN(score.recall), siblings: nullIfNaN(score.siblings), negatives: nullIfNaN(score.negatives) },
    trials: run.trials,
    ...(run.costUsd !== undefined ? { costUsd: run.costUsd } : {}),
    tallies,
  };
  const original = s.candidates[0]!;
  const split = action.split;
  if (split === 'tune') {
    c.tuneOutcomes = run.results.outcomes;
    s.attempts.push({ description: c.description!, tuneScore: score.recall });
  }
  const dropped = c.index === 0 ? undefined : (split === 'tune' ? droppedOnTune : droppedOnSelect)(asEvaluated(original), asEvaluated(c));
  const recall = (x: Candidate, on: 'tune' | 'select') => pct(x[on]!.score.recall);
  if (dropped) return drop(s, c, dropped, `${split} recall ${recall(c, split)} against the original's ${recall(original, split)}`, notes);
  if (split === 'tune') {
    s.phase = { kind: 'evaluate', candidate: c.index, split: 'select' };
    return;
  }
  notes.push(
    `${c.index === 0 ? 'original' : `iteration ${c.index}`}: tune recall ${recall(c, 'tune')}, select recall ${recall(c, 'select')}\n`,
  );
  nextIteration(s, notes);
}

function drop(s: TuneState, c: Candidate, reason: DropReason, detail: string, notes: string[]): void {
  c.dropped = reason;
  c.detail = detail;
  notes.push(`iteration ${c.index}: dropped (${reason}): ${detail}\n`);
  nextIteration(s, notes);
}

/** The description the proposer learns from: the best so far on the tune cases among those still in the running. */
function best(s: TuneState): Candidate {
  const alive = s.candidates.filter(
    (c) => c.tune !== undefined && (c.dropped === undefined || c.dropped === 'not-better' || c.dropped === 'constraint'),
  );
  return alive.reduce((a, b) => (recallOf(b, 'tune') > recallOf(a, 'tune') ? b : a));
}

/** After an iteration: another proposal while iterations are left and the best description still fails a tune case; else the winner. */
function nextIteration(s: TuneState, notes: string[]): void {
  const index = s.candidates.length;
  if (index > s.setup.options.iterations) return chooseForHoldout(s);
  const from = best(s);
  if (proposalFailures(s.setup.failureCases, from.tuneOutcomes!, s.setup.skill, new Set(s.setup.family)).length === 0) {
    const bySiblings = failedBySiblingsOnly(s.setup.failureCases, from.tuneOutcomes!, s.setup.skill);
    const skill = s.setup.skill;
    const why = bySiblings.length
      ? `; ${bySiblings.join(', ')} ${bySiblings.length === 1 ? 'fails' : 'fail'} only because a sibling fires where no skill may, which no description of ${skill} can fix (write \`expect: { not: ${skill} }\` where a sibling may take the request)`
      : '';
    notes.push(`the tune cases have nothing left to learn from (no failure of ${named(from.index)}${why}): no further iteration\n`);
    return chooseForHoldout(s);
  }
  s.candidates.push({ index, description: null });
  s.phase = { kind: 'propose', candidate: index };
}

function proposerPrompt(s: TuneState): string {
  const from = best(s);
  return proposalPrompt({
    skill: s.setup.skill,
    current: from.description!,
    failures: proposalFailures(s.setup.failureCases, from.tuneOutcomes!, s.setup.skill, new Set(s.setup.family)),
    siblings: s.setup.siblings,
    attempts: s.attempts,
    maxChars: s.setup.maxChars,
  });
}

function proposed(s: TuneState, action: Extract<TuneAction, { kind: 'propose' }>, run: RunAnswer, notes: string[]): void {
  const c = s.candidates[action.candidate]!;
  c.proposer = summary(run);
  const description = readProposal(run.text ?? '');
  if (description === undefined) {
    s.attempts.push({ description: '', refused: 'the answer held no <description>' });
    return drop(s, c, 'no-proposal', 'the proposer gave no <description> answer', notes);
  }
  c.description = description;
  // Tried: every description proposed before, unless refused as no proposal or a repeat (its trials were not run).
  const same = s.candidates.find(
    (t) => t !== c && t.description === description && t.dropped !== 'no-proposal' && t.dropped !== 'duplicate',
  );
  if (same) {
    s.attempts.push({ ...s.attempts.find((a) => a.description === description)!, refused: `a repeat of an earlier attempt` });
    return drop(s, c, 'duplicate', `the same description as ${named(same.index)}; its trials are not run again`, notes);
  }
  s.phase = { kind: 'check', candidate: c.index };
}

function checked(s: TuneState, action: Extract<TuneAction, { kind: 'check' }>, answer: CheckAnswer, notes: string[]): void {
  const c = s.candidates[action.candidate]!;
  if ('problem' in answer) {
    s.attempts.push({ description: action.description, refused: answer.problem });
    return drop(s, c, 'lint', answer.problem, notes);
  }
  s.phase = { kind: 'evaluate', candidate: c.index, split: 'tune' };
}

/** The winner on select goes to the holdout; when none beat the original, the holdout stays untouched and the original stays. */
function chooseForHoldout(s: TuneState): void {
  const won = chooseWinner(asEvaluated(s.candidates[0]!), s.candidates.slice(1).map(asEvaluated));
  if (won === 'original') {
    s.answer = { winner: 0, verdict: 'NO SIGNIFICANT CHANGE', result: s.setup.original };
    s.phase = { kind: 'done', status: 'completed' };
    return;
  }
  const spent = () => ({ trials: 0, costUsd: 0, reported: false });
  s.holdout = { winner: won + 1, rounds: 0, pairs: [], spent: { original: spent(), winner: spent() }, outcome: 'continue' };
  s.answer = { winner: won + 1 };
  s.phase = { kind: 'holdout', side: 'original', look: 0 };
}

/** A look of the holdout: the original's batch, then the winner's; after both, the sequential test decides or goes on. */
function looked(s: TuneState, action: Extract<TuneAction, { kind: 'holdout' }>, run: RunAnswer, notes: string[]): void {
  const h = s.holdout!;
  const look = (s.phase as Extract<Phase, { kind: 'holdout' }>).look;
  const side = h.spent[action.side];
  side.trials += run.trials;
  if (run.costUsd !== undefined) [side.costUsd, side.reported] = [side.costUsd + run.costUsd, true];
  if (action.side === 'original') {
    h.pending = run.results.outcomes;
    s.phase = { kind: 'holdout', side: 'winner', look };
    return;
  }
  const schedule = holdoutSchedule(s.setup.options);
  h.pairs.push(...batchPairs(h.pending!, run.results.outcomes, (id) => s.setup.roles[id]!, h.rounds));
  delete h.pending;
  h.rounds = schedule[look]!;
  const seen = recallDiscordance(h.pairs);
  h.outcome = holdoutOutcome(holdoutDesign(s.setup.options), seen.discordant, seen.winnerOnly);
  notes.push(`holdout: ${h.rounds} trials per case, ${seen.winnerOnly} of ${seen.discordant} discordant pairs for the winner\n`);
  if (h.outcome === 'continue' && look + 1 < schedule.length) {
    s.phase = { kind: 'holdout', side: 'original', look: look + 1 };
    return;
  }
  const ended = holdoutAnswer(s.setup.options, h.pairs, h.rounds, h.outcome, h.spent);
  const winner = s.candidates[h.winner]!;
  s.answer = { winner: h.winner, ...ended, result: ended.verdict === 'IMPROVED' ? winner.description! : s.setup.original };
  s.phase = { kind: 'done', status: 'completed' };
}

/** The tune record's part the machine decides: its iterations, what it spent, and its answer once it has one. */
export function recordOf(
  s: TuneState,
): Pick<TuneRecord, 'iterations' | 'trials' | 'costUsd' | 'winner' | 'holdout' | 'verdict' | 'result'> {
  const iterations = s.candidates.map((c): TuneIteration => ({
    index: c.index,
    description: c.description,
    ...(c.proposer ? { proposer: c.proposer } : {}),
    ...(c.tune ? { tune: stepOf(c.tune) } : {}),
    ...(c.select ? { select: stepOf(c.select) } : {}),
    ...(c.dropped ? { dropped: c.dropped, detail: c.detail! } : {}),
  }));
  return {
    iterations,
    trials: s.spent.trials,
    ...(s.spent.reported ? { costUsd: s.spent.costUsd } : {}),
    ...s.answer,
  };
}

const stepOf = ({ tallies: _, ...step }: Evaluation): TuneStep => step;
