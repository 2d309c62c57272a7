import type { ParseWarning } from '../transcript/types.js';
import { isPlainObject } from '../util/json.js';

/** Reading the JSON-lines streams agent CLIs print: tolerant, since a killed process can stop mid-line. */

export type Json = Record<string, unknown>;

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
export const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/**
 * Calls `onEvent` with each line of `raw` that is a JSON object, in order, and returns a warning for every other
 * non-blank line: a broken last line is a process that ended mid-write, anything else is not JSON.
 */
export function readJsonLines(raw: string, onEvent: (ev: Json) => void): ParseWarning[] {
  const warnings: ParseWarning[] = [];
  const lines = raw.split('\n');
  lines.forEach((text, i) => {
    if (text.trim() === '') return;
    let ev: unknown;
    try {
      ev = JSON.parse(text);
    } catch {
      const last = lines.slice(i + 1).every((l) => l.trim() === '');
      warnings.push({ line: i + 1, message: last ? 'truncated final line (process ended mid-write)' : 'line is not valid JSON' });
      return;
    }
    if (isPlainObject(ev)) onEvent(ev);
    else warnings.push({ line: i + 1, message: 'line is JSON but not an object' });
  });
  return warnings;
}
