/**
 * Markup built by string templates, safe by construction: every value interpolated into `html` is escaped unless it
 * is itself `Html`, so text from transcripts, prompts and case ids can never become markup.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type Part = Html | string | number | false | null | undefined | readonly Part[];

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);

function serialise(part: Part): string {
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return (part as readonly Part[]).map(serialise).join('');
  if (part === null || part === undefined || part === false) return '';
  return escapeHtml(String(part));
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += serialise(v) + strings[i + 1]!;
  });
  return new Html(out);
}

/** Markup written in this codebase (the stylesheet), never data. */
export const trusted = (text: string): Html => new Html(text);

/** Parts joined by a separator that is itself markup. */
export const join = (parts: readonly Part[], separator: Html | string): Html => new Html(parts.map(serialise).join(serialise(separator)));
