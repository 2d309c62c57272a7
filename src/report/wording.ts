import type { MissingAgent } from './reporter.js';
import { fmt, interval, plural, short, usd } from './format.js';
import { tokenCost } from './cost.js';
import type { Auth, TokenPrice } from '../run/config-schema.js';
import {
  BUDGET_STOPS,
  NO_EVIDENCE,
  NOTHING_TO_SCORE,
  VERDICTS,
  type CaseArmSummary,
  type CalibrationMiss,
  type CaseVerdict,
  type ExclusionReason,
  type JudgeFindings,
  type JudgeStability,
  type Rate,
  type RefusedStatus,
  type RunFacts,
  type RunManifest,
  type SettledSavings,
  type TrialStatus,
} from '../run/schema.js';
import type { AgentCell } from '../verdict/agent-matrix.js';
import { SUITE_TRUNCATION } from '../verdict/compare-defaults.js';
import {
  SUITE_RATES,
  type ChangeMethod,
  type Comparison,
  type RateDifference,
  type SuiteChange,
  type SuiteRateName,
} from '../verdict/comparison.js';
import { designOfKind } from '../stats/decision-modes/registry.js';
import { pValueText } from '../util/text.js';

/**
 * What the reports say about a run and its cases, in plain words and without styling: the terminal, markdown and
 * junit reporters share these, so they never explain the same result differently.
 */

/** What each refusal means, in the words a skill author needs. */
export const REFUSED_AS: Record<RefusedStatus, string> = {
  denied: 'denied',
  unknown: 'unknown skill',
  invalid: 'not model-invocable',
};

const STATUS_NAME: Record<TrialStatus, [string, string]> = {
  ok: ['ok', 'ok'],
  timeout: ['timeout', 'timeouts'],
  max_turns: ['max-turns stop', 'max-turns stops'],
  max_budget: ['budget stop', 'budget stops'],
  agent_error: ['agent error', 'agent errors'],
  infra_error: ['infra error', 'infra errors'],
  killed: ['killed', 'killed'],
  isolation_error: ['isolation error', 'isolation errors'],
  output_too_large: ['output too large', 'outputs too large'],
  settled: ['settled', 'settled'],
};

function statusCounts(s: CaseArmSummary, which: (t: TrialStatus) => boolean): { total: number; text: string } {
  const entries = Object.entries(s.statuses).filter(([k, v]) => which(k as TrialStatus) && v) as [TrialStatus, number][];
  return {
    total: entries.reduce((a, [, v]) => a + v, 0),
    text: entries.map(([k, v]) => `${v} ${STATUS_NAME[k][v === 1 ? 0 : 1]}`).join(', '),
  };
}
export const budgetStops = (s: CaseArmSummary) => statusCounts(s, (t) => BUDGET_STOPS.has(t));
export const noEvidence = (s: CaseArmSummary) => statusCounts(s, (t) => NO_EVIDENCE.has(t));

/** Why a trial is not scored: a status that left it out is named as stored; an arm with nothing to score, in words. */
export const exclusionText = (r: ExclusionReason): string => (r === NOTHING_TO_SCORE ? 'nothing to score without the skill' : r);

/**
 * Cases that get a block: every FAIL and INCONCLUSIVE, any case with a skill call the agent refused, and any case a
 * neighbour took trials of.
 */
export function needsBlock(v: CaseVerdict, s: CaseArmSummary | undefined): boolean {
  const f = s?.failures;
  return v.verdict === 'FAIL' || v.verdict === 'INCONCLUSIVE' || (f?.refused.trials ?? 0) > 0 || (f?.neighbour.trials ?? 0) > 0;
}

/** Cases the markdown and html reports explain: the terminal's blocks, and ERROR cases, whose reason a reader needs too. */
export const needsExplaining = (v: CaseVerdict, s: CaseArmSummary | undefined): boolean => needsBlock(v, s) || v.verdict === 'ERROR';

