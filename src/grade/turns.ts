import type { Transcript } from '../transcript/types.js';
import { readsSkillsFolder } from './skill-paths.js';

/**
 * The user turn each event of a transcript belongs to: the turn of the last `user_turn` marker before it, and turn 1
 * before any (a transcript of one user message has none). Pure.
 */
export function userTurnOfEvents(t: Pick<Transcript, 'events'>): number[] {
  let turn = 1;
  return t.events.map((e) => {
    if (e.kind === 'user_turn') turn = e.turn;
    return turn;
  });
}

/** Whether a trial was a conversation: its CLI marked where the user's turns start. */
export const isConversation = (t: Pick<Transcript, 'events'>): boolean => t.events.some((e) => e.kind === 'user_turn');

/**
 * Whether the assistant's last turn ended without acting, so a scripted user reply is due: it finished (a result,
 * neither an error nor a stop) with no skill fired (a skill call, or a read of an installed skill's files under
 * `skillsFolder`), no acting call and no MCP tool used (the trial is graded already): a question or a plain answer.
 */
export function followUpDue(turn: Pick<Transcript, 'events'>, skillsFolder: string): boolean {
  const result = turn.events.findLast((e) => e.kind === 'result');
  if (result?.kind !== 'result' || result.status !== 'success') return false;
  return !turn.events.some(
    (e) =>
      e.kind === 'tool_call' &&
      e.source === 'assistant' &&
      (e.intent === 'skill' ||
        e.intent === 'act' ||
        e.intent === 'mcp' ||
        (e.intent === 'read' && readsSkillsFolder(e.path ?? '', skillsFolder))),
  );
}
