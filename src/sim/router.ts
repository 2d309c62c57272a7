import { stemmer } from 'stemmer';
import { eng } from 'stopword';

/**
 * The simulator's description router: the chance that the simulated model calls each offered skill follows how well
 * the skill's description, as the CLI listed it, matches the prompt, so editing a description changes triggering as
 * it does with a real model. Scores are BM25 over the family's descriptions; choices are a softmax over the scores
 * and a "none" option whose score is the threshold.
 */
export interface RouterParams {
  /** Softmax temperature: lower is more decisive. */
  temperature: number;
  /** The score of answering without a skill: a skill whose score stays below it is rarely called. */
  threshold: number;
  /** BM25's term-frequency saturation and length normalisation. */
  k1: number;
  b: number;
}

export const DEFAULT_ROUTER: RouterParams = { temperature: 0.5, threshold: 1.5, k1: 1.2, b: 0.75 };

const STOPWORDS = new Set([...eng, 'use', 'used', 'using', 'skill', 'please', 'can', 'could', 'would', 'want', 'need', 'help']);

/** A text's words as written, lower-cased, stop words and single characters left out. */
export function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => !STOPWORDS.has(w) && w.length > 1);
}

/** The stem BM25 matches a word by, so "bugs" and "bug" are one term. */
export const stem = (word: string): string => stemmer(word);

/** Lower-cased stems of a text's words, stop words left out. */
export function terms(text: string): string[] {
  return contentWords(text).map(stem);
}

/**
 * BM25 of the query against each document. Written here because the npm BM25 packages match terms as substrings (an
 * unescaped RegExp, `includes`), so "art" would score on "start".
 */
export function bm25Scores(
  query: readonly string[],
  documents: readonly (readonly string[])[],
  p: Pick<RouterParams, 'k1' | 'b'>,
): number[] {
  const n = documents.length;
  if (n === 0) return [];
  const avgLength = documents.reduce((s, d) => s + d.length, 0) / n || 1;
  const counts = documents.map((d) => {
    const m = new Map<string, number>();
    for (const t of d) m.set(t, (m.get(t) ?? 0) + 1);
    return m;
  });
  const unique = [...new Set(query)];
  // The "+1" form of IDF stays positive when a term is in most of a small family's descriptions.
  const idf = new Map(
    unique.map((t) => {
      const holding = counts.filter((c) => c.has(t)).length;
      return [t, Math.log(1 + (n - holding + 0.5) / (holding + 0.5))];
    }),
  );
  return documents.map((d, i) =>
    unique.reduce((score, t) => {
      const tf = counts[i]!.get(t) ?? 0;
      return score + (idf.get(t)! * tf * (p.k1 + 1)) / (tf + p.k1 * (1 - p.b + (p.b * d.length) / avgLength));
    }, 0),
  );
}

/** The chance of each offered skill being called, and of none, for one prompt. */
export function routerChances(
  prompt: string,
  offered: readonly { name: string; description: string }[],
  p: RouterParams,
): { skills: { name: string; p: number }[]; none: number } {
  const scores = bm25Scores(
    terms(prompt),
    offered.map((s) => terms(s.description)),
    p,
  );
  const logits = [...scores, p.threshold].map((s) => s / p.temperature);
  const top = Math.max(...logits);
  const weights = logits.map((l) => Math.exp(l - top));
  const total = weights.reduce((a, b) => a + b, 0);
  return { skills: offered.map((s, i) => ({ name: s.name, p: weights[i]! / total })), none: weights[weights.length - 1]! / total };
}
