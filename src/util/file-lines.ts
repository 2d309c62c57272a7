import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

const CHUNK_BYTES = 1 << 20;
/** A line longer than this is cut (and then reads as a malformed line): no line may outgrow a JavaScript string. */
export const MAX_LINE_CHARS = 32 << 20;

/**
 * The lines of a file (without their `\n`), read a chunk at a time, so a transcript of any size is never one string.
 * Synchronous, so a pure parser can pull them. Written by hand: Node's readline is asynchronous only.
 */
export function* fileLines(path: string, maxLineChars = MAX_LINE_CHARS): Generator<string> {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    const decoder = new StringDecoder('utf8');
    let partial = '';
    let cut = false;
    for (;;) {
      const read = readSync(fd, buffer, 0, CHUNK_BYTES, null);
      const text = read > 0 ? decoder.write(buffer.subarray(0, read)) : decoder.end();
      const pieces = text.split('\n');
      for (let i = 0; i < pieces.length - 1; i++) {
        yield cut ? partial : partial + pieces[i]!.slice(0, Math.max(0, maxLineChars - partial.length));
        partial = '';
        cut = false;
      }
      const tail = pieces.at(-1)!;
      if (!cut) {
        partial += tail.slice(0, maxLineChars - partial.length);
        cut = partial.length >= maxLineChars && tail.length > 0;
      }
      if (read === 0) break;
    }
    if (partial !== '') yield partial;
  } finally {
    closeSync(fd);
  }
}
