import { gradeStoredJudged } from '../grade/judged.js';
import type { Results, RunManifest } from '../run/schema.js';
import { lockRunFolder } from '../run/lock.js';
import { RunStore } from '../run/store.js';
import { buildResults } from '../verdict/results.js';

/** Regrades every stored transcript with the current graders and rewrites results.json. Runs nothing. */
export async function gradeRun(dir: string, now = new Date()): Promise<{ store: RunStore; manifest: RunManifest; results: Results }> {
  const { store, manifest } = await RunStore.open(dir);
  const lock = lockRunFolder(dir, 'grade');
  try {
    const { outcomes, damaged, judge } = await gradeStoredJudged(store, manifest);
    const results = buildResults(manifest, outcomes, damaged, now, judge);
    await store.writeResults(results);
    return { store, manifest, results };
  } finally {
    lock.release();
  }
}

/**
 * The stored results; when they are missing (an interrupted or live run) or unusable, the stored transcripts
 * graded in memory, with why in `regraded`. Writes nothing: `skillprobe grade` stores them.
 */
export async function loadResults(dir: string): Promise<{ store: RunStore; manifest: RunManifest; results: Results; regraded?: string }> {
  const { store, manifest } = await RunStore.open(dir);
  const stored = await store.readResults();
  if (stored.ok) return { store, manifest, results: stored.value };
  const { outcomes, damaged, judge } = await gradeStoredJudged(store, manifest);
  return { store, manifest, results: buildResults(manifest, outcomes, damaged, new Date(), judge), regraded: stored.problem };
}
