import { readFile } from 'node:fs/promises';
import { glob } from 'tinyglobby';
import type { ShownEvidence } from '../../run/schema.js';
import { isPlainObject } from '../../util/json.js';
import { readJsonLines, str, type Json } from '../json-lines.js';

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
 * the skills listed, the instruction files injected, the sandbox its tools ran in. Pure: the file's text in.
 */
export function shownInSession(rollout: string): ShownEvidence {
  const shown: ShownEvidence = { source: SESSION_SOURCE, skills: [], contextFiles: [] };
  // A line the reader cannot take is left out: what it would have shown stays unverified, which fails closed.
  readJsonLines(rollout, (entry) => {
    if (!isPlainObject(entry.payload)) return;
    const p = entry.payload;
    if (entry.type === 'session_meta') {
      shown.cwd = str(p.cwd);
      shown.cliVersion = str(p.cli_version);
    } else if (entry.type === 'turn_context') {
      shown.model = str(p.model);
      shown.sandbox = isPlainObject(p.sandbox_policy) ? str(p.sandbox_policy.type) : undefined;
    } else if (entry.type === 'response_item' && p.type === 'message') {
      for (const text of texts(p)) {
        if (p.role === 'developer' && text.includes('<skills_instructions>')) shown.skills.push(...listedSkills(text));
        const context = p.role === 'user' ? CONTEXT_FILE.exec(text) : null;
        if (context) shown.contextFiles.push(`${context[1]} (${context[2]!.trim()})`);
      }
    }
  });
  return shown;
}

/** The trial's session record's text, or undefined when Codex wrote none (it never started a turn) or more than one. */
export async function readSessionRecord(codexHome: string): Promise<string | undefined> {
  // A trial starts one session: its record is `sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`.
  const files = await glob(['sessions/**/rollout-*.jsonl'], { cwd: codexHome, absolute: true, dot: true });
  if (files.length !== 1) return undefined;
  return readFile(files[0]!, 'utf8').catch(() => undefined);
}
