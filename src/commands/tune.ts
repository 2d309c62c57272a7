import { InputError } from '../util/input-error.js';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { rewriteDescriptionBytes } from '../load/rewrite-description.js';
import type { Case } from '../load/cases.js';
import { familyHash, type Skill } from '../load/skills.js';
import type { Config } from '../run/config-schema.js';
import { lockRunFolder } from '../run/lock.js';
import { newRunId } from '../run/store.js';
import { derivedDrawSeed, freshDrawSeed } from '../util/random.js';
import { writeTuneRecord } from '../run/tune-store.js';
import { TUNE_FORMAT_VERSION, type TuneIteration, type TuneRecord, type TuneStep } from '../run/tune-schema.js';
import { checkRunnable, type RunPlace } from '../runner/execute.js';
import { pct } from '../report/tune/view.js';
import { failedBySiblingsOnly, proposalFailures } from '../tune/failures.js';
import { proposalPrompt, readProposal, type ProposalRequest } from '../tune/proposal.js';
import { familyScore, type CaseTally } from '../tune/score.js';
import { chooseWinner, droppedOnSelect, droppedOnTune, type DropReason, type Evaluated } from '../tune/select.js';
import type { SplitName } from '../tune/splits.js';
import { candidateProblem, skillFile } from './tune-family.js';
import { MAX_DESCRIPTION, type PreparedTune, type TuneOptions } from './tune-prepare.js';
import { proposerAnswer, tallies } from './tune-steps.js';
import { startNestedRun } from '../runner/pipeline.js';
import { nullIfNaN, runHoldout } from './tune-holdout.js';
import type { NestedRun as StepResult } from '../runner/nested-run.js';