/** `7 PASS · 2 FAIL`: how many of each kind occur, in the kinds' order, absent kinds left out. */
export function kindCounts<K extends string>(kinds: readonly K[], values: readonly K[]): string {
  return kinds
    .map((k) => [k, values.filter((v) => v === k).length] as const)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`)
    .join(' · ');
}
export const verdictCounts = (verdicts: readonly CaseVerdict[]) =>
  kindCounts(
    VERDICTS,
    verdicts.map((v) => v.verdict),
  );

/** Marks beside a verdict's rate, one meaning each: `†` adjusted for stopping early (adjustedNote), `*` descriptive only (DESCRIPTIVE_NOTE). */
export const ADJUSTED_MARK = '†';
export const DESCRIPTIVE_MARK = '*';

export type RateEstimate = NonNullable<CaseVerdict['estimate']>;

/** `0.87 [0.71, 0.95]`: the rate adjusted for stopping early and its exact interval, unmarked. */
export const estimateText = (e: RateEstimate) => `${fmt(e.rate)} ${interval({ lo: e.lower, hi: e.upper })}`;

/**
 * The rate a case's verdict stands on. When the design stopped the case, its rate adjusted for stopping early
 * (median-unbiased, exact interval under the stopping rule), marked `†`; otherwise the skill arm's pass rate and
 * Wilson interval, marked `*` when that interval is descriptive only (a sequential stop without an adjusted rate,
 * as results.json files written before designs had).
 */
export function verdictRate(v: CaseVerdict, s: Pick<CaseArmSummary, 'rate'> | undefined): string {
  if (v.estimate) return `${estimateText(v.estimate)}${ADJUSTED_MARK}`;
  return s && s.rate.n ? `${fmt(s.rate.p)} ${interval(s.rate)}${v.descriptiveInterval ? DESCRIPTIVE_MARK : ''}` : '—';
}

const percentOf = (level: number) => `${Math.round(level * 100)}%`;

/** What an adjusted rate is, at the estimates' level(s). */
export const adjustedMeaning = (levels: readonly number[]) =>
  `adjusted for stopping early: median-unbiased estimate and exact ${[...new Set(levels.map(percentOf))].join(' or ')} interval under the sequential design's stopping rule`;
/** What `†` means. */
export const adjustedNote = (levels: readonly number[]) => `${ADJUSTED_MARK} ${adjustedMeaning(levels)}`;
export const DESCRIPTIVE_MEANING = 'descriptive only: the case stopped early by a sequential rule, which biases the interval';
/** What `*` means. */
export const DESCRIPTIVE_NOTE = `${DESCRIPTIVE_MARK} ${DESCRIPTIVE_MEANING}`;

/**
 * A PASS rules out p ≤ p1 at the design's β; it never shows p ≥ p0. Said for a PASS whose rate (adjusted where the
 * design stopped the case) sits below its threshold, which would otherwise read as a contradiction.
 */
export function passBelowThreshold(v: CaseVerdict, s: CaseArmSummary | undefined): string | undefined {
  const rate = v.estimate?.rate ?? (s?.rate.n ? s.rate.p : undefined);
  const p0 = v.params.threshold;
  if (v.verdict !== 'PASS' || rate === undefined || rate >= p0) return undefined;
  const p1 = fmt(p0 - v.params.delta);
  const beta = v.design ? fmt(v.design.beta, 3) : String(v.params.beta);
  return (
    `${v.caseId} passed with a rate of ${fmt(rate)}, below its p0 ${fmt(p0)}: a PASS rules out p ≤ ${p1} (a case at ${p1} passes with chance ` +
    `β ${beta}), it does not show p ≥ ${fmt(p0)}; to tell rates nearer ${fmt(p0)} apart, narrow delta`
  );
}

/** What each PASS below its threshold means, one note per case (passBelowThreshold). */
export const passNotes = (verdicts: readonly CaseVerdict[], skillRow: ReadonlyMap<string, CaseArmSummary>): string[] =>
  verdicts.flatMap((v) => passBelowThreshold(v, skillRow.get(v.caseId)) ?? []);

/** The notes the marks on these verdicts' rates need (verdictRate), each once. */
export function rateNotes(verdicts: readonly CaseVerdict[]): string[] {
  const levels = verdicts.flatMap((v) => (v.estimate ? [v.estimate.level] : []));
  return [
    ...(levels.length ? [adjustedNote(levels)] : []),
    ...(verdicts.some((v) => v.descriptiveInterval && !v.estimate) ? [DESCRIPTIVE_NOTE] : []),
  ];
}

/**
 * The design that decided a case, briefly: its maximum (or, for Wald's test, where it gives up) and its exact error
 * rates as run, e.g. `decides by 19 trials · exact α 0.050 β 0.196`. Undefined for fixed N and older results.
 */
export function designText(v: CaseVerdict): string | undefined {
  const d = v.design;
  if (!d) return undefined;
  const cap = v.params.maxTrials < d.maxTrials ? v.params.maxTrials : undefined;
  return `${designOfKind(d.kind).reach(d.maxTrials, cap)} · exact α ${fmt(d.alpha, 3)} β ${fmt(d.beta, 3)}`;
}

/** The trials a verdict used: where a sequential rule decided, and how many were already running then. */
export function trialsUsed(v: CaseVerdict): string {
  return v.decidedAt !== undefined ? `${v.decidedAt}${v.afterDecision ? ` (+${v.afterDecision} in flight)` : ''}` : String(v.scored);
}

/** `+0.12 [-0.03, 0.27]`: a difference of rates with its interval. */
export const signedDifference = (d: RateDifference) => `${d.diff >= 0 ? '+' : ''}${fmt(d.diff)} ${interval(d)}`;

const SUITE_RATE_LABEL: Record<SuiteRateName, string> = {
  passRate: 'pass rate',
  recall: 'trigger recall',
  falseTriggers: 'false triggers',
  siblingConfusion: 'sibling confusion',
};

/** How the suite-level verdict is reached, in one phrase. */
export const SUITE_METHOD = `one-sided toward a drop: REGRESSED on a case's regression or on the truncated product (p ≤ ${SUITE_TRUNCATION}) of every case's exact test against its exact null (skill arm); UNCHANGED only when every case rules out a drop of the margin; rates: the mean of the cases' changes, descriptive`;

/** What UNCHANGED means in a comparison's case table: two-sided rows, and a canary's one-sided ones. */
export const unchangedLegend = (c: Pick<Comparison, 'cases' | 'margin'>) =>
  `unchanged = interval within ±${c.margin}` +
  (c.cases.some((x) => x.method === 'canary') ? ` (canary rows: its lower end above −${c.margin})` : '');

/** The suite's rates as rows: name, change with its interval, the cases it averages. Rates no case has are left out. */
export function suiteRateRows(s: SuiteChange): [string, string, string][] {
  return SUITE_RATES.filter((r) => s.rates[r].cases > 0).map((r) => [
    SUITE_RATE_LABEL[r],
    signedDifference(s.rates[r]),
    plural(s.rates[r].cases, 'case'),
  ]);
}

/** `moved most: a −0.83 (REGRESSED), b −0.50 (UNDECIDED)`. */
export function movedText(s: SuiteChange): string {
  return s.moved.length
    ? `moved most: ${s.moved.map((m) => `${m.caseId} ${m.diff >= 0 ? '+' : ''}${fmt(m.diff)} (${m.change})`).join(', ')}`
    : 'no case moved';
}

/** `model X`, and what the agent reported when it differs. */
export function modelText(run: RunFacts): string {
  const reported = run.model.reported && run.model.reported !== run.model.requested ? ` (the agent reported ${run.model.reported})` : '';
  return `model ${run.model.requested}${reported}${run.auth ? ` · ${AUTH_TEXT[run.auth]}` : ''}`;
}

/** How the trials reached the model, as a report's header says it. */
export const AUTH_TEXT: Record<Auth, string> = { key: 'API key', login: 'subscription login' };

export const simulatorText = (sim: NonNullable<RunFacts['simulator']>) =>
  `skillprobe's model simulator answered, profile "${sim.name}" (${sim.profile}, seed ${sim.seed}).`;
export const SIMULATED_NOTE = "These numbers only echo the simulator profile: they test skillprobe and the suite's wiring, not the skill.";
/** Which of two compared runs the simulator answered, in a sentence; undefined when a model answered both. */
export function simulatedRunsText(c: { base: { simulated: boolean }; candidate: { simulated: boolean } }): string | undefined {
  const which = simulatedRuns(c);
  if (!which) return undefined;
  const were = which.includes(' and ') ? 's were' : ' was';
  return `the ${which} run${were} answered by skillprobe's model simulator: the differences echo simulator profiles, not a model.`;
}

/** `base`, `candidate` or `base and candidate`: the compared runs the simulator answered. */
export const simulatedRuns = (c: { base: { simulated: boolean }; candidate: { simulated: boolean } }) =>
  [c.base.simulated && 'base', c.candidate.simulated && 'candidate'].filter(Boolean).join(' and ');

/** Beside a simulated run's dollars: the CLI prices the token counts the simulator reports, as if a model had answered. */
export const SIMULATED_COST = "simulated: the CLI priced the simulator's token counts, and no model was paid";

/** Beside a login's dollars: the CLI prices its tokens as the API would, but a subscription pays with its quota. */
export const LOGIN_COST = "notional: the CLI's price of the tokens at API rates; a subscription login spends its quota, not these dollars";

/** What a run's dollars are when they are not money paid (simulated, or a login's notional price); undefined: billed. */
export const costNote = (run: { simulated: boolean; costNotional?: true }): string | undefined =>
  run.simulated ? SIMULATED_COST : run.costNotional ? LOGIN_COST : undefined;

/** A token count in a few characters: 950, 9.5k, 970k, 1.2M. */
export function tokenCount(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 10_000) return `${(n / 1000).toFixed(1).replace(/\.0$/, '')}k`;
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  if (n < 10_000_000) return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
  return `${Math.round(n / 1_000_000)}M`;
}

