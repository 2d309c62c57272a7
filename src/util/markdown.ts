/** The lines of a Markdown text with whether each sits inside a fenced code block; fence lines themselves are dropped. */
export function markdownLines(text: string): { line: string; fenced: boolean }[] {
  const out: { line: string; fenced: boolean }[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    out.push({ line, fenced });
  }
  return out;
}

/** A line of code as a command: trimmed, a leading `$ ` prompt removed; undefined for blanks and comments. */
export function asCommand(line: string): string | undefined {
  const t = line.trim();
  return t === '' || t.startsWith('#') ? undefined : t.replace(/^\$\s+/, '');
}

/** The commands in a text's fenced code blocks. */
export function fencedCommands(text: string): string[] {
  return markdownLines(text).flatMap((l) => (l.fenced ? (asCommand(l.line) ?? []) : []));
}
