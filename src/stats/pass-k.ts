/**
 * Unbiased estimators from n trials with c passes (Chen et al. 2021 for pass@k; its complement for pass^k):
 *   pass@k = 1 − C(n−c, k) / C(n, k)   the chance that at least one of k fresh trials passes
 *   pass^k = C(c, k) / C(n, k)         the chance that all k fresh trials pass
 * Computed as running products, so large n never overflows.
 */
function ratioOfChooses(top: number, n: number, k: number): number {
  // C(top, k) / C(n, k) = Π_{i<k} (top − i) / (n − i)
  let r = 1;
  for (let i = 0; i < k; i++) {
    if (top - i <= 0) return 0;
    r *= (top - i) / (n - i);
  }
  return r;
}

function check(n: number, c: number, k: number): void {
  if (!(Number.isInteger(n) && Number.isInteger(c) && Number.isInteger(k)) || c < 0 || c > n || k < 1 || k > n) {
    throw new RangeError(`pass@k needs integers 0 ≤ c ≤ n and 1 ≤ k ≤ n (n=${n}, c=${c}, k=${k})`);
  }
}

export function passAtK(n: number, c: number, k: number): number {
  check(n, c, k);
  return 1 - ratioOfChooses(n - c, n, k);
}

export function passHatK(n: number, c: number, k: number): number {
  check(n, c, k);
  return ratioOfChooses(c, n, k);
}

/** Both, for every k from 1 to n. */
export function passKTable(n: number, c: number): { k: number; passAtK: number; passHatK: number }[] {
  return Array.from({ length: n }, (_, i) => ({ k: i + 1, passAtK: passAtK(n, c, i + 1), passHatK: passHatK(n, c, i + 1) }));
}