/** The config each kind of step runs with. */
export function stepConfigs(config: Config, o: TuneOptions, holdoutTrials: number) {
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

const scoreOf = (t: readonly CaseTally[]) => {
  const s = familyScore(t);
  return { recall: nullIfNaN(s.recall), siblings: nullIfNaN(s.siblings), negatives: nullIfNaN(s.negatives) };
};

interface Candidate extends Evaluated {
  index: number;
  skills?: Skill[];
  dropped?: DropReason;
}

/**
 * Runs a tune to its answer: the original and each proposed description on the tune cases, the survivors on the
 * select cases, and the original and the winner, once, on the holdout. Every step is a run folder under `dir`, so a
 * resumed tune reads its finished steps back and reaches the same answer. Returns the record as stored.
 */
export async function runTune(p: PreparedTune, o: TuneOptions, say: (text: string) => void): Promise<{ dir: string; record: TuneRecord }> {
  const { loaded, tuned } = p;
  const dir = o.resume ?? join(loaded.config.transcriptsDir, `tune-${newRunId()}`);
  await checkRunnable(loaded, { callerEnv: o.callerEnv, workdir: o.workdir });
  await mkdir(dir, { recursive: true });
  const lock = lockRunFolder(dir, o.resume === undefined ? 'tune' : 'tune --resume');
  const record: TuneRecord = {
    version: TUNE_FORMAT_VERSION,
    tuneId: p.stored?.tuneId ?? relative(loaded.config.transcriptsDir, dir),
    status: 'running',
    startedAt: p.stored?.startedAt ?? new Date().toISOString(),
    skill: tuned.dir,
    skillFile: skillFile(tuned),
    agent: loaded.adapter.id,
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
  try {
    await writeTuneRecord(dir, record);
    const outcome = await tuneSteps(p, o, dir, record, say);
    record.status = outcome;
  } catch (e) {
    record.status = 'failed';
    throw e;
  } finally {
    record.endedAt = new Date().toISOString();
    await writeTuneRecord(dir, record).finally(() => lock.release());
  }
  return { dir, record };
}

type StepEnd = 'completed' | 'interrupted' | 'cost_capped';

async function tuneSteps(p: PreparedTune, o: TuneOptions, dir: string, record: TuneRecord, say: (text: string) => void): Promise<StepEnd> {
  const { loaded, tuned, roleOf } = p;
  const configs = stepConfigs(loaded.config, o, p.options.holdoutTrials);
  const place: RunPlace = { sim: o.sim, workdir: o.workdir, callerEnv: o.callerEnv, stderr: o.stderr };
  const casesOf = (split: SplitName) => p.splits[split].map((id) => p.cases.get(id)!);
  const spent = { trials: 0, costUsd: 0, reported: false };
  const remaining = () => (p.options.maxCostUsd === undefined ? undefined : p.options.maxCostUsd - spent.costUsd);
  let stopped: StepEnd | undefined;

  const step = async (name: string, skills: Skill[], cases: Case[], config: Config, noTools?: boolean): Promise<StepResult | undefined> => {
    if (stopped) return undefined;
    const left = remaining();
    if (left !== undefined && left <= 0) {
      stopped = 'cost_capped';
      return undefined;
    }
    say(`${name}: ${cases.length} ${cases.length === 1 ? 'case' : 'cases'}\n`);
    const draws = record.draws && { drawSeed: derivedDrawSeed(record.draws.seed, name) };
    const result = await startNestedRun(
      loaded,
      { ...place, ...draws },
      { dir: join(dir, name), skills, cases, config: { ...config, maxCostUsd: left }, role: noTools ? 'proposer' : 'trial' },
    );
    spent.trials += result.trials;
    if (result.costUsd !== undefined) [spent.costUsd, spent.reported] = [spent.costUsd + result.costUsd, true];
    record.trials = spent.trials;
    if (spent.reported) record.costUsd = spent.costUsd;
    const status = result.manifest.status;
    if (status === 'interrupted' || status === 'cost_capped') stopped = status;
    else if (status === 'isolation_stopped')
      throw new InputError({
        file: result.dir,
        what: `the step's first trials all failed the isolation check (${result.manifest.stoppedBecause})`,
        todo: 'fix what it names (`skillprobe lint` checks the family), then tune again',
      });
    else if (status !== 'completed') throw new Error(`step ${name} ended ${status}`);
    return stopped ? undefined : result;
  };
  const stepRecord = (r: StepResult, t: CaseTally[]): TuneStep => ({
    dir: relative(dir, r.dir),
    score: scoreOf(t),
    trials: r.trials,
    ...(r.costUsd !== undefined ? { costUsd: r.costUsd } : {}),
  });
  const evaluate = async (c: Candidate, skills: Skill[], it: TuneIteration, split: 'tune' | 'select'): Promise<boolean> => {
    const r = await step(`iterations/${c.index}/${split}`, skills, casesOf(split), configs.evaluate);
    if (!r) return false;
    const t = tallies(r.results, roleOf);
    c[split] = t;
    it[split] = stepRecord(r, t);
    if (split === 'tune') tuneOutcomes.set(c.index, r);
    return true;
  };
  const tuneOutcomes = new Map<number, StepResult>();

  // The original first: every candidate is measured against it.
  const original: Candidate = { index: 0, description: tuned.description, tune: [], skills: loaded.skills };
  const first: TuneIteration = { index: 0, description: tuned.description };
  record.iterations.push(first);
  if (!(await evaluate(original, loaded.skills, first, 'tune')) || !(await evaluate(original, loaded.skills, first, 'select')))
    return stopped!;
  say(`original: tune recall ${pct(first.tune!.score.recall)}, select recall ${pct(first.select!.score.recall)}\n`);

  const candidates: Candidate[] = [];
  const family = new Set(loaded.skills.map((s) => s.dir));
  const siblings = loaded.skills.filter((s) => s !== tuned).map((s) => ({ name: s.dir, description: s.description }));
  const failureCases = p.splits.tune.map((id) => {
    const { prompt, expect } = p.cases.get(id)!;
    return { id, prompt, role: roleOf(id), expects: expect.skill, ...(expect.not !== undefined ? { not: expect.not } : {}) };
  });
  const tried: Candidate[] = [original];
  // What the proposer is shown of every earlier attempt, repeats and refusals included: a proposer shown the same
  // request again would answer the same again.
  const attempts: ProposalRequest['attempts'] = [{ description: original.description, tuneScore: familyScore(original.tune).recall }];
  for (let index = 1; index <= p.options.iterations; index++) {
    // The proposer learns from the best description so far on the tune cases.
    const alive = [
      original,
      ...candidates.filter((c) => c.dropped === undefined || c.dropped === 'not-better' || c.dropped === 'constraint'),
    ];
    const best = alive.reduce((a, b) => (familyScore(b.tune).recall > familyScore(a.tune).recall ? b : a));
    const bestOutcomes = tuneOutcomes.get(best.index)!.results.outcomes;
    const failures = proposalFailures(failureCases, bestOutcomes, tuned.dir, family);
    if (failures.length === 0) {
      const bySiblings = failedBySiblingsOnly(failureCases, bestOutcomes, tuned.dir);
      const why = bySiblings.length
        ? `; ${bySiblings.join(', ')} ${bySiblings.length === 1 ? 'fails' : 'fail'} only because a sibling fires where no skill may, which no description of ${tuned.dir} can fix (write \`expect: { not: ${tuned.dir} }\` where a sibling may take the request)`
        : '';
      say(
        `the tune cases have nothing left to learn from (no failure of ${best.index === 0 ? 'the original' : `iteration ${best.index}`}${why}): no further iteration\n`,
      );
      break;
    }
    const it: TuneIteration = { index, description: null };
    record.iterations.push(it);
    const prompt = proposalPrompt({
      skill: tuned.dir,
      current: best.description,
      failures,
      siblings,
      attempts,
      maxChars: Math.min(MAX_DESCRIPTION, loaded.adapter.skillListing.descriptionCap),
    });
    const proposerCase: Case = {
      id: 'propose',
      prompt,
      expect: { skill: 'none' },
      tags: [],
      exclusive: false,
      source: { file: 'tune', line: 0, at: { id: { line: 0, col: 0 }, prompt: { line: 0, col: 0 } } },
    };
    // The proposer writes a description and nothing else: no tool, on every CLI, as the judge.
    const proposed = await step(`iterations/${index}/proposer`, loaded.skills, [proposerCase], configs.proposer, true);
    if (!proposed) break;
    it.proposer = {
      dir: relative(dir, proposed.dir),
      trials: proposed.trials,
      ...(proposed.costUsd !== undefined ? { costUsd: proposed.costUsd } : {}),
    };
    const description = readProposal((await proposerAnswer(proposed)) ?? '');
    const c: Candidate = { index, description: description ?? '', tune: [] };
    candidates.push(c);
    const drop = (reason: DropReason, detail: string) => {
      c.dropped = reason;
      it.dropped = reason;
      it.detail = detail;
      say(`iteration ${index}: dropped (${reason}): ${detail}\n`);
    };
    if (description === undefined) {
      drop('no-proposal', 'the proposer gave no <description> answer');
      attempts.push({ description: '', refused: 'the answer held no <description>' });
      continue;
    }
    it.description = description;
    const same = tried.find((t) => t.description === description);
    if (same) {
      drop(
        'duplicate',
        `the same description as ${same.index === 0 ? 'the original' : `iteration ${same.index}`}; its trials are not run again`,
      );
      attempts.push({ ...attempts.find((a) => a.description === description)!, refused: `a repeat of an earlier attempt` });
      continue;
    }
    tried.push(c);
    const checked = await candidateProblem(loaded.skills, tuned, description, join(dir, `iterations/${index}/skills`), loaded.adapter);
    if ('problem' in checked) {
      drop('lint', checked.problem);
      attempts.push({ description, refused: checked.problem });
      continue;
    }
    c.skills = checked.skills;
    if (!(await evaluate(c, checked.skills, it, 'tune'))) break;
    attempts.push({ description, tuneScore: familyScore(c.tune).recall });
    const onTune = droppedOnTune(original, c);
    if (onTune) {
      drop(onTune, `tune recall ${pct(it.tune!.score.recall)} against the original's ${pct(first.tune!.score.recall)}`);
      continue;
    }
    if (!(await evaluate(c, checked.skills, it, 'select'))) break;
    const onSelect = droppedOnSelect(original, c);
    if (onSelect) drop(onSelect, `select recall ${pct(it.select!.score.recall)} against the original's ${pct(first.select!.score.recall)}`);
    else say(`iteration ${index}: tune recall ${pct(it.tune!.score.recall)}, select recall ${pct(it.select!.score.recall)}\n`);
  }
  if (stopped) return stopped;

  const won = chooseWinner(original, candidates);
  record.winner = won === 'original' ? 0 : candidates[won]!.index;
  if (won === 'original') {
    // Nothing beat the original where it was chosen: the holdout stays untouched, and the original stays.
    record.verdict = 'NO SIGNIFICANT CHANGE';
    record.result = tuned.description;
    return 'completed';
  }
  const winner = candidates[won]!;
  const answer = await runHoldout(step, {
    options: p.options,
    config: configs.holdout,
    cases: casesOf('holdout'),
    original: loaded.skills,
    winner: winner.skills!,
    roleOf,
    say,
  });
  if (!answer) return stopped!;
  record.holdout = answer.holdout;
  record.verdict = answer.verdict;
  record.result = answer.verdict === 'IMPROVED' ? winner.description : tuned.description;
  return 'completed';
}

/** Writes the tune's result into the user's SKILL.md, every byte but the description's kept. */
export async function writeResult(record: TuneRecord): Promise<boolean> {
  if (record.verdict !== 'IMPROVED' || record.result === undefined) return false;
  await writeFile(record.skillFile, rewriteDescriptionBytes(await readFile(record.skillFile), record.skillFile, record.result));
  return true;
}