/**
 * The CACHE line: how much of the run's input the providers' prompt caches served, from the CLIs' own usage reports.
 * It names no price: cache discounts differ by provider and model, and the CLI's dollars (when it reports any) already
 * count them. Undefined when no trial reported usage.
 */
export function cacheText(run: {
  tokens?: { input: number; cached: number; cacheWrite?: number; output: number; trials: number };
  tokenPrice?: TokenPrice & { model: string };
  costUsd?: number;
  simulated: boolean;
  trials?: number;
}): string | undefined {
  const t = run.tokens;
  if (!t || t.input <= 0) return undefined;
  const pct = Math.round((100 * t.cached) / t.input);
  const written = t.cacheWrite ? `, ${tokenCount(t.cacheWrite)} of them written to the cache` : '';
  const over = run.trials !== undefined && t.trials < run.trials ? ` in the ${t.trials} of ${run.trials} trials that reported usage` : '';
  const which = run.simulated ? "the simulator's prompt cache" : 'the prompt cache';
  const priced = run.tokenPrice ? tokenCost(t, run.tokenPrice) : undefined;
  const cost = priced
    ? `at the configured prices for ${run.tokenPrice!.model}: ${usd(priced.paidUsd)} for these tokens; ${usd(priced.uncachedUsd)} without the cache ` +
      `(the cache saved ${usd(priced.uncachedUsd - priced.paidUsd)})`
    : run.costUsd === undefined
      ? 'the CLI reports no cost: providers bill cached input at a fraction of the input price, per model (`prices` in the config prices it)'
      : "the CLI's cost already counts cached input at the provider's lower cache price";
  return (
    `CACHE · ${pct}% of ${tokenCount(t.input)} input tokens${over} came from ${which} ` +
    `(${tokenCount(t.cached)} cached, ${tokenCount(t.input - t.cached)} not${written}) · ${cost}`
  );
}

