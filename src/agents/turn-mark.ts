import type { UserTurnEvent } from '../transcript/types.js';
import { num, str, type Json } from './json-lines.js';

/**
 * The line the harness writes into a trial's raw transcript before each process of a conversation whose follow-ups
 * are resumed processes (`ResumedFollowUps`): the processes' streams are kept byte for byte between these lines, and
 * the parser reads each as where a user turn starts (each process numbers its items afresh from there).
 */
const TURN_MARK = 'skillprobe.user_turn';

/** The mark of user turn `turn` (1 for the case's prompt), whose words are `text`, as one line. */
export const turnMarkLine = (turn: number, text: string): string => `${JSON.stringify({ type: TURN_MARK, turn, text })}\n`;

/** The user turn a line of the raw transcript marks, or undefined when it is the CLI's own. */
export function userTurnMark(ev: Json): UserTurnEvent | undefined {
  const turn = num(ev.turn);
  if (ev.type !== TURN_MARK || turn === undefined) return undefined;
  return { kind: 'user_turn', source: 'harness', turn, text: str(ev.text) ?? '' };
}

/** What a turn's item ids are prefixed with, so that each process's afresh numbering stays apart (`2/item_0`). */
export const turnIdPrefix = (mark: UserTurnEvent): string => (mark.turn > 1 ? `${mark.turn}/` : '');
