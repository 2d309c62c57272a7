import { join } from 'node:path';
import { gradeStoredJudged } from './judge-steps.js';
import { metaPath, trialKey, type Results, type RunManifest, type TrialOutcome } from '../run/schema.js';
import { lockRunFolder } from '../run/lock.js';
import { RunFolderError, RunStore } from '../run/store.js';
import { buildResults } from '../verdict/results.js';

/** Regrades every stored transcript with the current graders and rewrites results.json. Runs nothing. */
export async function gradeRun(
  dir: string,
  cwd?: string,
  now = new Date(),
): Promise<{ store: RunStore; manifest: RunManifest; results: Results }> {
  const { store, manifest } = await RunStore.open(dir, cwd);
  const lock = lockRunFolder(store.dir, 'grade');
  try {
    const { outcomes, damaged, judge } = await gradeStoredJudged(store, manifest);
    const results = buildResults(manifest, outcomes, damaged, now, judge);
    await store.writeResults(results);
    return { store, manifest, results };
  } finally {
    lock.release();
  }
}

const shown = (o: Pick<TrialOutcome, 'passed' | 'status'>) => (o.passed === null ? `not scored (${o.status})` : o.passed ? 'PASS' : 'FAIL');

/**
 * Why stored results cannot gate, or undefined when every trial they count is stored intact and grades as they say.
 * `regraded` are the run's stored trials graded now. A trial results.json counts whose record is gone or damaged is
 * named by its file; a trial that grades otherwise (results.json edited, or written by other graders), or one
 * results.json does not count (written before trials were added), names results.json. Pure.
 */
export function resultsDisagreement(
  stored: Pick<Results, 'outcomes'>,
  regraded: Pick<Results, 'outcomes' | 'damaged'>,
): { file: string; what: string; todo: string } | undefined {
  const now = new Map(regraded.outcomes.map((o) => [trialKey(o), o]));
  const damaged = new Map(regraded.damaged.map((d) => [d.path, d.problem]));
  const regrade = 'run `skillprobe grade DIR` to rewrite results.json from the trials that are stored';
  for (const o of stored.outcomes) {
    if (now.has(trialKey(o))) continue;
    const path = [metaPath(o), metaPath(o).replace(/\.meta\.json$/, '.jsonl')].find((p) => damaged.has(p)) ?? metaPath(o);
    return {
      file: path,
      what: `results.json counts this trial, but its record is ${damaged.has(path) ? `damaged (${damaged.get(path)})` : 'missing'}`,
      todo: `restore the run folder's trials, or ${regrade}`,
    };
  }
  const counted = new Set(stored.outcomes.map(trialKey));
  const differs = stored.outcomes.filter((o) => {
    const g = now.get(trialKey(o))!;
    return g.passed !== o.passed || g.status !== o.status;
  });
  const uncounted = regraded.outcomes.filter((o) => !counted.has(trialKey(o)));
  if (!differs.length && !uncounted.length) return undefined;
  const first = differs[0];
  return {
    file: 'results.json',
    what: first
      ? `says trial ${trialKey(first)} is ${shown(first)}, but its stored transcript grades ${shown(now.get(trialKey(first))!)}` +
        (differs.length > 1 ? ` (${differs.length} trials differ)` : '') +
        ': edited, or written by other graders'
      : `does not count ${uncounted.length} stored trial(s), e.g. ${trialKey(uncounted[0]!)}: written before they were stored`,
    todo: regrade,
  };
}

/**
 * The stored results, checked against the stored trials before anything reads a verdict from them (a hand-edited or
 * stale results.json, or trials deleted since, would otherwise gate silently); when they are missing (an interrupted
 * or live run) or unusable, the stored transcripts graded in memory, with why in `regraded`. Writes nothing: `skillprobe
 * grade` stores them.
 */
export async function loadResults(
  dir: string,
  cwd?: string,
): Promise<{ store: RunStore; manifest: RunManifest; results: Results; regraded?: string }> {
  const { store, manifest } = await RunStore.open(dir, cwd);
  const stored = await store.readResults();
  const { outcomes, damaged, judge } = await gradeStoredJudged(store, manifest);
  const regraded = buildResults(manifest, outcomes, damaged, new Date(), judge);
  if (!stored.ok) return { store, manifest, results: regraded, regraded: stored.problem };
  const disagreement = resultsDisagreement(stored.value, regraded);
  if (disagreement) {
    const { file, what, todo } = disagreement;
    throw new RunFolderError(join(dir, file), what, todo.replace('DIR', dir));
  }
  return { store, manifest, results: stored.value };
}