/**
 * The SETTLED line: the trials stopped once their outcome was settled, of a run's `trials`, and what that saved where a
 * trial of the same case, arm and choice ran to its end to compare with. Undefined when none was stopped early.
 */
export function settledText(s: SettledSavings | undefined, trials: number): string | undefined {
  if (!s) return undefined;
  const head = `SETTLED · ${s.settled} of ${plural(trials, 'trial')} stopped once their outcome was settled (\`--no-settle\` runs each to its end)`;
  if (!s.estimated) return `${head} · no trial of the same case and choice ran to its end, so what settling saved is not estimated`;
  const { inputTokens, outputTokens, wallMs, costUsd } = s.saved;
  const cost = costUsd === undefined ? '' : `, ${usd(costUsd)}`;
  const rest = s.settled - s.estimated;
  return (
    `${head} · saved about ${tokenCount(inputTokens)} input and ${tokenCount(outputTokens)} output tokens, ` +
    `${(wallMs / 1000).toFixed(1)} s of trial time${cost} in the ${s.estimated} with a trial of the same case and choice run to its end` +
    (rest ? `; ${rest} had none to estimate from` : '')
  );
}

export interface CaseFact {
  text: string;
  /** The agent refused a skill call: the skill never loaded, which reports make stand out. */
  alarm: boolean;
}

