import type { ProposalRequest } from '../tune/proposal.js';
import { contentWords, stem, terms } from './router.js';
import { seededUniform } from '../util/random.js';

/**
 * The simulator's stand-in for the model `tune` asks for a better description. It reads the same request a real model
 * would and edits the description the way the router rewards: words of the missed prompts are appended, words only
 * the wrongly triggered prompts share are dropped. A crude editor on purpose: it shows that `tune` measures what a
 * proposal gains, not that the simulator writes good prose.
 */

/** How many words one proposal adds when the profile says nothing. */
export const DEFAULT_PROPOSER_WORDS = 8;

export interface ProposerSettings {
  seed: number;
  /** The most words one proposal adds. */
  words: number;
}

/** The appended sentence; a later proposal extends it rather than adding a second one. */
const ALSO = 'Also use it for requests about ';
const ALSO_AT_END = /\s*Also use it for requests about ([^.]*)\.$/;

/**
 * Words of the missed prompts (as first written, lower case) whose stem the description lacks, most widely missed
 * first; ties go by a draw seeded with the attempt number, so each iteration of `tune` tries a different few.
 */
function missedWords(r: ProposalRequest, seed: number): string[] {
  const have = new Set(terms(r.current));
  const held = new Map<string, { word: string; prompts: number }>();
  for (const f of r.failures.filter((f) => f.kind === 'missed')) {
    const counted = new Set<string>();
    for (const word of contentWords(f.prompt)) {
      const t = stem(word);
      if (have.has(t) || counted.has(t)) continue;
      counted.add(t);
      const entry = held.get(t) ?? { word, prompts: 0 };
      entry.prompts++;
      held.set(t, entry);
    }
  }
  const draw = (t: string) => seededUniform(seed, 'proposer', String(r.attempts.length), t);
  return [...held.entries()].sort(([ta, a], [tb, b]) => b.prompts - a.prompts || draw(ta) - draw(tb)).map(([, e]) => e.word);
}

/**
 * Stems to take out: in a stolen or false-trigger prompt, but in no missed prompt, not in the skill's own name (the
 * words that must keep pulling the skill's own requests) and not in the appended sentence's own wording.
 */
function misleadingTerms(r: ProposalRequest): Set<string> {
  const missed = r.failures.filter((f) => f.kind === 'missed').flatMap((f) => terms(f.prompt));
  const keep = new Set([...missed, ...terms(r.skill), ...terms(ALSO)]);
  const wrong = r.failures.filter((f) => f.kind !== 'missed').flatMap((f) => terms(f.prompt));
  return new Set(wrong.filter((t) => !keep.has(t)));
}

/**
 * The text with those words gone, and what they leave behind tidied: spaces, doubled commas, a sentence that now
 * starts with a comma or "and"/"or", and the text's first letter.
 */
function withoutTerms(text: string, drop: ReadonlySet<string>): string {
  if (drop.size === 0) return text;
  return text
    .replace(/[A-Za-z0-9]+/g, (w) => (contentWords(w).length > 0 && drop.has(stem(w.toLowerCase())) ? '' : w))
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/\s+([,.;:])/g, '$1')
    .replace(/,(\s*,)+/g, ',')
    .replace(/,\s*\./g, '.')
    .replace(/(^|[.;:]\s*)(,\s*|(and|or)\s+)+/gi, '$1')
    .replace(/^[a-z]/, (letter) => letter.toUpperCase());
}

/** At most `max` characters, cut at a space: never mid-word. */
function withinChars(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max + 1);
  return cut.slice(0, Math.max(0, cut.lastIndexOf(' '))).trimEnd();
}

/** The description with `words` appended to its "Also use it for …" sentence (made when it has none). */
function withAddedWords(text: string, words: readonly string[]): string {
  if (words.length === 0) return text;
  const existing = ALSO_AT_END.exec(text);
  const head = existing ? text.slice(0, existing.index) : text;
  const already = existing?.[1]?.trim();
  const listed = already ? [already, ...words] : words;
  return `${head}${head === '' ? '' : ' '}${ALSO}${listed.join(', ')}.`;
}

/**
 * The proposal for one request: deterministic for a seed and request. With nothing to add or drop it is the current
 * description again (so the candidate is no better, and `tune` must see that). Plain text within `maxChars`.
 */
export function proposeDescription(r: ProposalRequest, settings: ProposerSettings): string {
  const current = r.current.replace(/[<>]/g, ' ').replace(/\s+/g, ' ').trim();
  const base = withoutTerms(current, misleadingTerms(r));
  const words = missedWords(r, settings.seed).slice(0, settings.words);
  // Fewer words rather than a cut one; the base alone is cut only when it was already too long.
  while (words.length > 0 && withAddedWords(base, words).length > r.maxChars) words.pop();
  return withinChars(withAddedWords(base, words), r.maxChars);
}
