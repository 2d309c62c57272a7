import type { Arm, Context } from '../run/config-schema.js';
import type { CaseArmSummary, CaseVerdict, Results, ResultsHead, RunManifest, RunStatus } from '../run/schema.js';
import type { MutateRecord } from '../run/mutate-schema.js';
import type { TuneRecord } from '../run/tune-schema.js';
import { isAbsolute } from 'node:path';
import { paragraph, REPORT_WIDTH, table, usd } from './format.js';
import { killRates } from './mutate/view.js';
import { rateNotes, verdictCounts, verdictRate } from './wording.js';
import { InputError } from '../util/input-error.js';

/**
 * The runs of a transcripts folder and a case's trend across them: one reading of each run's run.json and results.json
 * into a small summary, and the words every rendering of them uses (`history`'s text, `view`'s pages, the html
 * report's runs of several agents: runCells, trendCells).
 */

/** What made a run other than a plain one, as the list names it. */
export type RunKind = 'several agents' | 'canary' | 'judged' | 'shard' | 'merged' | 'resumed' | 'tune' | 'mutate';

/** One of the runs a tune or a mutate made: its folder (relative to theirs) and what it was for. */
export interface NestedRun {
  dir: string;
  what: string;
}

/** One case of a run: its verdict, the skill arm's rate behind it, and what its trials cost. */
export interface CaseLine {
  verdict: CaseVerdict;
  /** The skill arm's pass rate. */
  skill?: Pick<CaseArmSummary, 'rate'>;
  /** The ablation arm's (the family removed), where the run had one for the case. */
  ablation?: Pick<CaseArmSummary, 'rate'>;
  costUsd?: number;
}

/** A run folder as the list shows it: small enough to keep for a thousand runs. */
export interface RunSummary {
  /** The run folder under the transcripts folder (`<run>/<agent's run>` inside a run of several agents). */
  runId: string;
  run?: {
    agent: string;
    cliVersion?: string;
    /** The model the CLI reported, else the one asked for. */
    model: string;
    /** The simulator's profile, when the run was simulated. */
    profile?: string;
    profileHash?: string;
    status: RunStatus;
    startedAt: string;
    context: Context;
    skillsHash: string;
    kinds: RunKind[];
    finished: number;
  };
  results?: { cases: CaseLine[]; trials: number; costUsd?: number };
  /** A folder of several runs (a tune, a mutate): what came out, what it spent, and its runs. */
  record?: { outcome: string; trials: number; costUsd?: number; runs: NestedRun[] };
  /** Why the folder could not be read, or why it has no results. */
  problem?: string;
}

function kindsOf(runId: string, m: RunManifest): RunKind[] {
  const kinds: [RunKind, boolean][] = [
    ['several agents', runId.includes('/')],
    ['canary', m.canary !== undefined],
    ['judged', m.cases.defs.some((d) => (d.judge?.length ?? 0) > 0)],
    ['shard', m.shard !== undefined],
    ['merged', m.mergedFrom !== undefined],
    ['resumed', (m.resumedAt?.length ?? 0) > 0],
  ];
  return kinds.flatMap(([k, on]) => (on ? [k] : []));
}

