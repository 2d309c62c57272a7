import type { Transcript } from '../transcript/types.js';

/**
 * How many model requests a trial's transcript shows: each answer of the model is its text and tool calls, up to the
 * tool results, skill loads or user turn the CLI sends back before asking again. Blocks of one message id are one
 * answer even where a CLI streams a result between them (parallel calls). A CLI that runs calls of one answer one
 * after the other with ids of their own (Codex) is counted once per call: an upper bound there. Pure.
 */
export function modelRequests(t: Pick<Transcript, 'events'>): number {
  let requests = 0;
  let answerOpen = false;
  let lastMessage: string | undefined;
  for (const e of t.events) {
    if (e.kind === 'tool_result' || e.kind === 'skill_load' || e.kind === 'user_turn') answerOpen = false;
    if ((e.kind !== 'text' && e.kind !== 'tool_call') || e.source !== 'assistant') continue;
    const sameMessage = e.messageId !== undefined && e.messageId === lastMessage;
    if (!answerOpen && !sameMessage) requests++;
    answerOpen = true;
    lastMessage = e.messageId;
  }
  return requests;
}