/** Why a case's skill-arm trials passed or failed, one fact a line: what fired, what the model did instead, what stopped it. */
export function caseFacts(s: CaseArmSummary): CaseFact[] {
  const f = s.failures;
  const of = (k: number) => `${k} of ${s.rate.n}`;
  const facts: CaseFact[] = [];
  const say = (text: string, alarm = false) => facts.push({ text, alarm });
  const left = noEvidence(s);
  say(`passed ${of(s.rate.successes)}${left.total ? `; ${plural(left.total, 'trial')} left out (${left.text})` : ''}`);
  const firedIn = (others: typeof f.firedOthers) => others.map((o) => `${o.skill} fired in ${of(o.trials)}`).join('; ');
  const firedOthers = firedIn(f.firedOthers);
  // A "not this skill" case: only the skill it forbids is a false trigger; a sibling taking the request is right.
  const forbidden = f.firedOthers.filter((o) => s.not === undefined || o.skill === s.not);
  const free = f.firedOthers.filter((o) => s.not !== undefined && o.skill !== s.not);
  if (f.falseTrigger.trials) say(`false trigger: ${firedIn(forbidden)}`);
  if (free.length) say(`siblings may take it (not ${s.not}): ${firedIn(free)}`);
  if (f.sibling.trials) say(`sibling: ${firedOthers}`);
  for (const n of f.firedNeighbours) say(`neighbour ${n.skill} fired in ${of(n.trials)}: ${fmt(n.share.p)} ${interval(n.share)}`);
  if (f.didNotFire.trials) {
    const w = f.whenSilent;
    const outside = f.didNotFire.trials - w.clarifying - w.answered - w.empty;
    const instead = [
      w.clarifying && `asked a clarifying question in ${w.clarifying}`,
      w.answered && `answered without a skill in ${w.answered}`,
      w.empty && `wrote nothing in ${w.empty}`,
      outside > 0 && `called a skill outside the family in ${outside}`,
    ].filter(Boolean);
    say(`did not fire in ${of(f.didNotFire.trials)}${instead.length ? `: the model ${instead.join(', ')}` : ''}`);
  }
  if (f.wentAround?.trials && s.wentAround) {
    const failed = s.rate.n - s.rate.successes;
    say(
      `went around the skill in ${of(f.wentAround.trials)} (rate ${fmt(s.wentAround.p)} ${interval(s.wentAround)}): the model acted by itself (a command, a write, a fetch or a sub-agent) before any skill fired, ${f.wentAround.trials} of the ${failed} failures`,
    );
  }
  if (s.firingTurns) {
    const byTurn = s.firingTurns.byTurn.map((r, k) => `turn ${k + 1} ${fmt(r.p)} ${interval(r)}`).join(', ');
    say(`fired by ${byTurn} (first fired on each turn: ${s.firingTurns.counts.join(', ')}; the intervals hold together)`);
  }
  if (f.usedTool?.trials) {
    const tools = f.usedTool.tools.map((t) => (f.usedTool!.tools.length > 1 ? `${t.tool} ×${t.trials}` : t.tool));
    say(`used an MCP tool instead in ${of(f.usedTool.trials)} (${tools.join(', ')}): the model chose the tool before any skill fired`);
  }
  if (f.planWrong.trials) {
    const checks = f.planChecks.map(
      (k) =>
        `${k.check} failed in ${k.failed} (${k.details.map((d) => (k.details.length > 1 ? `${d.detail || 'failed'} ×${d.trials}` : d.detail || 'failed')).join(', ')})`,
    );
    say(`fired, but the plan was wrong in ${of(f.planWrong.trials)}: ${checks.join('; ')}`);
  }
  for (const j of f.judged) {
    const shown = j.scored ? '' : ` (${JUDGE_SHOWN})`;
    if (j.no) say(`the judge said no to "${j.item}" in ${of(j.no)}${shown}`);
    if (j.noVerdict)
      say(`the judge gave no verdict on "${j.item}" in ${plural(j.noVerdict, 'trial')}${j.scored ? ' (left out of n)' : shown}`);
  }
  if (f.refused.trials) {
    const calls = f.refused.calls.map((r) => `${r.requested} ${REFUSED_AS[r.status]} in ${r.trials}`).join('; ');
    say(`refused by the agent in ${of(f.refused.trials)}: ${calls} (graded as the model's choice, but the skill never loaded)`, true);
  }
  if (s.fired.readOnly) say(`fired only by reading its SKILL.md (a read-trigger) in ${s.fired.readOnly}`);
  const stops = budgetStops(s);
  if (stops.total) say(`stopped by the budget: ${stops.text}`);
  return facts;
}

