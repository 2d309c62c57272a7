/**
 * What a simulated model does by itself instead of using a skill, wire-neutral: each dialect renders it as the tool
 * call its CLI offered for it (`openai-responses-acting.ts`, `gemini-acting.ts`), or not at all when none was offered.
 */

import type { ActKind } from '../conversation.js';

/**
 * Where an acting call would leave its mark: a file in the workspace and a loopback URL nothing listens on. A field
 * trial refuses each call before it runs, so neither ever appears or is fetched.
 */
export const CANARY_FILE = 'skillprobe-canary.txt';
export const CANARY_URL = 'http://127.0.0.1:9/skillprobe-canary';

export interface ActingCall {
  act: ActKind;
  /** What it acts on: the command run, the file written, the URL fetched, the task handed over. */
  target: string;
  /** What a write writes. */
  content?: string;
}

/**
 * The acting call a simulated model makes for each kind of act, on every wire: it leaves its mark where Claude Code's
 * does (the canary file, the loopback canary URL), so a field trial that let one run shows it.
 */
export const CANARY_CALL: Record<ActKind, ActingCall> = {
  shell: { act: 'shell', target: `touch ${CANARY_FILE}` },
  write: { act: 'write', target: CANARY_FILE, content: 'written by the model itself\n' },
  fetch: { act: 'fetch', target: CANARY_URL },
  agent: { act: 'agent', target: `Do the task directly: run touch ${CANARY_FILE}` },
};
