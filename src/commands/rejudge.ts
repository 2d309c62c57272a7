import { existsSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { adapterFor } from '../agents/registry.js';
import type { JudgeSample } from '../checks/judge-prompt.js';
import { judgeAnswers } from '../grade/judge-answers.js';
import { gradeStoredJudged, judgeOf, JUDGE_DIR, readJudgeStep, readJudgeSteps } from '../runner/judge-steps.js';
import { trialAskId, type JudgeAsk } from '../grade/judge-asks.js';
import { hasJudgedCases, runJudgeAsks } from '../grade/judged.js';
import { gradeStored } from '../runner/stored-grades.js';
import { credentialProblem } from '../runner/suite-checks.js';
import { InputError } from '../util/input-error.js';
import { loadYamlFile } from '../load/yaml-file.js';
import type { TrialOutcome } from '../run/schema.js';
import { newRunId, RunStore } from '../run/store.js';
import type { ProgressStream } from '../runner/progress.js';
import { loadProfile } from '../sim/profile.js';
import { labelAgreement, labelsOfRun, labelsSchema } from '../runner/labels.js';
import type { TrialJudgeSamples } from '../stats/judge-stability.js';
import { rejudgeFlip } from '../stats/rejudge-flip.js';
import type { RejudgeReportInput } from '../report/rejudge.js';
import { plural } from '../util/text.js';
import { askCase, judgeConfig } from '../runner/judge-stage.js';
import { startNestedRun } from '../runner/pipeline.js';
import { namedAs } from '../util/paths.js';

/**
 * `skillprobe rejudge RUN`: the frozen-set experiment, built in. Every judged item of the run's stored trials is asked
 * again, `judge.samples` times, in a run folder of its own under the run's `rejudge/` (the stored answers are never
 * touched), and each new sample is paired with the stored one: how often the judge changes its answer to the very same
 * question, with intervals. With human labels, the stored verdicts' agreement with them (Cohen's κ).
 */

/** The folder inside a run folder that holds its rejudge runs. */
const REJUDGE_DIR = 'rejudge';

export interface RejudgeOptions {
  sim?: string;
  /** `--draw-seed`: the seed of the simulated judge's draws (a fresh one by default). */
  drawSeed?: number;
  labels?: string;
  maxCostUsd?: number;
  /** `--concurrency`: judge requests asked at once (default: the run's own). */
  concurrency?: number | 'auto';
  /** `--timeout`: the harness deadline per judge request (default: the run's own). */
  trialSeconds?: number;
  workdir?: string;
  /** `--login`: the judge's CLI on its subscription login (default: the run's own auth). */
  login?: boolean;
  /** The user's working folder (the command's `io.cwd`): every relative path they gave is taken from it. */
  cwd: string;
  callerEnv: NodeJS.ProcessEnv;
  stderr?: ProgressStream;
}

/** Each judged trial's samples per item, in one order, from a map of request answers. */
function trialSamples(
  outcomes: readonly TrialOutcome[],
  answers: ReadonlyMap<string, readonly ('yes' | 'no' | 'error')[]>,
): TrialJudgeSamples[] {
  return outcomes.map((o) => o.judge!.items.map((_, k) => [...(answers.get(trialAskId(o, k)) ?? [])]));
}

export async function rejudgeRun(dir: string, o: RejudgeOptions): Promise<RejudgeReportInput> {
  const { store, manifest } = await RunStore.open(dir, o.cwd);
  const where = join(dir, 'run.json');
  if (!hasJudgedCases(manifest))
    throw new InputError({ file: where, what: 'no case of this run has expect.judge items', todo: 'rejudge a run whose cases are judged' });
  if (manifest.simulator && o.sim === undefined)
    throw new InputError({
      file: '--sim',
      what: `run ${manifest.runId} was judged by the model simulator (profile ${manifest.simulator.profile}), and its rejudge must be too`,
      todo: `add --sim ${manifest.simulator.profile}`,
    });
  const judge = judgeOf(manifest);
  const adapter = adapterFor(judge.agent, 'judge.agent');
  const profile = o.sim === undefined ? undefined : loadProfile(o.sim, o.cwd);
  const auth = o.login ? 'login' : manifest.config.auth;
  const missing =
    auth === 'login' || o.sim === undefined
      ? credentialProblem(adapter, o.callerEnv, undefined, auth === 'login' ? { where: { file: '--login' } } : undefined)
      : undefined;
  if (missing) throw new InputError(missing);
  const labels =
    o.labels === undefined ? undefined : labelsOfRun(loadYamlFile(o.labels, labelsSchema, 'labels file', o.cwd).value, manifest.runId);
  const binary = adapter.resolveBinary(undefined);
  const named = join(dir, REJUDGE_DIR);
  const root = join(store.dir, REJUDGE_DIR);
  if (existsSync(root) && !statSync(root).isDirectory())
    throw new InputError({
      file: named,
      what: 'not a folder: rejudge keeps each of its runs in a folder of that name',
      todo: 'move the file away, then rejudge again',
    });

  const graded = await gradeStored(store, manifest);
  const asks = runJudgeAsks(manifest, graded).filter((a) => a.purpose.kind === 'trial');
  const stored = await storedAnswers(dir, store.dir, asks, judge.config.samples);
  const again = asks.filter((a) => stored.has(a.id));
  // Other case ids than the stored requests': a simulated judge draws each sample from its trial's identity.
  const ids = new Map(again.map((a) => [`again.${a.id}`, a.id]));
  const stepDir = join(root, newRunId());
  const step = await startNestedRun(
    {
      config: { ...manifest.config, transcriptsDir: named },
      skills: [],
      suite: { cases: [], files: [], hash: '' },
      ...(profile ? { profile } : {}),
      adapter,
      binary,
    },
    { cwd: o.cwd, sim: o.sim, drawSeed: o.drawSeed, workdir: o.workdir, callerEnv: o.callerEnv, stderr: o.stderr },
    {
      dir: stepDir,
      skills: [],
      cases: again.map((a) => askCase({ id: `again.${a.id}`, prompt: a.prompt })),
      config: {
        ...judgeConfig({ ...manifest.config, auth }, judge.agent, judge.model, judge.config.samples, o.maxCostUsd),
        ...(o.concurrency !== undefined ? { concurrency: o.concurrency } : {}),
        ...(o.trialSeconds !== undefined ? { timeouts: { trialSeconds: o.trialSeconds } } : {}),
      },
      role: 'judge',
    },
  );
  const read = await readJudgeStep(stepDir);
  const asked = read && 'answers' in read ? read.answers : new Map<string, { samples: JudgeSample[] }>();
  const rejudged = new Map(
    [...asked].flatMap(([id, a]) => (ids.has(id) && a.samples.length >= judge.config.samples ? [[ids.get(id)!, a.samples]] : [])),
  );

  // Only trials whose every item was answered both times are paired: a step stopped short compares what it has.
  const judged = (await gradeStoredJudged(store, manifest)).outcomes.filter(
    (t) => t.judge && t.judge.items.every((_, k) => stored.has(trialAskId(t, k)) && rejudged.has(trialAskId(t, k))),
  );
  const confidence = manifest.config.grading.confidence;
  const flip = rejudgeFlip(trialSamples(judged, stored), trialSamples(judged, rejudged), confidence);
  return {
    dir: namedAs(dir, o.cwd, stepDir),
    requests: again.length,
    samples: judge.config.samples,
    flip,
    status: step.manifest.status,
    ...(labels && o.labels ? { labels: { ...labelAgreement(labels, judged, confidence), file: o.labels } } : {}),
  };
}

/**
 * The stored answers rejudge compares with, refused before anything is asked when there is nothing to compare: a judge
 * file that cannot be read (its answers would be missing or read as errors), no answer at all, or none readable.
 */
async function storedAnswers(dir: string, at: string, asks: readonly JudgeAsk[], samples: number): Promise<Map<string, JudgeSample[]>> {
  const { steps, unreadable } = await readJudgeSteps(at);
  const resume = `\`skillprobe run --resume ${dir}\` asks the judge again`;
  if (unreadable.length) {
    const [first] = unreadable;
    const more = unreadable.length > 1 ? ` (and ${plural(unreadable.length - 1, 'more judge file')} like it)` : '';
    throw new InputError({
      file: join(dir, first!.path),
      what: `${first!.problem}${more}: the judge's stored answers cannot all be read`,
      todo: `restore it, or remove its judge step folder (${join(dir, first!.path.split(sep).slice(0, 2).join(sep))}), then ${resume}`,
    });
  }
  const stored = judgeAnswers(steps, new Map(asks.map((a) => [a.id, a.prompt])), samples);
  const found = asks.filter((a) => stored.has(a.id));
  if (!found.length)
    throw new InputError({
      file: dir,
      what: 'the run holds no judge answers to compare with',
      todo: `finish the run first: ${resume}`,
    });
  if (!found.some((a) => stored.get(a.id)!.some((sample) => sample !== 'error')))
    throw new InputError({
      file: join(dir, JUDGE_DIR),
      what: `none of the judge's ${plural(found.length * samples, 'stored answer')} has a readable YES or NO: nothing to compare a new answer with`,
      todo: "read the judge's replies in its trials there, fix what kept it from answering, and run the suite again",
    });
  return stored;
}