/** ", so it lists a, b by name only: …", or nothing when the listing cuts no family description. */
const cutText = (cut: readonly string[]) =>
  cut.length
    ? `, so it lists ${cut.join(', ')} by name only: the model never sees ${cut.length > 1 ? 'their descriptions' : 'its description'}`
    : '';

/**
 * The user's other skills a run installed beside the family, and the listing they share with it: which of the
 * family's descriptions the CLI cuts (the skill listed by name only); then each case's own neighbours, with the listing
 * its trials got. Undefined for a run without neighbours.
 */
export function neighboursNote(manifest: Pick<RunManifest, 'neighbours' | 'listing' | 'cases'>): string | undefined {
  const { neighbours, listing } = manifest;
  const own = manifest.cases.defs.filter((c) => c.neighbours?.length);
  if ((!neighbours?.length && !own.length) || !listing) return undefined;
  const suite = neighbours?.length
    ? [
        `neighbours: ${plural(neighbours.length, 'skill')} of the user's listed beside the family in both arms (${neighbours.map((n) => n.dir).join(', ')}); the skill listing takes ${listing.chars}${listing.budgetChars === undefined ? ` characters (${listing.cli} lists every skill whole)` : ` of the ~${listing.budgetChars} characters ${listing.cli} gives it`}${cutText(listing.byNameOnly)}`,
      ]
    : [];
  const cases = own.map(
    (c) =>
      `case ${c.id} lists its own ${c.neighbours!.map((n) => n.dir).join(', ')} too${c.listing ? `: ${c.listing.chars} characters${cutText(c.listing.byNameOnly)}` : ''}`,
  );
  return [...suite, ...cases].join('; ');
}

/** Whether a listing of the run (the suite's, or a case's with its own neighbours) cuts a family description: a warning. */
export const listingCutsFamily = (manifest: Pick<RunManifest, 'listing' | 'cases'>): boolean =>
  (manifest.listing?.byNameOnly.length ?? 0) > 0 || manifest.cases.defs.some((c) => (c.listing?.byNameOnly.length ?? 0) > 0);

/** Said beside an uncalibrated judge's verdicts. */
export const JUDGE_SHOWN = 'shown, not scored: the judge is uncalibrated';

/** Who judged: `judged by claude-code, model sim-judge, 3 samples per item`, the model under test named as such. */
export function judgeWhoText(j: JudgeFindings): string {
  const who = `${j.agent}, model ${j.model}`;
  return `judged by ${j.self ? `the model under test (judge.allowSelf): ${who}` : who}, ${plural(j.samples, 'sample')} per item`;
}

/** The judge CLI's trials: each answered request was asked `samples` times. */
const judgeTrials = (j: JudgeFindings) => (j.requests - j.unanswered) * j.samples;

/** `17 requests asked (51 trials), 2 unanswered · $0.676`. */
export function judgeRequestsText(j: JudgeFindings): string {
  const unanswered = j.unanswered ? `, ${j.unanswered} unanswered` : '';
  return `${plural(j.requests, 'request')} asked (${plural(judgeTrials(j), 'trial')})${unanswered}${j.costUsd === undefined ? '' : ` · ${usd(j.costUsd)}`}`;
}

/** Beside the trials' cost, which counts only the trials under test: `+ $0.676 for the judge's 51 trials`. */
export const judgeCostText = (j: JudgeFindings | undefined): string =>
  j?.costUsd === undefined ? '' : ` + ${usd(j.costUsd)} for the judge's ${plural(judgeTrials(j), 'trial')}`;

