import type { ActKind } from '../conversation.js';

/** Pieces the dialects share for writing replies. */

/** One server-sent event; Gemini's stream has data lines only, the others name each event. */
export function sseEvent(data: unknown, event?: string): string {
  return `${event === undefined ? '' : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`;
}

/** Splits a string into a few pieces, as a real stream delivers text. */
export function pieces(s: string, size = 48): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out.length ? out : [''];
}

/** A rough token count for what the model wrote: about four characters a token, at least one. */
export const outputTokens = (written: string): number => Math.max(1, Math.ceil(written.length / 4));

/**
 * An acting call in a dialect that does not write its CLI's acting tools yet: said in text. Its view offers no acting
 * call (`canAct`), so the policy never asks for one; this only keeps the reply whole if it did.
 */
export const actInText = (act: ActKind): string => `I would act by myself here (${act}), without a skill.`;
