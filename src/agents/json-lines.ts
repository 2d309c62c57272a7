import type { OtherEvent, ParseWarning, TranscriptEvent } from '../transcript/types.js';
import { isPlainObject } from '../util/json.js';

/** Reading the JSON-lines streams agent CLIs print: tolerant, since a killed process can stop mid-line. */

export type Json = Record<string, unknown>;

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
export const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** A transcript as its text, or its lines as they are read (a stored transcript is never read into one string). */
export type TranscriptLines = string | Iterable<string>;

/**
 * Calls `onEvent` with each line that is a JSON object, in order, and returns a warning for every other non-blank
 * line: a broken last line is a process that ended mid-write, anything else is not JSON.
 */
export function readJsonLines(input: TranscriptLines, onEvent: (ev: Json) => void): ParseWarning[] {
  const warnings: ParseWarning[] = [];
  // Whether a line that is not JSON was the last one is known only once the lines after it are read.
  let broken: number | undefined;
  let line = 0;
  for (const text of typeof input === 'string' ? input.split('\n') : input) {
    line++;
    if (text.trim() === '') continue;
    if (broken !== undefined) warnings.push({ line: broken, message: 'line is not valid JSON' });
    broken = undefined;
    let ev: unknown;
    try {
      ev = JSON.parse(text);
    } catch {
      broken = line;
      continue;
    }
    if (isPlainObject(ev)) onEvent(ev);
    else warnings.push({ line, message: 'line is JSON but not an object' });
  }
  if (broken !== undefined) warnings.push({ line: broken, message: 'truncated final line (process ended mid-write)' });
  return warnings;
}

/** Appends an event the canonical transcript has no kind for; one like the event before it only counts there. */
export function pushOther(events: TranscriptEvent[], ev: Omit<OtherEvent, 'kind'>): void {
  const last = events.at(-1);
  if (last?.kind === 'other' && last.type === ev.type && last.source === ev.source) last.repeats = (last.repeats ?? 1) + 1;
  else events.push({ kind: 'other', ...ev });
}

/** The first `key` (a string) of a line of type `type` in a stream: the session a CLI says it started, say. */
export function firstValueOf(input: TranscriptLines, type: string, key: string): string | undefined {
  let value: string | undefined;
  readJsonLines(input, (ev) => {
    if (ev.type === type) value ??= str(ev[key]);
  });
  return value;
}

/**
 * Whether one line of a stream is a JSON object of type `type`, read as JSON: a CLI's key order is no contract
 * (Claude Code 2.1.332 prints `type` late in its `result` line).
 */
export function isLineOfType(line: string, type: string): boolean {
  // Most lines are not the one sought: only a line naming the type is parsed.
  if (!line.includes(`"${type}"`)) return false;
  try {
    const ev: unknown = JSON.parse(line);
    return isPlainObject(ev) && ev.type === type;
  } catch {
    return false;
  }
}