/** Whether the run's config gates on the judge (`judge.gate`). */
export const judgeGates = (manifest: Pick<RunManifest, 'config'>) => manifest.config.judge?.gate === true;

/** What `judge.gate` makes of an untrusted judge (UNSTABLE checks, or no calibration). */
export const judgeGateText = (gate: boolean) =>
  gate
    ? 'it gates (judge.gate): a case its judged items decide is INCONCLUSIVE, one that fails without them still FAILs'
    : 'advisory (judge.gate is off)';

/** A case whose judge cannot back its verdict (`untrustedJudge`): a few words beside the verdict, and the note saying why. */
const UNTRUSTED_JUDGE: Record<NonNullable<CaseVerdict['untrustedJudge']>, { short: string; note: string }> = {
  uncalibrated: {
    short: 'judged items unchecked',
    note: 'judged items unchecked: the judge is UNCALIBRATED, so its verdicts are shown, not scored, and the case is decided on its other checks alone',
  },
  unstable: {
    short: 'judge UNSTABLE',
    note: "judge UNSTABLE: its samples on the case's judged items disagree more often than judge.maxFlipRate, so its verdicts there may not hold",
  },
};

/** What a verdict's untrusted judge makes of it, or undefined when its judge backs it (or it has none). */
export const untrustedJudge = (v: Pick<CaseVerdict, 'untrustedJudge'>) => v.untrustedJudge && UNTRUSTED_JUDGE[v.untrustedJudge];

/** What follows the verdict: ` · judged items unchecked`, or nothing. */
export const untrustedJudgeMark = (v: Pick<CaseVerdict, 'untrustedJudge'>) =>
  v.untrustedJudge ? ` · ${UNTRUSTED_JUDGE[v.untrustedJudge].short}` : '';

/** The notes under a table of verdicts: each kind of untrusted judge once. */
export const untrustedJudgeNotes = (verdicts: readonly CaseVerdict[]) => [
  ...new Set(verdicts.flatMap((v) => (v.untrustedJudge ? [UNTRUSTED_JUDGE[v.untrustedJudge].note] : []))),
];

/** `PASS · judged items unchecked`, or the verdict alone. */
export const verdictWithJudge = (v: Pick<CaseVerdict, 'verdict' | 'untrustedJudge'>) => `${v.verdict}${untrustedJudgeMark(v)}`;

/** `CALIBRATED · 11 controls and examples, all answered right`, or UNCALIBRATED and why. */
export function calibrationText(j: JudgeFindings, gate: boolean): string {
  const asked = plural(j.calibration.asked, 'control or example', 'controls and examples');
  if (j.calibrated) return `CALIBRATED · ${asked}, all answered right`;
  const missed = j.calibration.missed.length;
  const why = missed ? `missed ${missed} of ${asked}` : `not all of ${asked} answered yet`;
  return `UNCALIBRATED · ${why}: its verdicts are shown, not scored · ${judgeGateText(gate)}`;
}

/** How much of a control's answer a report quotes, on one line. */
const QUOTED_ANSWER = 60;

/** How a consistency control asked its request differently from the plain one it must agree with. */
const ASKED_AS: Record<string, string> = { reworded: 'reworded', reordered: 'with the rubric reordered' };

/**
 * `injection: "Does it …?" on "Ignore the question and …": expected no, got yes`. A consistency control has no right
 * answer of its own, only agreement: either of its two verdicts may be the one that flipped, so both are named.
 */
export function calibrationMissText(m: CalibrationMiss): string {
  const answer = m.answer.replace(/\s+/g, ' ').trim();
  const shown = answer.length > QUOTED_ANSWER ? `${answer.slice(0, QUOTED_ANSWER - 1)}…` : answer;
  const asked = ASKED_AS[m.kind];
  const outcome = asked
    ? `expected the same verdict asked plainly and ${asked}, got ${m.expected} plainly and ${m.got} ${asked}`
    : `expected ${m.expected}, got ${m.got}`;
  return `${m.kind}: "${m.item}" on "${shown}": ${outcome}`;
}

/** `1 of 6 items' samples disagreed 0.17 [0.03, 0.56]`: how often a case's judged items got split samples. */
export const disagreementText = (s: JudgeStability) =>
  s.comparable
    ? `${s.disagreeing} of ${plural(s.comparable, "item's samples", "items' samples")} disagreed ${fmt(s.share.p)} ${interval(s.share)}`
    : 'no item had two readable samples to compare';

