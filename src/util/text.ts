/** "1 trial", "2 trials". */
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A p-value as read: three decimals, and below that, only that it is small. */
export const pValueText = (p: number) => (Number.isNaN(p) ? '—' : p < 0.001 ? '<0.001' : p.toFixed(3));
