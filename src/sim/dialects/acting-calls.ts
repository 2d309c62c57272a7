/**
 * What a simulated model does by itself instead of using a skill, wire-neutral: each dialect renders it as the tool
 * call its CLI offered for it (`openai-responses-acting.ts`, `gemini-acting.ts`), or not at all when none was offered.
 */

/** Run a command, write a file, fetch a URL, hand the task to a sub-agent. */
export const ACTS = ['shell', 'write', 'fetch', 'agent'] as const;
export type Act = (typeof ACTS)[number];

export interface ActingCall {
  act: Act;
  /** What it acts on: the command run, the file written, the URL fetched, the task handed over. */
  target: string;
  /** What a write writes. */
  content?: string;
}