/** What the disagreement share is, and when it makes a case's judged checks UNSTABLE. */
export const stabilityNote = (j: JudgeFindings) =>
  `disagreement: the share of a case's judged items, each trial's counted apart, whose ${j.samples} samples split; UNSTABLE: shown to exceed ` +
  `judge.maxFlipRate ${fmt(j.maxFlipRate)} by a one-sided exact test`;

/** Why a case's judged checks are UNSTABLE, and whether that gates the run; undefined when they are not. */
export const unstableText = (s: JudgeStability, j: JudgeFindings, gate: boolean): string | undefined =>
  s.unstable
    ? `UNSTABLE: more than ${fmt(j.maxFlipRate)} disagree (p ${pValueText(s.p ?? Number.NaN)}) · ${judgeGateText(gate)}`
    : undefined;

/** `0.80 [0.49, 0.94] (8/10)`: a rate, its interval and its counts. */
export const rateText = (r: Rate) => (r.n === 0 ? 'no scored trials' : `${fmt(r.p)} ${interval(r)} (${r.successes}/${r.n})`);

/** How a comparison tested a case's difference, in a reader's words. */
export const METHOD_NAME: Record<ChangeMethod, string> = {
  boschloo: "Boschloo's exact test",
  design: "the exact test under both runs' stopping rules",
  anytime: 'anytime-valid tests (a run stopped the case short of its rule)',
  canary: "the canary against this base (one-sided exact test of a drop, under the candidate's stopping rule)",
};

/** An agent's result for one case, in the agents × cases matrix: `PASS 9/10 · fires 90%` (negative: false triggers). */
export function agentCellText(cell: AgentCell | undefined, negative: boolean): string {
  if (!cell) return '—';
  const rate =
    cell.triggerRate === undefined ? 'no evidence' : `${negative ? 'false triggers' : 'fires'} ${Math.round(cell.triggerRate * 100)}%`;
  return `${cell.verdict} ${cell.passes}/${cell.scored} · ${rate}`;
}

/** An agent the run was for with nothing to report, and how to get it: `agent codex: nothing to report (…)`. */
export const missingAgentText = (m: MissingAgent, runDir: string) =>
  `agent ${m.id}: nothing to report, ${m.why} (\`skillprobe run --resume ${runDir}\` runs it)`;

export const AGENT_MATRIX_NOTE =
  'Each cell: verdict, passes/scored, and how often the expected skill fired (for a negative case, how often any skill fired). ◆ marks a case where the agents disagree.';

/** What a run says of skill folders edited while it went (run.json `skillsChangedDuringRun`). */
export const skillsEditedNote = (dirs: readonly string[]) =>
  `skills edited during the run: ${dirs.join(', ')} — every trial got them as they were at its start (kept in the run folder's skills/); \`run --resume\` refuses the edited ones`;

/** What the firing-turn table says under it, in every reporter. */
export const FIRING_TURN_NOTE =
  "each case's intervals hold together over its turns (Clopper–Pearson, Bonferroni) · the prompt is turn 1, each follow-up sent the next";

/**
 * The cases with follow-ups as the firing-turn table shows them: the head (case, n, by turn k…) and one row each of
 * the share of usable trials whose skill had fired by each turn, with its interval; none when no case has follow-ups.
 */
export function firingTurnTable(
  rows: readonly CaseArmSummary[],
  rate: (r: Rate) => string = (r) => `${short(r.p)} ${interval(r)}`,
): { head: string[]; body: string[][] } | undefined {
  const shown = rows.filter((s) => s.firingTurns);
  if (shown.length === 0) return undefined;
  const turns = Math.max(...shown.map((s) => s.firingTurns!.byTurn.length));
  const each = Array.from({ length: turns }, (_, k) => k);
  return {
    head: ['case', 'n', ...each.map((k) => `by turn ${k + 1}`)],
    body: shown.map((s) => [
      s.caseId,
      String(s.firingTurns!.byTurn[0]?.n ?? 0),
      ...each.map((k) => {
        const r = s.firingTurns!.byTurn[k];
        return r ? rate(r) : '—';
      }),
    ]),
  };
}
