import { finding, type Finding, type LintSkill } from './types.js';

/**
 * How alike two sibling descriptions read to a model choosing between them: TF-IDF cosine over the family's
 * descriptions. Hand-written (a few lines) because no installed package does TF-IDF, and the family is tiny.
 */

/** Function words and the boilerplate every description shares ("use when the user asks…"): they tell no skill apart. */
const STOP_WORDS = new Set(
  (
    'a about after all also an and any are as at be because been before being but by can could did do does doing for from ' +
    'had has have having he her here his how i if in into is it its itself just me more most my no nor not now of off on ' +
    'once only or other our out over own same she should so some such than that the their them then there these they this ' +
    'those through to too under until up very was we were what when where which while who whom why will with would you your ' +
    'use used uses using user users ask asks asked want wants wanted need needs skill skills help helps e g eg etc via ' +
    'something anything everything whether'
  ).split(' '),
);

/** Lowercase words without stop words, plurals folded (`issues` → `issue`, `summaries` → `summary`). */
export function descriptionTerms(text: string): string[] {
  const words = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return words
    .filter((w) => !STOP_WORDS.has(w) && !/^\d+$/.test(w))
    .map((w) => (w.length > 4 && w.endsWith('ies') ? `${w.slice(0, -3)}y` : w.length > 3 && /[^su]s$/.test(w) ? w.slice(0, -1) : w));
}

/** A family member as the similarity reads it: its names and its description. */
export type DescribedSkill = Pick<LintSkill, 'dir' | 'name' | 'description'>;

const sentences = (text: string): string[] => text.split(/(?<=[.!?])\s+/);

/** The names a text uses, whole: `atl-jira's` uses atl-jira, never atl. */
const namesIn = (text: string): string[] => text.toLowerCase().match(/[a-z0-9]+(?:-[a-z0-9]+)*/g) ?? [];

/** A name and its leading parts: `atl-jira` → atl, atl-jira. */
const leadingParts = (name: string): string[] => name.split('-').map((_, i, parts) => parts.slice(0, i + 1).join('-'));

/**
 * Whether `text` sends the reader to `sibling`. A name that leads the skill's own (`atl` for `atl-jira`) is the tool
 * both are named after, not a pointer to the other skill.
 */
function namesSibling(text: string, own: DescribedSkill, sibling: DescribedSkill): boolean {
  const ownNames = [own.dir, own.name].flatMap(leadingParts);
  const used = namesIn(text);
  return [sibling.dir, sibling.name].some((n) => !ownNames.includes(n) && used.includes(n.toLowerCase()));
}

/**
 * The description as it tells the skill apart: without the sentences that name a sibling. "Use atl-confluence for
 * pages" separates the two skills, though it borrows the sibling's words; counting them would make the advice to say
 * when to use the other raise the very similarity it lowers for a model.
 */
export function ownDescription(skill: DescribedSkill, family: readonly DescribedSkill[]): string {
  const siblings = family.filter((s) => s !== skill);
  return sentences(skill.description)
    .filter((t) => !siblings.some((s) => namesSibling(t, skill, s)))
    .join(' ');
}

export interface PairOverlap {
  /** Indices into the skills given. */
  a: number;
  b: number;
  /** Cosine similarity in [0, 1]. */
  score: number;
  /** Terms both use, most distinctive first (largest share of the score). */
  shared: string[];
}

/**
 * Every pair's similarity, over each description without its sentences that name a sibling. IDF is smoothed
 * (ln((1+N)/(1+df)) + 1) so that a word all siblings use still counts, only less than a word two of them share.
 */
export function descriptionOverlaps(family: readonly DescribedSkill[]): PairOverlap[] {
  const counts = family.map((skill) => {
    const m = new Map<string, number>();
    for (const t of descriptionTerms(ownDescription(skill, family))) m.set(t, (m.get(t) ?? 0) + 1);
    return m;
  });
  const df = new Map<string, number>();
  for (const m of counts) for (const t of m.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const n = family.length;
  const vectors = counts.map((m) => new Map([...m].map(([t, c]) => [t, c * (Math.log((1 + n) / (1 + df.get(t)!)) + 1)])));
  const norm = vectors.map((v) => Math.sqrt([...v.values()].reduce((s, w) => s + w * w, 0)));
  const pairs: PairOverlap[] = [];
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n; b++) {
      const terms = [...vectors[a]!].filter(([t]) => vectors[b]!.has(t)).map(([t, w]) => ({ t, part: w * vectors[b]!.get(t)! }));
      terms.sort((x, y) => y.part - x.part || x.t.localeCompare(y.t));
      const dot = terms.reduce((s, x) => s + x.part, 0);
      const denom = norm[a]! * norm[b]!;
      pairs.push({ a, b, score: denom === 0 ? 0 : Math.min(1, dot / denom), shared: terms.map((x) => x.t) });
    }
  }
  return pairs;
}

/** Above this, two descriptions share much of their distinctive vocabulary: a model choosing by description can swap them. */
export const OVERLAP_WARNING = 0.3;
/** From this score on, a pair shares enough vocabulary for a prompt to pull between them, so it needs traps each way. */
export const SIBLING_SCORE = 0.1;

/** The pairs whose descriptions share enough vocabulary to need a trap each way: what lint asks for and init writes. */
export const confusablePairs = (family: readonly DescribedSkill[]): PairOverlap[] =>
  descriptionOverlaps(family).filter((p) => p.score >= SIBLING_SCORE);

const SHOWN_WORDS = 6;

const sharedWords = (p: PairOverlap) => p.shared.slice(0, SHOWN_WORDS).join(', ') + (p.shared.length > SHOWN_WORDS ? ', …' : '');

/** Every pair that shares any distinctive word, most alike first: why two siblings could be confused, before any run. */
export function overlapTable(skills: readonly LintSkill[]): string {
  const pairs = descriptionOverlaps(skills)
    .filter((p) => p.score > 0)
    .sort((x, y) => y.score - x.score);
  if (pairs.length === 0) return '';
  const width = Math.max(...pairs.map((p) => `${skills[p.a]!.dir} ~ ${skills[p.b]!.dir}`.length));
  const rows = pairs.map((p) => `  ${`${skills[p.a]!.dir} ~ ${skills[p.b]!.dir}`.padEnd(width)}  ${p.score.toFixed(2)}  ${sharedWords(p)}`);
  return (
    [
      `sibling overlap (TF-IDF cosine of the descriptions; a warning above ${OVERLAP_WARNING.toFixed(2)}) and the words they share:`,
      ...rows,
    ].join('\n') + '\n'
  );
}

/** A warning per pair of siblings whose descriptions read alike, with the score and the words behind it. */
export function overlapFindings(skills: readonly LintSkill[]): Finding[] {
  return descriptionOverlaps(skills)
    .filter((p) => p.score > OVERLAP_WARNING)
    .map((p) => {
      const [a, b] = [skills[p.a]!, skills[p.b]!];
      const words = sharedWords(p);
      return finding(
        'overlap',
        'warning',
        a.at.description,
        `the descriptions of ${a.dir} and ${b.dir} read alike (similarity ${p.score.toFixed(2)}; shared: ${words}), so the model may pick one for the other`,
        `make each description say what only it does, or when to use the other instead`,
      );
    });
}
