/** One share of a suite split across CI machines: `index` of `total`, 1-based (`--shard 2/3`). */
export interface Shard {
  index: number;
  total: number;
}

/**
 * The case ids shard `index` runs, balanced by expected trials: largest first, each to the least loaded shard
 * (ties to the lower index). Deterministic for the same cases, so every machine of a matrix agrees without
 * talking to the others. A case is never split: its arms stay together, since SPRT needs one case's trials in order.
 */
export function casesOfShard(cases: readonly { id: string; expectedTrials: number }[], shard: Shard): Set<string> {
  const load = new Array<number>(shard.total).fill(0);
  const mine = new Set<string>();
  const order = [...cases].sort((a, b) => b.expectedTrials - a.expectedTrials || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const c of order) {
    const least = load.indexOf(Math.min(...load));
    load[least]! += c.expectedTrials;
    if (least === shard.index - 1) mine.add(c.id);
  }
  return mine;
}
