/** log(e^x + e^y) without overflow; −∞ is the log of nothing. */
export function logAdd(x: number, y: number): number {
  if (x === Number.NEGATIVE_INFINITY) return y;
  if (y === Number.NEGATIVE_INFINITY) return x;
  return x > y ? x + Math.log1p(Math.exp(y - x)) : y + Math.log1p(Math.exp(x - y));
}