/** A run's summary from what its folder holds; `problem` says what could not be read. Pure. */
export function summariseRun(runId: string, manifest?: RunManifest, results?: Results | ResultsHead, problem?: string): RunSummary {
  const m = manifest;
  const run: RunSummary['run'] = m && {
    agent: m.agent.id,
    ...(m.agent.cliVersion !== undefined ? { cliVersion: m.agent.cliVersion } : {}),
    model: m.reportedModel ?? m.model,
    ...(m.simulator
      ? { profile: m.simulator.profile, ...(m.simulator.behaviourHash ? { profileHash: m.simulator.behaviourHash } : {}) }
      : {}),
    status: m.status,
    startedAt: m.startedAt,
    context: m.config.context ?? 'lab',
    skillsHash: m.skillsHash,
    kinds: kindsOf(runId, m),
    finished: m.trials.finished,
  };
  const cost = new Map<string, number>();
  for (const o of results?.outcomes ?? []) if (o.costUsd !== undefined) cost.set(o.caseId, (cost.get(o.caseId) ?? 0) + o.costUsd);
  const summary: RunSummary = { runId, ...(run ? { run } : {}), ...(problem ? { problem } : {}) };
  if (!results) return summary;
  const cases = results.verdicts.map((verdict) => {
    const arm = (a: Arm) => results.summary.cases.find((s) => s.caseId === verdict.caseId && s.arm === a);
    const [skill, ablation] = [arm('skill'), arm('ablation')];
    const c = cost.get(verdict.caseId);
    return {
      verdict,
      ...(skill ? { skill: { rate: skill.rate } } : {}),
      ...(ablation ? { ablation: { rate: ablation.rate } } : {}),
      ...(c !== undefined ? { costUsd: c } : {}),
    };
  });
  return {
    ...summary,
    results: { cases, trials: results.outcomes.length, ...(results.run.costUsd !== undefined ? { costUsd: results.run.costUsd } : {}) },
  };
}

/** A record's run folders that stay inside its folder: a path climbing out of it is never served nor linked. */
const inside = (runs: NestedRun[]): NestedRun[] => runs.filter((r) => !isAbsolute(r.dir) && !r.dir.split(/[\\/]/).includes('..'));

/** A tune's or a mutate's folder as a row of the list, from what both records keep. */
function recordSummary(
  runId: string,
  kind: 'tune' | 'mutate',
  r: TuneRecord | MutateRecord,
  outcome: string,
  runs: NestedRun[],
): RunSummary {
  return {
    runId,
    run: {
      agent: r.agent,
      model: r.model ?? '?',
      ...(r.simulator ? { profile: r.simulator.profile } : {}),
      status: r.status,
      startedAt: r.startedAt,
      context: r.context ?? 'lab',
      skillsHash: r.familyHash ?? '',
      kinds: [kind],
      finished: r.trials,
    },
    record: { outcome, trials: r.trials, ...(r.costUsd !== undefined ? { costUsd: r.costUsd } : {}), runs: inside(runs) },
  };
}

/** A tune folder as a row of the list: its skill, agent, status and verdict, and each step's run. Pure. */
export function summariseTune(runId: string, t: TuneRecord): RunSummary {
  const runs = t.iterations.flatMap((it) => {
    const name = it.index === 0 ? 'original' : `candidate ${it.index}`;
    return [
      ...(it.proposer ? [{ dir: it.proposer.dir, what: `${name}: proposer` }] : []),
      ...(it.tune ? [{ dir: it.tune.dir, what: `${name}: tune cases` }] : []),
      ...(it.select ? [{ dir: it.select.dir, what: `${name}: select cases` }] : []),
    ];
  });
  if (t.holdout)
    runs.push({ dir: t.holdout.original.dir, what: 'holdout: original' }, { dir: t.holdout.winner.dir, what: 'holdout: winner' });
  return recordSummary(runId, 'tune', t, `${t.skill}: ${t.verdict ?? t.status}`, runs);
}

/**
 * A mutate folder as a row of the list: its skills, agent, status and kill rate, the unmutated run (when it ran
 * here) and each mutant's run. Pure.
 */
export function summariseMutate(runId: string, m: MutateRecord): RunSummary {
  const overall = killRates(m).at(-1)!;
  const runs = [
    ...(m.base.given ? [] : [{ dir: m.base.dir, what: 'original (unmutated)' }]),
    ...m.mutants.flatMap((x) => (x.dir ? [{ dir: `${x.dir}/run`, what: `${x.skill} · ${x.operator}` }] : [])),
  ];
  return recordSummary(runId, 'mutate', m, `${m.skills.join(', ')}: killed ${overall.killed}/${overall.ran}`, runs);
}

/** `claude-sonnet-4-5 (SIM)`: the model, marked when the simulator stood in for it. */
export const modelText = (run: NonNullable<RunSummary['run']>) => `${run.model}${run.profile !== undefined ? ' (SIM)' : ''}`;

