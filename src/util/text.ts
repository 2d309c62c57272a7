/** "1 trial", "2 trials". */
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A rate as a whole percentage; '—' where there is none. */
export const pct = (x: number | null | undefined) => (x === null || x === undefined ? '—' : `${Math.round(x * 100)}%`);

/** A p-value as read: three decimals, and below that, only that it is small. */
export const pValueText = (p: number) => (Number.isNaN(p) ? '—' : p < 0.001 ? '<0.001' : p.toFixed(3));

/** Edit distance with transpositions. Written by hand: ten lines, for "did you mean" among a handful of names. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** The known name nearest to a mistyped one (a key, a command), when near enough to be what was meant. */
export function nearestName(typed: string, known: readonly string[]): string | undefined {
  const scored = known.map((k) => ({ k, d: editDistance(typed.toLowerCase(), k.toLowerCase()) })).sort((x, y) => x.d - y.d);
  const best = scored[0];
  return best && best.k !== typed && best.d <= Math.max(1, Math.floor(0.4 * Math.max(typed.length, best.k.length))) ? best.k : undefined;
}
