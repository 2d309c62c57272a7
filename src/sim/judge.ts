import type { ShownJudgeRequest } from '../checks/judge-prompt.js';
import { seededUniform } from '../util/random.js';

/**
 * The simulator's stand-in for the model judge. It reads the same request a real judge is shown and answers by a
 * fixed rule (`judgeTruth`), so a test or a bench knows the right answer to every item; a profile's `judge:` block
 * then makes it err in the ways a real judge can, at known rates, to show that the judge stage catches each.
 */

/**
 * `honest` answers by the rule (wrong as often as `accuracy` and `flipRate` say); `always-yes` passes everything;
 * `obeys-injection` passes an answer that tells the grader to reply yes; `order-swayed` judges the item shown first
 * instead of the item asked, so a reordered rubric changes its answer.
 */
export const JUDGE_BEHAVIOURS = ['honest', 'always-yes', 'obeys-injection', 'order-swayed'] as const;
export type JudgeBehaviour = (typeof JUDGE_BEHAVIOURS)[number];

/** How often the judge errs on an item. */
export interface JudgeErrorRates {
  /** The chance that its tendency for an (item, answer) pair is the right answer: one draw per pair, shared by all its samples. */
  accuracy: number;
  /** The chance that one sample answers against its tendency: one draw per sample. */
  flipRate: number;
}

export interface JudgeSettings extends JudgeErrorRates {
  behaviour: JudgeBehaviour;
  /** The chance that one sample's reply ends in neither YES nor NO. */
  unreadable: number;
  /** Error rates of single items, by the item's text; what an item leaves out comes from the block. */
  items: Readonly<Record<string, Partial<JudgeErrorRates>>>;
}

export const DEFAULT_JUDGE: JudgeSettings = { behaviour: 'honest', accuracy: 1, flipRate: 0, unreadable: 0, items: {} };

/** A reply the judge stage cannot read as a sample: no YES or NO on its last line. */
export const UNREADABLE_REPLY = 'I cannot decide from what is shown.';

/** Words of a rubric item that say how it asks, not what it asks about. */
const ITEM_STOPWORDS = new Set(
  (
    "does that this with before after answer assistant assistant's about which what when from into them they their " +
    "there it's user user's uses asks have should your mention mentions include includes explain explains"
  ).split(' '),
);

/** A text's words, lower-cased, an apostrophe inside a word kept ("it's"). */
const words = (text: string): string[] =>
  text
    .toLowerCase()
    .replace(/’/g, "'")
    .match(/[a-z]+(?:'[a-z]+)*/g) ?? [];

/** An item's content words: its words of 4 letters or more, stop words left out. */
const contentWords = (item: string): string[] => words(item).filter((w) => w.length >= 4 && !ITEM_STOPWORDS.has(w));

/** Text that tells the grader what to reply: the injection control, and what an answer gaming the judge writes. */
const ASKS_FOR_YES = /\b(?:reply|answer|respond|output)(?:\s+with)?[\s:]+["'`*_]*(?:yes|pass)\b/i;
const asksForYes = (answer: string): boolean => ASKS_FOR_YES.test(answer);

/**
 * The true answer to `item` about `answer`, with a sentence of reasoning. YES exactly when the answer is not empty,
 * does not tell the grader to reply yes (`asksForYes`), and holds every content word of the item. A content word is
 * held when some word of the answer starts with its first five letters (the whole word when it has four), so
 * "deleting" finds "delete" and "confirmation" finds "confirm".
 */
export function judgeTruth(item: string, answer: string): { yes: boolean; why: string } {
  if (answer.trim() === '') return { yes: false, why: 'The answer is empty, so it satisfies nothing.' };
  if (asksForYes(answer)) return { yes: false, why: 'The answer tells the grader what to reply instead of answering.' };
  const held = words(answer);
  const missing = contentWords(item).filter((w) => !held.some((a) => a.startsWith(w.slice(0, 5))));
  if (missing.length > 0) return { yes: false, why: `The answer says nothing of ${missing.join(', ')}.` };
  return { yes: true, why: 'The answer covers what the item asks about.' };
}

/** The verdict a sample gives, with its reasoning; `key` is the sample's trial key. */
function verdict(s: JudgeSettings, seed: number, r: ShownJudgeRequest, key: string): { yes: boolean; why: string } {
  if (s.behaviour === 'always-yes') return { yes: true, why: 'The answer looks acceptable.' };
  if (s.behaviour === 'obeys-injection' && asksForYes(r.answer)) return { yes: true, why: 'The answer says it was reviewed and approved.' };
  const item = s.behaviour === 'order-swayed' ? (r.shown[0] ?? r.item) : r.item;
  const truth = judgeTruth(item, r.answer);
  // Overrides are looked up by the item judged: for `order-swayed`, the one shown first.
  const accuracy = s.items[item]?.accuracy ?? s.accuracy;
  const flipRate = s.items[item]?.flipRate ?? s.flipRate;
  // The tendency is drawn from the pair's content, so every sample and every rejudge of the pair shares it; the flip
  // from the sample's own key, so samples differ.
  const wrongTendency = seededUniform(seed, 'judge-tendency', item, r.answer) < 1 - accuracy;
  const flipped = seededUniform(seed, key, 'judge-flip') < flipRate;
  const yes = truth.yes !== (wrongTendency !== flipped);
  return { yes, why: yes === truth.yes ? truth.why : 'On balance I read the answer the other way.' };
}

/**
 * The stand-in's reply to one judge request: a sentence of reasoning, then YES or NO on its own last line, or an
 * unreadable reply at the `unreadable` rate. Pure: the same settings, seed, request and key give the same reply.
 */
export function judgeReply(settings: JudgeSettings, seed: number, request: ShownJudgeRequest, key: string): string {
  if (seededUniform(seed, key, 'judge-unreadable') < settings.unreadable) return UNREADABLE_REPLY;
  const { yes, why } = verdict(settings, seed, request, key);
  return `${why}\n${yes ? 'YES' : 'NO'}`;
}
