import { createHash } from 'node:crypto';

/** A UUID-shaped id (version 4's layout), the same for the same parts: a seeded session and its turns, named by the trial. */
export function uuidOf(...parts: string[]): string {
  const h = createHash('sha256').update(parts.join('\0')).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The time of a seeded history's turn `i`: a fixed day, a second a turn, so a seeded record is the same every time. */
export const seededAt = (i: number): string => new Date(Date.UTC(2000, 0, 1, 0, 0, i)).toISOString();
