import { createHash } from 'node:crypto';
import { EMPTY_ANSWER, INJECTION_ANSWER, judgePrompt, type JudgeVariant } from '../checks/judge-prompt.js';
import type { JudgeExample } from '../run/config-schema.js';
import type { GradableCase, TrialRef } from '../run/schema.js';

/**
 * Every request the judge is asked for a run: each judged trial's items, then the controls and examples it must get
 * right before any of its verdicts counts. Pure: the cases, the trials' assistant texts and the examples in.
 *
 * Each request has a stable id (it names the request's case in the judge's run folder), so a resumed or regraded run
 * finds the answers it already has, and a request is never asked twice.
 */

export type JudgeControl = 'empty' | 'injection' | 'reworded' | 'reordered' | 'example';

export type JudgeAskPurpose =
  | { kind: 'trial'; ref: TrialRef; item: number }
  | {
      kind: 'control';
      control: JudgeControl;
      item: string;
      answer: string;
      /** The answer a trustworthy judge gives: fixed for the empty, injection and example controls. */
      expected?: 'yes' | 'no';
      /** For `reworded` and `reordered`: the request whose verdict it must keep. */
      against?: string;
    };

export interface JudgeAsk {
  id: string;
  prompt: string;
  purpose: JudgeAskPurpose;
}

/** What a judged trial said: the assistant's own text, in order (never tool results, never injected skill bodies). */
export interface JudgedText {
  ref: TrialRef;
  text: string;
}

const shortHash = (...parts: string[]) => createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 12);

export const trialAskId = (ref: TrialRef, item: number) => `${ref.caseId}.${ref.arm}.${ref.n}.item${item + 1}`;

/**
 * The requests for a run. `texts` holds every scored trial of a judged case. Per rubric item: an empty answer and an
 * injection (both must be judged no); and, on the case's first judged trial with text, the item reworded and (with two
 * or more items, where order can matter) the rubric reordered, which must keep that trial's verdict. Then each example.
 */
export function judgeAsks(defs: readonly GradableCase[], texts: readonly JudgedText[], examples: readonly JudgeExample[]): JudgeAsk[] {
  const asks: JudgeAsk[] = [];
  const seen = new Set<string>();
  const add = (a: JudgeAsk) => {
    if (seen.has(a.id)) return;
    seen.add(a.id);
    asks.push(a);
  };
  const judged = defs.filter((c) => c.judge?.length);
  const byCase = new Map<string, JudgedText[]>();
  // In trial order, whatever order the trials were read in: the same run always asks the same requests in one order.
  const ordered = [...texts].sort((a, b) => a.ref.arm.localeCompare(b.ref.arm) || a.ref.n - b.ref.n);
  for (const t of ordered) byCase.set(t.ref.caseId, [...(byCase.get(t.ref.caseId) ?? []), t]);
  for (const c of judged) {
    const rubric = c.judge!;
    for (const t of byCase.get(c.id) ?? []) {
      rubric.forEach((_, item) =>
        add({
          id: trialAskId(t.ref, item),
          prompt: judgePrompt({ rubric, item, answer: t.text, variant: 'plain' }),
          purpose: { kind: 'trial', ref: t.ref, item },
        }),
      );
    }
  }
  for (const c of judged) {
    const rubric = c.judge!;
    const first = (byCase.get(c.id) ?? []).find((t) => t.text.trim() !== '');
    rubric.forEach((itemText, item) => {
      const fixed = (control: 'empty' | 'injection', answer: string) =>
        add({
          id: `control.${control}.${shortHash(...rubric, itemText)}`,
          prompt: judgePrompt({ rubric, item, answer, variant: 'plain' }),
          purpose: { kind: 'control', control, item: itemText, answer, expected: 'no' },
        });
      fixed('empty', EMPTY_ANSWER);
      fixed('injection', INJECTION_ANSWER);
      if (!first) return;
      const variants: JudgeVariant[] = rubric.length > 1 ? ['reworded', 'reordered'] : ['reworded'];
      for (const variant of variants) {
        add({
          id: `control.${variant}.${c.id}.item${item + 1}`,
          prompt: judgePrompt({ rubric, item, answer: first.text, variant }),
          purpose: {
            kind: 'control',
            control: variant as JudgeControl,
            item: itemText,
            answer: first.text,
            against: trialAskId(first.ref, item),
          },
        });
      }
    });
  }
  examples.forEach((e, i) =>
    add({
      id: `calibration.example${i + 1}`,
      prompt: judgePrompt({ rubric: [e.item], item: 0, answer: e.answer, variant: 'plain' }),
      purpose: { kind: 'control', control: 'example', item: e.item, answer: e.answer, expected: e.expect },
    }),
  );
  return asks;
}
