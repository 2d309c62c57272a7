import { writeFileSync } from 'node:fs';
import { configSchema, type Context } from '../src/run/config-schema.js';
import { RunStore } from '../src/run/store.js';
import { ClaudeStream } from './claude-stream.js';
import { claudeCode } from '../src/agents/claude-code/adapter.js';
import type { AgentAdapter } from '../src/agents/types.js';
import type { GradeOptions } from '../src/grade/outcome.js';
import type { AgentRuns, FamilyMember, GradableCase, RunManifest, TrialMeta, TrialOutcome, TrialRef, Verdict } from '../src/run/schema.js';
import type { RunToCompare } from '../src/verdict/comparison.js';
import { buildResults } from '../src/verdict/results.js';

/** The atl family the hand-built transcripts use. */
export const ATL_FAMILY = ['atl', 'atl-jira', 'atl-confluence'].map((dir) => ({ dir, name: dir }));

/** The manifest of a finished, hand-made run of `defs` (skill arm only, not simulated). */
export function handMadeManifest(defs: GradableCase[], trials: number, over: Partial<RunManifest> = {}): RunManifest {
  return {
    runId: 'r1',
    harness: { name: 'skillprobe', version: '0.1.0' },
    status: 'completed',
    startedAt: '2026-11-30T00:00:00.000Z',
    agent: { id: 'claude-code', binary: 'claude', cliVersion: '2.1.197' },
    model: 'claude-sonnet-4-5',
    config: configSchema.parse({ arms: ['skill'] }),
    skills: [],
    skillsHash: 'x',
    cases: { files: [], hash: 'y', defs },
    family: ATL_FAMILY,
    simulator: null,
    trials: { planned: trials, finished: trials, notStarted: 0 },
    ...over,
  };
}

/** Stores a hand-made trial the way a run does: the transcript streamed to its .part file, then committed. */
export async function storeTrial(store: RunStore, ref: TrialRef, raw: string, meta: TrialMeta): Promise<void> {
  const files = await store.prepareTrial(ref);
  writeFileSync(files.partial, raw);
  await store.commitTrial(ref, meta);
}

export const DECISION = { threshold: 0.9, delta: 0.1, alpha: 0.05, beta: 0.2, minTrials: 1, maxTrials: 50 };
/** A trial's meta as a clean exit leaves it, with `over` changed. */
export const trialMeta = (over: Partial<TrialMeta> = {}): TrialMeta => ({
  exitCode: 0,
  signal: null,
  wallMs: 400,
  timedOut: false,
  interrupted: false,
  stderrTail: '',
  attempt: 1,
  startedAt: '2026-11-30T00:00:00.000Z',
  ...over,
});

/** A run folder written by hand: what a finished run leaves, without running anything. */
export async function fakeRun(root: string): Promise<string> {
  const store = await RunStore.create(root, 'r1');
  const manifest = handMadeManifest(
    [
      { id: 'pos', expect: 'atl-jira', exclusive: false, tags: ['happy'], decision: DECISION },
      { id: 'neg', expect: 'none', exclusive: false, tags: [], decision: DECISION },
    ],
    6,
    { model: 'm' },
  );
  await store.writeManifest(manifest);
  const s = () => new ClaudeStream();
  const trials: [string, number, ClaudeStream][] = [
    ['pos', 1, s().skill('atl-jira', 'search').text('ok').result()],
    ['pos', 2, s().read('.claude/skills/atl-jira/SKILL.md').text('ok').result()],
    ['pos', 3, s().skill('atl').text('ok').result()],
    ['neg', 1, s().text('no').result()],
    ['neg', 2, s().skill('atl-jira').text('oops').result()],
    ['neg', 3, s().apiError(429).result({ is_error: true, api_error_status: 429 })],
  ];
  for (const [caseId, n, stream] of trials)
    await storeTrial(store, { caseId, arm: 'skill', n }, stream.raw(), trialMeta({ exitCode: caseId === 'neg' && n === 3 ? 1 : 0 }));
  return store.dir;
}

/** A valid results.json text whose cases have the given verdicts (nothing else in it is meaningful). */
export function resultsWithVerdicts(verdicts: [string, Verdict][]): string {
  const defs = verdicts.map(([id]) => ({ id, expect: 'atl', exclusive: false, tags: [], decision: DECISION }));
  const results = buildResults(handMadeManifest(defs, 0), [], [], new Date('2026-11-30T00:00:00Z'));
  return JSON.stringify({ ...results, verdicts: results.verdicts.map((v, i) => ({ ...v, verdict: verdicts[i]![1] })) });
}

/**
 * A case's trials: `passes` of `n` passed, the passes first unless `order` spells each trial out ('P' pass, 'F'
 * fail); the failures fired `failedColumn` (a sibling, or none).
 */
