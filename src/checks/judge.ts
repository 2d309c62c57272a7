import { z } from 'zod';
import type { JudgeSample } from './judge-prompt.js';

/**
 * `expect.judge`: rubric items, each a yes/no question about what the assistant itself wrote, judged one at a time
 * by a model (never as one "is it good" score). Pure here: the schema, and the verdicts from the samples the judge
 * stage stored.
 */

/** The longest item: it is shown to the judge whole, in every request. */
export const MAX_ITEM_CHARS = 500;

export const judgeItemsSchema = z
  .array(
    z
      .string()
      .trim()
      .min(1, 'a rubric item is empty — write a yes/no question about what the assistant writes')
      .max(MAX_ITEM_CHARS, `a rubric item holds at most ${MAX_ITEM_CHARS} characters — split it into items that ask one thing each`),
  )
  .min(1, 'judge holds no items — list yes/no questions, or remove judge')
  .refine((items) => new Set(items).size === items.length, 'judge lists an item twice — remove the repeat');

/**
 * `expect.judge` as the check registry holds it: the items as a case file writes them, and as run.json stores them
 * (already checked, in the order written).
 */
export const judge = { authored: judgeItemsSchema.optional(), stored: z.array(z.string()).optional() };

/** One item's verdict in one trial: the strict majority of its samples, else `judge_error`. */
export type ItemVerdict = 'yes' | 'no' | 'judge_error';

/**
 * The item's verdict from its samples: yes (or no) when more than half of all samples asked say so; a tie, or too
 * many unreadable replies to make a majority, is `judge_error` (never a pass, never a fail).
 */
export function itemVerdict(samples: readonly JudgeSample[]): ItemVerdict {
  const yes = samples.filter((s) => s === 'yes').length;
  const no = samples.filter((s) => s === 'no').length;
  if (2 * yes > samples.length) return 'yes';
  if (2 * no > samples.length) return 'no';
  return 'judge_error';
}

/** Whether the judge's readable samples of an item disagreed (both yes and no among them). */
export const samplesDisagree = (samples: readonly JudgeSample[]) => samples.includes('yes') && samples.includes('no');

/** Whether the samples can show a disagreement at all: at least two readable ones. */
export const samplesComparable = (samples: readonly JudgeSample[]) => samples.filter((s) => s !== 'error').length >= 2;
