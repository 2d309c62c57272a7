import { z } from 'zod';
import { valueHash } from '../util/json.js';
import type { InputProblem } from '../util/input-error.js';

/**
 * A case's conversation: the earlier turns it starts from (`history:`, context the model sees, never graded) and the
 * scripted replies a user sends when the assistant ends a turn without acting (`followUps:`). The case's own prompt is
 * user turn 1; each follow-up sent is the next turn.
 */

/** One earlier turn: the user's words or the assistant's, text only. */
export const historyTurnSchema = z.union([z.object({ user: z.string() }).strict(), z.object({ assistant: z.string() }).strict()]);
export type HistoryTurn = z.output<typeof historyTurnSchema>;

export const historySchema = z
  .array(historyTurnSchema)
  .min(1, 'history holds no turns — add `- user: …` and `- assistant: …`, or remove it');
export const followUpsSchema = z.array(z.string()).min(1, 'followUps holds no reply — add one, or remove it');

/** An earlier turn as the adapters write it. */
export interface EarlierTurn {
  role: 'user' | 'assistant';
  text: string;
}

export const earlierTurns = (history: readonly HistoryTurn[] | undefined): EarlierTurn[] =>
  (history ?? []).map((t) => ('user' in t ? { role: 'user', text: t.user } : { role: 'assistant', text: t.assistant }));

/** The user turns a case's conversation can have: its prompt and each follow-up. */
const userTurnsOf = (c: { followUps?: readonly string[] }): number => 1 + (c.followUps?.length ?? 0);

/** What a case's conversation is, hashed: a changed history or follow-up is a changed case. */
export const conversationHash = (c: { history?: readonly HistoryTurn[]; followUps?: readonly string[] }): string | undefined =>
  c.history || c.followUps ? valueHash({ history: c.history ?? [], followUps: c.followUps ?? [] }) : undefined;

type Problem = (path: (string | number)[], what: string, todo: string) => InputProblem;

/**
 * What is wrong with a case's conversation, at the path of the field at fault (relative to the case): turns out of
 * order (history starts with the user, alternates, and ends with the assistant, so the case's prompt is the user's
 * next turn), empty text, more user turns than `maxTurns` allows, and a `by` beyond the turns the case can have.
 */
export function conversationProblems(
  c: { id: string; history?: readonly HistoryTurn[]; followUps?: readonly string[]; expect: { skill: string; by?: number } },
  negative: boolean,
  maxTurns: number | undefined,
  problem: Problem,
): InputProblem[] {
  const out: InputProblem[] = [];
  const turns = earlierTurns(c.history);
  // One turn out of order puts every later one out too: the first is the one to name.
  const outOfOrder = turns.findIndex((t, j) => t.role !== (j % 2 === 0 ? 'user' : 'assistant'));
  if (outOfOrder >= 0) {
    const [t, want] = [turns[outOfOrder]!, outOfOrder % 2 === 0 ? 'user' : 'assistant'];
    out.push(
      problem(
        ['history', outOfOrder],
        `case "${c.id}": history turn ${outOfOrder + 1} is the ${t.role}'s, but turns alternate starting with the user`,
        `make it \`${want}: …\`, or reorder the turns`,
      ),
    );
  } else if (turns.length > 0 && turns.at(-1)!.role !== 'assistant')
    out.push(
      problem(
        ['history', turns.length - 1],
        `case "${c.id}": history ends with the user's turn, but the case's prompt is the user's next turn`,
        'end the history with `assistant: …`',
      ),
    );
  turns.forEach((t, j) => {
    if (t.text.trim() === '')
      out.push(
        problem(['history', j, t.role], `case "${c.id}": history turn ${j + 1} is empty`, 'write what was said, or remove the turn'),
      );
  });
  c.followUps?.forEach((f, j) => {
    if (f.trim() === '')
      out.push(problem(['followUps', j], `case "${c.id}": follow-up ${j + 1} is empty`, 'write the reply a user would send, or remove it'));
    else if (f.includes('\0')) out.push(problem(['followUps', j], `case "${c.id}": follow-up ${j + 1} holds a NUL character`, 'remove it'));
  });
  const userTurns = userTurnsOf(c);
  if (maxTurns !== undefined && userTurns > maxTurns)
    out.push(
      problem(
        ['followUps'],
        `case "${c.id}" can take ${userTurns} user turns (its prompt and ${userTurns - 1} follow-ups), above maxTurns (${maxTurns})`,
        `drop follow-ups to at most ${maxTurns - 1}, or raise maxTurns in skillprobe.config.yaml`,
      ),
    );
  const by = c.expect.by;
  if (by !== undefined && negative)
    out.push(problem(['expect', 'by'], `case "${c.id}" is negative, so no turn is one its skill must fire by`, 'remove `by`'));
  else if (by !== undefined && by > userTurns)
    out.push(
      problem(
        ['expect', 'by'],
        `case "${c.id}": \`by: ${by}\` is past its last user turn (${userTurns}: its prompt${userTurns > 1 ? ` and ${userTurns - 1} follow-ups` : ''})`,
        by > 1 ? `add follow-ups up to turn ${by}, or lower \`by\` to at most ${userTurns}` : `lower \`by\` to at most ${userTurns}`,
      ),
    );
  return out;
}