export interface CaseTrials {
  passes: number;
  n: number;
  failedColumn?: string;
  order?: string;
}

function passFailTrials(caseId: string, expect: string, t: CaseTrials): TrialOutcome[] {
  return Array.from({ length: t.n }, (_, i) => {
    const passed = t.order === undefined ? i < t.passes : t.order[i] === 'P';
    const column = passed ? expect : (t.failedColumn ?? 'none');
    return {
      caseId,
      arm: 'skill' as const,
      n: i + 1,
      status: 'ok' as const,
      passed,
      firings: [],
      firedColumn: column,
      fired: column === expect ? ('expected' as const) : column === 'none' ? ('none' as const) : ('sibling' as const),
      readOnly: false,
      flags: { noop: false, clarifying: false },
      parseWarnings: 0,
      wallMs: 500,
      costUsd: 0.01,
    };
  });
}

/** A graded trial where nothing fired, its identity, status and anything else from `over`. */
export const quietOutcome = (
  over: Pick<TrialOutcome, 'caseId' | 'arm' | 'n' | 'status' | 'passed'> & Partial<TrialOutcome>,
): TrialOutcome => ({
  firings: [],
  firedColumn: 'none',
  fired: 'none',
  readOnly: false,
  flags: { noop: false, clarifying: false },
  parseWarnings: 0,
  ...over,
});

/** A finished run of hand-made outcomes, for comparisons: each case expects `atl-jira`. */
export function syntheticRun(
  cases: Record<string, CaseTrials>,
  over: { mode?: 'fixed' | 'sprt'; model?: string; skills?: Record<string, string>; dir?: string; maxTrials?: number } = {},
): RunToCompare {
  const defs: GradableCase[] = Object.keys(cases).map((id) => ({
    id,
    expect: 'atl-jira',
    exclusive: false,
    tags: [],
    decision: { ...DECISION, maxTrials: over.maxTrials ?? 200 },
  }));
  const manifest = handMadeManifest(defs, 0, {
    config: configSchema.parse({ arms: ['skill'], decision: { mode: over.mode ?? 'fixed' } }),
    model: over.model ?? 'claude-sonnet-4-5',
    skills: Object.entries(over.skills ?? { 'atl-jira': 'h1' }).map(([name, hash]) => ({ dir: name, name, hash })),
  });
  const outcomes = Object.entries(cases).flatMap(([id, t]) => passFailTrials(id, 'atl-jira', t));
  return { dir: over.dir ?? 'runs/x', manifest, results: buildResults(manifest, outcomes, [], new Date('2026-11-30T00:00:00Z')) };
}

/**
 * Writes a synthetic run as a run folder under `root`: run.json, a transcript per outcome that grades as the outcome
 * says (the expected skill fired for a pass, the failure's column otherwise), and results.json. Returns its path.
 */
export async function storeSyntheticRun(root: string, runId: string, run: RunToCompare): Promise<string> {
  const store = await RunStore.create(root, runId);
  await store.writeManifest({ ...run.manifest, runId });
  const expected = new Map(run.manifest.cases.defs.map((c) => [c.id, c.expect]));
  for (const t of run.results.outcomes) {
    const fired = t.passed ? expected.get(t.caseId)! : t.firedColumn;
    const stream = fired && fired !== 'none' ? new ClaudeStream().skill(fired) : new ClaudeStream();
    await storeTrial(store, t, stream.text('ok').result().raw(), trialMeta());
  }
  await store.writeResults({ ...run.results, runId });
  return store.dir;
}

/** How `adapter`'s trials of `family` are graded by default: reads fire, budget stops fail. */
export const defaultGrading = (adapter: AgentAdapter, family: FamilyMember[], more: Partial<GradeOptions> = {}): GradeOptions => ({
  family,
  skillsFolder: adapter.skillsFolder,
  readCountsAsFiring: true,
  budgetStopsFail: true,
  conventions: adapter.grading,
  ...more,
});

/** How Claude Code's trials of `family` are graded by default. */
export const claudeGrading = (family: FamilyMember[]): GradeOptions => defaultGrading(claudeCode, family);

/** The agents.json of a lab,field folder (`run --context lab,field`): one entry per context started, `<runId>-<context>` each. */
export const labFieldRecord = (runId: string, started: readonly Context[], planned: Context[] = ['lab', 'field']): AgentRuns => ({
  version: 6,
  runId,
  startedAt: '2026-12-01T00:00:00Z',
  by: 'context',
  planned,
  agents: started.map((id) => ({ id, dir: `${runId}-${id}`, binary: 'claude', model: 'm', status: 'completed' as const })),
});
