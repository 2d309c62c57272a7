import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { judgeStepOf, type StoredJudgeStep } from '../grade/judge-answers.js';
import { adapterFor } from '../agents/registry.js';
import { gradeJudged, hasJudgedCases, judgeSettings, type JudgeSettings } from '../grade/judged.js';
import type { DamagedTrial, JudgeGrading, RunManifest } from '../run/schema.js';
import { ORPHAN_TRANSCRIPT, RunFolderError, RunStore } from '../run/store.js';
import { gradeStored, type StoredGrades } from './stored-grades.js';

/**
 * The judge's stored answers, read from a run folder: one judge step (a nested run of judge requests) per folder
 * under the run's `judge/`, so a regrade reads the answers back instead of asking again, and `report` can show each.
 */

/** The folder inside a run folder that holds its judge steps. */
export const JUDGE_DIR = 'judge';

/** What a run folder's `judge/` holds: its readable steps, and every file there that should hold answers and cannot be read. */
export interface StoredJudgeSteps {
  steps: StoredJudgeStep[];
  /** Paths from the run folder: a step that cannot be opened, or a trial file of a step that cannot be read. */
  unreadable: DamagedTrial[];
}

/**
 * Every judge step stored in a run folder, oldest first; a step that cannot be read is left out of `steps` and named in
 * `unreadable`. A file where the `judge` folder belongs is refused: nothing of the judge could be kept there.
 */
export async function readJudgeSteps(runDir: string): Promise<StoredJudgeSteps> {
  const root = join(runDir, JUDGE_DIR);
  if (!existsSync(root)) return { steps: [], unreadable: [] };
  if (!(await stat(root)).isDirectory())
    throw new RunFolderError(
      root,
      "not a folder: the run's judge answers are kept in a folder of that name",
      `move the file away, then \`skillprobe run --resume ${runDir}\` asks the judge again`,
    );
  const steps: StoredJudgeStep[] = [];
  const unreadable: DamagedTrial[] = [];
  for (const name of (await readdir(root)).sort()) {
    const step = await readJudgeStep(join(root, name));
    if (step === undefined) continue;
    if ('problem' in step) unreadable.push({ path: join(JUDGE_DIR, name, step.path), problem: step.problem });
    else {
      steps.push(step);
      unreadable.push(...step.damaged.map((d) => ({ path: join(JUDGE_DIR, name, d.path), problem: d.problem })));
    }
  }
  return { steps, unreadable };
}

/**
 * One judge step's answers (a run folder of judge requests), or why it holds no readable run (a path inside it);
 * undefined where no answer was ever kept: no folder (a stray file beside the steps), or an empty one.
 */
export async function readJudgeStep(dir: string): Promise<StoredJudgeStep | DamagedTrial | undefined> {
  const folder = await stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!folder) return undefined;
  if (!existsSync(join(dir, 'run.json')))
    // An empty folder is a step that died before it began (it is made again); anything in it is answers now unreadable.
    return (await readdir(dir)).length ? { path: 'run.json', problem: 'missing: the judge step holds no readable run' } : undefined;
  let opened: Awaited<ReturnType<typeof RunStore.open>>;
  try {
    opened = await RunStore.open(dir);
  } catch (e) {
    if (e instanceof RunFolderError) return { path: 'run.json', problem: e.what };
    throw e;
  }
  return judgeStepFromRun(dir, opened.store, opened.manifest);
}

/** A judge step's answers from its open run folder, its trials read once. */
export async function judgeStepFromRun(dir: string, store: RunStore, manifest: RunManifest): Promise<StoredJudgeStep> {
  const { judgeReads } = await gradeStored(store, manifest, { judgeReads: true });
  return judgeStepOf(dir, manifest, judgeReads!.reads, judgeReads!.listed, ORPHAN_TRANSCRIPT);
}

/** The run's judge settings, each agent's default model from the registry. */
export const judgeOf = (manifest: Pick<RunManifest, 'config' | 'agent' | 'model'>): JudgeSettings =>
  judgeSettings(manifest, (agent) => adapterFor(agent, 'the config').defaultModel);

/**
 * Grades every stored trial and applies the judge's stored answers (`judge/` in the run folder): the calibration,
 * each judged trial's item verdicts, and, when the judge is calibrated, their part in the pass rule. Runs nothing.
 */
export async function gradeStoredJudged(store: RunStore, manifest: RunManifest): Promise<StoredGrades & { judge?: JudgeGrading }> {
  const graded = await gradeStored(store, manifest);
  if (!hasJudgedCases(manifest)) return graded;
  return gradeJudged(manifest, graded, (await readJudgeSteps(store.dir)).steps, judgeOf(manifest));
}
