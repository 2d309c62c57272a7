/**
 * How much of a block that is only shown, never graded (a tool's output, an injected skill body), a transcript keeps
 * in memory: reports show its first 4,000 characters; the file keeps it whole. So a trial whose tools print hundreds
 * of MB costs the reader this much a block, not the block's size.
 */
export const SHOWN_CHARS = 8192;

/**
 * `text` as a transcript keeps a block that is only shown: whole up to SHOWN_CHARS, else its start and its full
 * length (`chars`). The start is copied, so the whole block it was cut from can be freed.
 */
export function shownBlock(text: string): { text: string; chars?: number } {
  if (text.length <= SHOWN_CHARS) return { text };
  // A slice of a long string can keep the whole string alive (V8 shares it); a copy through UTF-8 does not.
  return { text: Buffer.from(text.slice(0, SHOWN_CHARS), 'utf8').toString('utf8'), chars: text.length };
}
