import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EarlierTurn } from '../../load/conversation.js';
import type { TrialEvidence } from '../../run/schema.js';
import { isPlainObject } from '../../util/json.js';
import { readJsonLines, str } from '../json-lines.js';
import { seededAt } from '../session-id.js';

/**
 * A case's history as a Gemini CLI session the trial loads (`--session-file`): the CLI imports the seeded turns into a
 * chat record of its own under `$HOME/.gemini/tmp/<project>/chats/`, sends them as the request's earlier contents and
 * appends each new turn after them (docs/cli-facts.md). That record is the evidence the first request held them.
 */

/** Where the evidence came from, as reports name it. */
const CHAT_RECORD = 'Gemini CLI chat record';

/** The seeded file: outside the workspace, where the model cannot read it. */
export const historyFile = (harnessDir: string): string => join(harnessDir, 'history.jsonl');

const turnId = (i: number) => `skillprobe-history-${i}`;

/** The session file's lines for `history`, as the pinned CLI writes its chat records. */
export function seededChat(history: readonly EarlierTurn[]): string {
  const head = {
    sessionId: 'skillprobe-history',
    projectHash: 'skillprobe',
    startTime: seededAt(0),
    lastUpdated: seededAt(history.length),
    kind: 'main',
  };
  const turns = history.map((t, i) => ({
    id: turnId(i),
    timestamp: seededAt(i),
    type: t.role === 'user' ? 'user' : 'gemini',
    content: t.role === 'user' ? [{ text: t.text }] : t.text,
  }));
  return [head, ...turns].map((l) => JSON.stringify(l)).join('\n') + '\n';
}

/**
 * Whether a chat record shows the trial's first user turn sent after the seeded history: the record imported the
 * seeded file (`Imported session from <file>`), and the conversation it held when the first new user turn came in
 * (its last `$set.messages`) ends with the history's turns, in order. Undefined for a record of another session. Pure.
 */
export function historyHeldIn(
  record: string,
  history: readonly EarlierTurn[],
  seeded: string,
): NonNullable<TrialEvidence['history']> | undefined {
  const ids = history.map((_, i) => turnId(i));
  let imported = false;
  let messages: string[] = [];
  let held: boolean | undefined;
  readJsonLines(record, (e) => {
    if (held !== undefined) return;
    if (e.type === 'info' && str(e.content) === `Imported session from ${seeded}`) imported = true;
    const set = isPlainObject(e.$set) && Array.isArray(e.$set.messages) ? e.$set.messages : undefined;
    if (set) messages = set.filter(isPlainObject).map((m) => str(m.id) ?? '');
    else if (imported && e.type === 'user' && !ids.includes(str(e.id) ?? ''))
      held = messages.slice(-ids.length).join('\n') === ids.join('\n');
  });
  if (!imported) return undefined;
  if (held === undefined) return { source: CHAT_RECORD, held: false, detail: 'no user turn was recorded after the seeded history' };
  return held
    ? { source: CHAT_RECORD, held }
    : { source: CHAT_RECORD, held, detail: 'the conversation before the first user turn was not the history' };
}

/** What the trial's chat records say of its history: the one that imported the seeded file. */
export async function historyEvidence(
  home: string,
  history: readonly EarlierTurn[],
  seeded: string,
): Promise<NonNullable<TrialEvidence['history']>> {
  const projects = join(home, '.gemini', 'tmp');
  const folders = await readdir(projects).catch(() => [] as string[]);
  for (const folder of folders) {
    const chats = join(projects, folder, 'chats');
    for (const name of await readdir(chats).catch(() => [] as string[])) {
      const found = historyHeldIn(await readFile(join(chats, name), 'utf8').catch(() => ''), history, seeded);
      if (found) return found;
    }
  }
  return { source: CHAT_RECORD, held: false, detail: 'no chat record imported the seeded history' };
}