/** Who ran a run and how it went, in the list's words. */
export function runFacts(s: RunSummary): string[] {
  const r = s.run;
  if (!r) return ['?'];
  // A tune's or a mutate's record names no CLI version; its runs do.
  const version = r.cliVersion ?? (r.kinds.includes('tune') || r.kinds.includes('mutate') ? undefined : '?');
  return [version ? `${r.agent} ${version}` : r.agent, modelText(r), r.status, ...(r.context === 'field' ? ['field'] : []), ...r.kinds];
}

/** What came out of a run: its verdicts, or a tune's or a mutate's outcome. */
export const verdictText = (s: RunSummary) =>
  s.results ? verdictCounts(s.results.cases.map((c) => c.verdict)) : (s.record?.outcome ?? '');
export const trialsOf = (s: RunSummary) => s.results?.trials ?? s.record?.trials ?? s.run?.finished;

/** The runs whose id, agent, model, status or kind holds every word of `query` (any case). Pure. */
export function filterRuns(rows: readonly RunSummary[], query: string): RunSummary[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return [...rows];
  return rows.filter((r) => {
    const hay = [r.runId, ...runFacts(r), verdictText(r), r.problem ?? ''].join(' ').toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

/** A run in the words of every list of runs: `history`, the view's list, the html report's runs of several agents. */
export interface RunCells {
  /** `claude-code 2.1.197 · claude-sonnet-4-5 (SIM)` */
  who: string;
  context: string;
  /** Its status and what made it other than a plain run: `completed, canary`. */
  status: string;
  verdicts: string;
  trials: string;
  cost: string;
}

/** A run's cells; an unreadable folder has its problem for verdicts. Pure. */
export function runCells(s: RunSummary): RunCells {
  const facts = runFacts(s);
  return {
    who: s.run ? facts.slice(0, 2).join(' · ') : '?',
    context: s.run?.context ?? '',
    status: s.run ? [s.run.status, ...s.run.kinds].join(', ') : '',
    verdicts: s.results || s.record ? verdictText(s) : (s.problem ?? '—'),
    trials: String(trialsOf(s) ?? '?'),
    cost: usd(s.results?.costUsd ?? s.record?.costUsd),
  };
}

/** The runs, newest first: who ran them, what came out, what they cost; a run that could not be read, why, below. Pure. */
export function renderHistory(rows: readonly RunSummary[]): string {
  if (rows.length === 0) return 'no runs in this transcripts folder\n';
  const body = rows.map((r) => {
    const c = runCells(r);
    const facts = [c.who, c.status, c.context === 'field' ? 'field' : ''].filter(Boolean).join(' · ');
    return [`${r.runId}\n  ${facts}`, r.problem && !r.results ? 'see below' : c.verdicts, c.trials, c.cost];
  });
  const problems = rows.flatMap((r) => (r.problem && !r.results ? [paragraph(`${r.runId}: ${r.problem}`)] : []));
  const head = ['run\n  agent · model · status', 'verdicts', 'trials', 'cost'];
  const runs = table([head, ...body], ['l', 'l', 'r', 'r'], { maxWidth: REPORT_WIDTH, wrap: ['id', 'word'] });
  return [runs, ...(problems.length ? ['', ...problems] : [])].join('\n') + '\n';
}

/** What changed from one run to the next that could move a case's rate. */
export type TrendChange = 'model' | 'CLI' | 'agent' | 'skills' | 'profile' | 'context';

/** One run's point of a case's trend: its rate and interval (adjusted for stopping early where the design stopped it). */
export interface TrendPoint {
  runId: string;
  startedAt: string;
  line: CaseLine;
  rate?: { p: number; lo: number; hi: number; adjusted: boolean };
  /** What differs from the run before it (the oldest point: nothing), each as `what: before → after`. */
  changed: { what: TrendChange; from: string; to: string }[];
}

/** A case across the runs that measured it, oldest first, each point with what changed since the one before. Pure. */
export function caseTrend(rows: readonly RunSummary[], caseId: string): TrendPoint[] {
  // The rows come newest first; runs started at once keep their order (the sort is stable).
  const seen = [...rows]
    .reverse()
    .flatMap((r) => {
      const line = r.results?.cases.find((c) => c.verdict.caseId === caseId);
      return line && r.run ? [{ r, run: r.run, line }] : [];
    })
    .sort((a, b) => a.run.startedAt.localeCompare(b.run.startedAt));
  return seen.map(({ r, run, line }, i) => {
    const before = seen[i - 1]?.run;
    const facts = (x: typeof run): [TrendChange, string][] => [
      ['agent', x.agent],
      ['CLI', x.cliVersion ?? '?'],
      ['model', modelText(x)],
      ['skills', x.skillsHash.slice(0, 8)],
      ['profile', x.profile === undefined ? 'none' : `${x.profile}${x.profileHash ? ` ${x.profileHash.slice(0, 8)}` : ''}`],
      ['context', x.context],
    ];
    const was = before ? new Map(facts(before)) : undefined;
    const changed = was ? facts(run).flatMap(([what, to]) => (was.get(what) !== to ? [{ what, from: was.get(what)!, to }] : [])) : [];
    const e = line.verdict.estimate;
    const s = line.skill?.rate;
    const rate = e
      ? { p: e.rate, lo: e.lower, hi: e.upper, adjusted: true }
      : s && s.n
        ? { p: s.p, lo: s.lo, hi: s.hi, adjusted: false }
        : undefined;
    return { runId: r.runId, startedAt: run.startedAt, line, ...(rate ? { rate } : {}), changed };
  });
}

export const changeText = (c: TrendPoint['changed'][number]) => `${c.what} ${c.from} → ${c.to}`;

/** A trend point in the words of every rendering of a trend: `history --case` and the view's case page. */
export interface TrendCells {
  verdict: CaseVerdict['verdict'];
  /** The rate its verdict stands on, as its run's report shows it (marked † or * as the notes under it say). */
  rate: string;
  passes: string;
  cost: string;
  changed: string[];
}

/** A point's cells. Pure. */
export function trendCells(p: TrendPoint): TrendCells {
  const { verdict: v, skill: s, costUsd } = p.line;
  return {
    verdict: v.verdict,
    rate: verdictRate(v, s),
    passes: s ? `${s.rate.successes}/${s.rate.n}` : '—',
    cost: usd(costUsd),
    changed: p.changed.map(changeText),
  };
}

/** What the marks of a trend's rates mean, one note each. */
export const trendNotes = (points: readonly TrendPoint[]) => rateNotes(points.map((p) => p.line.verdict));

/** One case across runs, newest first: its verdict and the rate it stands on, as each run's report shows it. Pure. */
export function renderCaseHistory(rows: readonly RunSummary[], caseId: string): string {
  const points = caseTrend(rows, caseId).reverse();
  if (points.length === 0)
    throw new InputError({
      file: '--case',
      what: `no graded run has a case "${caseId}"`,
      todo: 'check the case id (skillprobe history lists the runs)',
    });
  const byId = new Map(rows.map((r) => [r.runId, r]));
  const body = points.map((p) => {
    const c = trendCells(p);
    const changed = c.changed.length ? `\n  ${c.changed.join(', ')}` : '';
    return [`${p.runId}\n  ${modelText(byId.get(p.runId)!.run!)}${changed}`, c.verdict, c.rate, c.passes, c.cost];
  });
  const head = ['run\n  model\n  changed since the run before', 'verdict', 'rate [CI]', 'passes', 'cost'];
  const runs = table([head, ...body], ['l', 'l', 'l', 'r', 'r'], { maxWidth: REPORT_WIDTH, wrap: ['id', 'word', 'word'] });
  return [paragraph(`case ${caseId}, newest first (skill arm)`), runs, ...trendNotes(points).map((n) => paragraph(n))].join('\n') + '\n';
}
