import { readFile } from 'node:fs/promises';
import { glob } from 'tinyglobby';
import type { ShownEvidence, TrialEvidence } from '../../run/schema.js';
import { isPlainObject } from '../../util/json.js';
import { readJsonLines, str, type Json } from '../json-lines.js';
import { join } from 'node:path';
import type { EarlierTurn } from '../../load/conversation.js';
import { seededAt, uuidOf } from '../session-id.js';
import { deferredMcpServers } from './mcp-names.js';

/** Where the evidence came from, as reports name it. */
export const SESSION_SOURCE = 'Codex session record';

/** The names in Codex's skill listing (`### Available skills` then `- name: description (file: …)` lines). */
export function listedSkills(text: string): string[] {
  const at = text.indexOf('### Available skills');
  if (at < 0) return [];
  const names: string[] = [];
  for (const line of text.slice(at).split('\n').slice(1)) {
    if (line.startsWith('#') || line.startsWith('</')) break;
    const m = /^- ([^:\s][^:]*):/.exec(line);
    if (m) names.push(m[1]!.trim());
  }
  return names;
}

/**
 * `# AGENTS.md instructions for <dir>` then `<INSTRUCTIONS>`, a message of its own: an instruction file Codex put
 * into the model's context (anchored, so a user's prompt that merely has such a heading is not one).
 */
const CONTEXT_FILE = /^# (AGENTS(?:\.override)?\.md) instructions for ([^\n]+)\n\n<INSTRUCTIONS>/;

function texts(message: Json): string[] {
  const content = Array.isArray(message.content) ? message.content : [];
  return content.filter(isPlainObject).map((c) => str(c.text) ?? '');
}

/**
 * What a Codex session record (the rollout JSONL it writes under `$CODEX_HOME/sessions`) says the model was shown:
 * the skills listed, the instruction files injected, the sandbox its tools ran in, and the MCP servers whose tools its
 * first request offered where the record can say. It can when the request sent its tools as input (an
 * `additional_tools` item, code mode's shape, with a `<tools>` part naming the servers' deferred namespaces); with a
 * model outside Codex's catalog there is no code mode, the request sends its tools in its body (each server's tools a
 * namespace `mcp__<server>`), and nothing Codex writes names them (measured on 0.171.0). Pure: the file's text in.
 */
export function shownInSession(rollout: string): ShownEvidence {
  const shown: ShownEvidence = { source: SESSION_SOURCE, skills: [], contextFiles: [] };
  // The first request's items come before its turn's context: what a later turn offered is not what the model chose among.
  let firstTurn = true;
  let toolsAsInput = false;
  let deferred: string[] | undefined;
  // A line the reader cannot take is left out: what it would have shown stays unverified, which fails closed.
  readJsonLines(rollout, (entry) => {
    if (!isPlainObject(entry.payload)) return;
    const p = entry.payload;
    if (entry.type === 'session_meta') {
      shown.cwd = str(p.cwd);
      shown.cliVersion = str(p.cli_version);
    } else if (entry.type === 'turn_context') {
      firstTurn = false;
      shown.model = str(p.model);
      shown.sandbox = isPlainObject(p.sandbox_policy) ? str(p.sandbox_policy.type) : undefined;
    } else if (entry.type === 'response_item' && p.type === 'additional_tools') {
      toolsAsInput ||= firstTurn;
    } else if (entry.type === 'response_item' && p.type === 'message') {
      for (const text of texts(p)) {
        if (p.role === 'developer' && text.includes('<skills_instructions>')) shown.skills.push(...listedSkills(text));
        if (firstTurn && p.role === 'developer' && text.startsWith('<tools>')) deferred = deferredMcpServers(text);
        const context = p.role === 'user' ? CONTEXT_FILE.exec(text) : null;
        if (context) shown.contextFiles.push(`${context[1]} (${context[2]!.trim()})`);
      }
    }
  });
  if (toolsAsInput) shown.mcpServers = deferred ?? [];
  return shown;
}

/** The trial's session record's text, or undefined when Codex wrote none (it never started a turn) or more than one. */
export async function readSessionRecord(codexHome: string): Promise<string | undefined> {
  // A trial starts one session: its record is `sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`.
  const files = await glob(['sessions/**/rollout-*.jsonl'], { cwd: codexHome, absolute: true, dot: true });
  if (files.length !== 1) return undefined;
  return readFile(files[0]!, 'utf8').catch(() => undefined);
}

/** The thread a trial in `workspace` resumes when its case has a history. */
export const threadIdFor = (workspace: string): string => uuidOf('codex-thread', workspace);

/** Where the seeded thread is written under `$CODEX_HOME`: where Codex keeps its own, so `exec resume <id>` finds it. */
export const seededRolloutFile = (codexHome: string, workspace: string): string =>
  join(codexHome, 'sessions', '2000', '01', '01', `rollout-2000-01-01T00-00-00-${threadIdFor(workspace)}.jsonl`);

/**
 * A case's history as a Codex thread the trial resumes (`codex exec resume <id>`): its session record's first line and
 * the turns as the record's messages. Codex sends them as the request's earlier input and appends the new turn to
 * the same record (docs/cli-facts.md).
 */
export function seededRollout(history: readonly EarlierTurn[], workspace: string): string {
  const id = threadIdFor(workspace);
  const meta = {
    id,
    session_id: id,
    timestamp: seededAt(0),
    cwd: workspace,
    originator: 'codex_exec',
    cli_version: 'skillprobe',
    source: 'exec',
  };
  const lines = [
    { timestamp: seededAt(0), type: 'session_meta', payload: meta },
    ...history.map((t, i) => ({
      timestamp: seededAt(i + 1),
      type: 'response_item',
      payload: {
        type: 'message',
        role: t.role,
        content: [{ type: t.role === 'user' ? 'input_text' : 'output_text', text: t.text }],
      },
    })),
  ];
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

/**
 * Whether the session record shows the trial's prompt sent on the seeded thread: the record's first messages are the
 * history's turns, in order, and a message of the user's (beyond what Codex injects) follows them. Pure: the
 * record's text (the trial's only one) in, or undefined when there was not exactly one.
 */
export function historyHeldInRollout(rollout: string | undefined, history: readonly EarlierTurn[]): NonNullable<TrialEvidence['history']> {
  if (rollout === undefined) return { source: SESSION_SOURCE, held: false, detail: 'not exactly one session record' };
  const messages: { role: string; text: string }[] = [];
  readJsonLines(rollout, (e) => {
    const p = e.payload;
    if (e.type !== 'response_item' || !isPlainObject(p) || p.type !== 'message') return;
    messages.push({ role: str(p.role) ?? '', text: texts(p).join('\n') });
  });
  const seeded = history.every((t, i) => messages[i]?.role === t.role && messages[i]?.text === t.text);
  if (!seeded) return { source: SESSION_SOURCE, held: false, detail: 'the record does not start with the history' };
  const next = messages.slice(history.length).some((m) => m.role === 'user' && !INJECTED_USER.some((p) => m.text.startsWith(p)));
  return next
    ? { source: SESSION_SOURCE, held: true }
    : { source: SESSION_SOURCE, held: false, detail: 'no user turn was recorded after the history' };
}

/** How the messages Codex writes as the user's begin, beyond the user's own words. */
const INJECTED_USER = ['<environment_context>', '# AGENTS.md instructions', '<skill>'];
