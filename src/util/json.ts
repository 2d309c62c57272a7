import { createHash } from 'node:crypto';

/** A plain JSON object (not null, not a list): a map of keys to values. */
export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON with every object's keys sorted, so two equal values always read the same. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (isPlainObject(v)) {
    const keys = Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** sha256 of a value's meaning, not its spelling: key order and absent keys do not change it. */
export const valueHash = (v: unknown): string => createHash('sha256').update(canonicalJson(v)).digest('hex');
