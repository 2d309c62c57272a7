import { readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { assistantText } from '../grade/judge-answers.js';
import { readStoredTranscript } from './stored-grades.js';
import type { Case } from '../load/cases.js';
import { rewriteDescriptionBytes } from '../load/rewrite-description.js';
import { familyHash, type Skill } from '../load/skills.js';
import type { Config } from '../run/config-schema.js';
import { RunStore } from '../run/store.js';
import { TUNE_FORMAT_VERSION, type TuneRecord } from '../run/tune-schema.js';
import { writeTuneRecord } from '../run/tune-store.js';
import { learn, next, recordOf, startTune, type CheckAnswer, type EndStatus, type RunAnswer, type TuneAction } from '../tune/machine.js';
import { MAX_DESCRIPTION, type TuneChoices } from '../tune/options.js';
import type { CaseRole, SplitName } from '../tune/splits.js';
import { InputError } from '../util/input-error.js';
import { derivedDrawSeed, freshDrawSeed } from '../util/random.js';
import type { RunPlace, SuiteToRun } from './execute.js';
import { inRecordFolder } from './record-folder.js';
import type { NestedRun, NestedRunRequest } from './nested-run.js';
import { candidateProblem, skillFile } from './tune-family.js';
import { fromFolder, namedAs } from '../util/paths.js';

export interface TuneOptions extends TuneChoices {
  /** The skill's folder or frontmatter name; read from tune.json on a resume. */
  skill?: string;
  config?: string;
  sim?: string;
  overrides: Partial<Record<keyof Config, unknown>>;
  proposerModel?: string;
  /** `--draw-seed`: the seed the tune's nested runs derive their simulator draws from. */
  drawSeed?: number;
  resume?: string;
  /** Where sealed workspaces are made (the system temp folder by default). */
  workdir?: string;
  /** The user's working folder (the command's `io.cwd`): every relative path they gave is taken from it. */
  cwd: string;
  callerEnv: NodeJS.ProcessEnv;
  stderr: NonNullable<RunPlace['stderr']>;
}

/** A tune ready to run: every input checked, nothing spent. */
export interface PreparedTune<S extends SuiteToRun = SuiteToRun> {
  loaded: S;
  tuned: Skill;
  /** Each case as a tune scores it: triggering only (plan checks and judged items belong to the skill's body, not its description). */
  cases: Map<string, Case>;
  roleOf: (caseId: string) => CaseRole;
  splits: Record<SplitName, string[]>;
  options: TuneRecord['options'];
  stored?: TuneRecord;
}

/** Starts one nested run, or reads a finished one back: the run pipeline's, handed in by the command. */
export type NestedRunner<S extends SuiteToRun> = (base: S, place: RunPlace, request: NestedRunRequest) => Promise<NestedRun>;

/** The config each kind of nested run takes. */
export function stepConfigs(config: Config, o: Pick<TuneOptions, 'proposerModel'>, holdoutTrials: number) {
  const evaluate: Config = { ...config, arms: ['skill'], ablation: 'scored', maxCostUsd: undefined };
  return {
    evaluate,
    holdout: { ...evaluate, trials: holdoutTrials, decision: { ...config.decision, mode: 'fixed' } } satisfies Config,
    proposer: {
      ...evaluate,
      arms: ['ablation'],
      ablation: 'always',
      trials: 1,
      decision: { ...config.decision, mode: 'fixed' },
      ...(o.proposerModel !== undefined ? { model: o.proposerModel } : {}),
    } satisfies Config,
  };
}

/**
 * Runs a tune to its answer (tune/machine.ts decides, this does what it asks). Every nested run is a run folder under
 * `dir`, so a resumed tune reads its finished runs back and reaches the same answer. Returns the record as stored.
 */
export const runTune = <S extends SuiteToRun>(
  p: PreparedTune<S>,
  o: TuneOptions,
  say: (text: string) => void,
  nested: NestedRunner<S>,
): Promise<{ dir: string; record: TuneRecord }> =>
  inRecordFolder(p.loaded, o, {
    kind: 'tune',
    start: (dir) => startingRecord(p, o, dir),
    write: writeTuneRecord,
    drive: (dir, record) => drive(p, o, { dir, record, say, nested }),
  });

interface Drive<S extends SuiteToRun> {
  dir: string;
  record: TuneRecord;
  say: (text: string) => void;
  nested: NestedRunner<S>;
}

/** Asks the machine what to do until it is done, doing each thing and keeping the record in step with what it learnt. */
async function drive<S extends SuiteToRun>(p: PreparedTune<S>, o: TuneOptions, d: Drive<S>): Promise<EndStatus> {
  const { loaded, tuned } = p;
  const cap = Math.min(MAX_DESCRIPTION, loaded.adapter.skillListing.descriptionCap);
  let state = startTune({
    skill: tuned.dir,
    original: tuned.description,
    options: p.options,
    splits: p.splits,
    roles: Object.fromEntries([...p.cases.keys()].map((id) => [id, p.roleOf(id)])),
    failureCases: p.splits.tune.map((id) => {
      const { prompt, expect } = p.cases.get(id)!;
      return { id, prompt, role: p.roleOf(id), expects: expect.skill, ...(expect.not !== undefined ? { not: expect.not } : {}) };
    }),
    family: loaded.skills.map((s) => s.dir),
    siblings: loaded.skills.filter((s) => s !== tuned).map((s) => ({ name: s.dir, description: s.description })),
    maxChars: cap,
  });
  // Each candidate's family by its index: the original's is the user's, a candidate's is written when it is checked.
  const families = new Map<number, Skill[]>([[0, loaded.skills]]);
  const run = nestedRun(p, o, d, families);
  let action: TuneAction;
  while ((action = next(state)).kind !== 'done') {
    Object.assign(d.record, recordOf(state));
    const answer: RunAnswer | CheckAnswer =
      action.kind === 'check'
        ? await checkCandidate(p, d.dir, o.cwd, action, families)
        : await run(action as Exclude<TuneAction, { kind: 'done' | 'check' }>);
    const learnt = learn(state, action, answer);
    state = learnt.state;
    learnt.notes.forEach(d.say);
    Object.assign(d.record, recordOf(state));
  }
  return action.status;
}

/** Writes a candidate's family and checks it; a family that passes is kept for the candidate's runs. */
async function checkCandidate(
  p: PreparedTune,
  dir: string,
  cwd: string,
  action: Extract<TuneAction, { kind: 'check' }>,
  families: Map<number, Skill[]>,
): Promise<CheckAnswer> {
  const into = join(dir, `iterations/${action.candidate}/skills`);
  const checked = await candidateProblem(p.loaded.skills, p.tuned, action.description, into, cwd, p.loaded.adapter, p.loaded.neighbours);
  if ('problem' in checked) return checked;
  families.set(action.candidate, checked.skills);
  return { ok: true };
}

/** A tune's record as it starts or resumes: what it tunes, with what and where; its iterations are added as they run. */
export function startingRecord(p: PreparedTune, o: TuneOptions, dir: string): TuneRecord {
  const { loaded, tuned } = p;
  return {
    version: TUNE_FORMAT_VERSION,
    tuneId: p.stored?.tuneId ?? relative(fromFolder(o.cwd, loaded.config.transcriptsDir), dir),
    status: 'running',
    startedAt: p.stored?.startedAt ?? new Date().toISOString(),
    skill: tuned.dir,
    skillFile: skillFile(tuned),
    agent: loaded.adapter.id,
    context: loaded.config.context ?? 'lab',
    ...(loaded.config.model !== undefined ? { model: loaded.config.model } : {}),
    ...(o.proposerModel !== undefined ? { proposerModel: o.proposerModel } : {}),
    simulator: loaded.profile && o.sim ? { profile: o.sim, name: loaded.profile.name } : null,
    ...(loaded.profile && o.sim
      ? { draws: p.stored ? p.stored.draws : { seed: o.drawSeed ?? freshDrawSeed(), given: o.drawSeed !== undefined } }
      : {}),
    options: p.options,
    splits: p.splits,
    original: tuned.description,
    familyHash: p.stored?.familyHash ?? familyHash(loaded.skills),
    iterations: [],
    written: false,
    trials: 0,
  };
}

/** The one place a tune starts a nested run: each kind's cases and config, its own draw seed, and its status read. */
function nestedRun<S extends SuiteToRun>(p: PreparedTune<S>, o: TuneOptions, d: Drive<S>, families: Map<number, Skill[]>) {
  const configs = stepConfigs(p.loaded.config, o, p.options.holdoutTrials);
  const place: RunPlace = { cwd: o.cwd, sim: o.sim, workdir: o.workdir, callerEnv: o.callerEnv, stderr: o.stderr };
  const casesOf = (split: SplitName) => p.splits[split].map((id) => p.cases.get(id)!);
  return async (action: Exclude<TuneAction, { kind: 'done' | 'check' }>): Promise<RunAnswer> => {
    const [cases, config] =
      action.kind === 'evaluate'
        ? [casesOf(action.split), configs.evaluate]
        : action.kind === 'holdout'
          ? [casesOf('holdout'), { ...configs.holdout, trials: action.trials }]
          : [[proposerCase(action.prompt)], configs.proposer];
    d.say(`${action.name}: ${cases.length} ${cases.length === 1 ? 'case' : 'cases'}\n`);
    const draws = d.record.draws && { drawSeed: derivedDrawSeed(d.record.draws.seed, action.name) };
    const skills = action.kind === 'propose' ? p.loaded.skills : families.get(action.candidate)!;
    // The proposer writes a description and nothing else: its role's menu, on every CLI.
    const result = await d.nested(
      p.loaded,
      { ...place, ...draws },
      {
        dir: join(d.dir, action.name),
        skills,
        cases,
        config: { ...config, maxCostUsd: action.maxCostUsd },
        role: action.kind === 'propose' ? 'proposer' : 'trial',
      },
    );
    const status = result.manifest.status;
    if (status === 'isolation_stopped')
      throw new InputError({
        file: namedAs(p.loaded.config.transcriptsDir, o.cwd, result.dir),
        what: `the step's first trials all failed the isolation check (${result.manifest.stoppedBecause})`,
        todo: 'fix what it names (`skillprobe lint` checks the family), then tune again',
      });
    if (status !== 'completed' && status !== 'interrupted' && status !== 'cost_capped')
      throw new Error(`step ${action.name} ended ${status}`);
    return {
      dir: relative(d.dir, result.dir),
      status,
      trials: result.trials,
      ...(result.costUsd !== undefined ? { costUsd: result.costUsd } : {}),
      results: result.results,
      ...(action.kind === 'propose' && status === 'completed' ? { text: await proposerAnswer(result) } : {}),
    };
  };
}

/** The proposer's one case: the request the machine wrote, expecting no skill. */
const proposerCase = (prompt: string): Case => ({
  id: 'propose',
  prompt,
  expect: { skill: 'none' },
  tags: [],
  exclusive: false,
  source: { file: 'tune', line: 0, at: { id: { line: 0, col: 0 }, prompt: { line: 0, col: 0 } } },
});

/** What the proposer answered: the assistant's text of the run's one trial, or undefined when it has none. */
async function proposerAnswer(run: NestedRun): Promise<string | undefined> {
  const outcome = run.results.outcomes.find((o) => o.status === 'ok');
  if (!outcome) return undefined;
  const { store } = await RunStore.open(run.dir);
  const read = await readStoredTranscript(store, run.manifest, outcome);
  if (!read.ok) return undefined;
  return assistantText(read.transcript);
}

/** Writes the tune's result into the user's SKILL.md, every byte but the description's kept. */
export async function writeResult(record: TuneRecord): Promise<boolean> {
  if (record.verdict !== 'IMPROVED' || record.result === undefined) return false;
  await writeFile(record.skillFile, rewriteDescriptionBytes(await readFile(record.skillFile), record.skillFile, record.result));
  return true;
}
