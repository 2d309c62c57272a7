export type Correction = 'bh' | 'bonferroni' | 'none';

/**
 * Adjusted p-values, in the input order, computed from the real p-values:
 * Bonferroni multiplies by m; Benjamini–Hochberg takes, for the i-th smallest, min over j ≥ i of p(j)·m/j.
 */
export function adjustPValues(pValues: readonly number[], method: Correction): number[] {
  const m = pValues.length;
  if (method === 'none' || m === 0) return [...pValues];
  if (method === 'bonferroni') return pValues.map((p) => Math.min(1, p * m));
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p);
  const adjusted = new Array<number>(m);
  let running = 1;
  for (let rank = m; rank >= 1; rank--) {
    const { p, i } = order[rank - 1]!;
    running = Math.min(running, (p * m) / rank);
    adjusted[i] = Math.min(1, running);
  }
  return adjusted;
}
