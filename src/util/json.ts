/** A plain JSON object (not null, not a list): a map of keys to values. */
export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
