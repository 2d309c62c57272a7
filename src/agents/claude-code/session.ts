import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { EarlierTurn } from '../../load/conversation.js';
import type { TrialEvidence } from '../../run/schema.js';
import { readJsonLines, str } from '../json-lines.js';
import { seededAt, uuidOf } from '../session-id.js';

/**
 * A case's history as a Claude Code session the trial resumes (`--resume <id>`): the CLI loads the seeded turns from
 * `$HOME/.claude/projects/<folder>/<id>.jsonl` and sends them as the request's earlier messages (docs/cli-facts.md).
 * It then appends each new turn to the same file, linked to the one before by `parentUuid`: the record that the first
 * request it answered was built on the seeded turns.
 */

/** Where the evidence came from, as reports name it. */
export const SESSION_RECORD = 'Claude Code session record';

/** The session a trial in `workspace` resumes (the session and its turns are named by the trial's workspace). */
export const sessionIdFor = (workspace: string): string => uuidOf('session', workspace);

const turnId = (session: string, index: number) => uuidOf(session, String(index));

/** The folder Claude Code keeps a working folder's sessions in: its real path with every other character a `-`. */
export const sessionFile = (home: string, workspace: string): string =>
  join(home, '.claude', 'projects', realpathSync(workspace).replace(/[^a-zA-Z0-9]/g, '-'), `${sessionIdFor(workspace)}.jsonl`);

/** The session file's lines for `history`, as the pinned CLI writes its own (each linked to the one before). */
export function seededSession(history: readonly EarlierTurn[], workspace: string): string {
  const session = sessionIdFor(workspace);
  const cwd = realpathSync(workspace);
  return history
    .map((t, i) => {
      const message =
        t.role === 'user'
          ? { role: 'user', content: t.text }
          : {
              id: `msg_history_${i}`,
              type: 'message',
              role: 'assistant',
              model: 'history',
              content: [{ type: 'text', text: t.text }],
              stop_reason: 'end_turn',
              stop_sequence: null,
              usage: { input_tokens: 0, output_tokens: 0 },
            };
      return JSON.stringify({
        parentUuid: i === 0 ? null : turnId(session, i - 1),
        isSidechain: false,
        userType: 'external',
        cwd,
        sessionId: session,
        version: 'skillprobe',
        type: t.role,
        message,
        uuid: turnId(session, i),
        timestamp: seededAt(i),
      });
    })
    .join('\n')
    .concat('\n');
}

/**
 * Whether the session record shows the trial's first user turn sent on top of the seeded history: the first user
 * entry after the seeded ones must name the history's last turn as its parent. Pure: the file's text in.
 */
export function historyHeld(record: string, history: readonly EarlierTurn[], workspace: string): NonNullable<TrialEvidence['history']> {
  const session = sessionIdFor(workspace);
  const tip = turnId(session, history.length - 1);
  const seeded = new Set(history.map((_, i) => turnId(session, i)));
  let parent: string | null | undefined;
  readJsonLines(record, (e) => {
    if (parent !== undefined || e.type !== 'user' || seeded.has(str(e.uuid) ?? '')) return;
    parent = e.parentUuid === null ? null : (str(e.parentUuid) ?? null);
  });
  if (parent === undefined) return { source: SESSION_RECORD, held: false, detail: 'no user turn was recorded after the seeded history' };
  return parent === tip
    ? { source: SESSION_RECORD, held: true }
    : { source: SESSION_RECORD, held: false, detail: `the first user turn followed ${parent ?? 'nothing'}, not the history's last turn` };
}
