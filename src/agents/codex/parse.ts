import { shownBlock } from '../../util/shown-text.js';
import type { TrialMeta } from '../../run/schema.js';
import {
  MCP_CONNECTED,
  type ErrorEvent,
  type ErrorKind,
  type InitEvent,
  type SkillLoadEvent,
  type TokenUsage,
  type ToolCallEvent,
  type Transcript,
  type TranscriptEvent,
} from '../../transcript/types.js';
import { firstValueOf, num, pushOther, readJsonLines, str, type Json, type TranscriptLines } from '../json-lines.js';
import { isPlainObject } from '../../util/json.js';
import { bundledSkillOf } from './bundled.js';
import { listedMcpTools } from '../mcp-listing.js';
import { turnIdPrefix, userTurnMark } from '../turn-mark.js';
import { codexMcpName } from './mcp-names.js';

/**
 * Codex CLI `exec --json` events → canonical transcript. Codex has no skill tool: a model uses a skill by reading
 * its SKILL.md with a shell command, so that read is the skill call here, proven by the per-trial secret planted in
 * the file appearing in the command's output (naming the path, or listing the folder, proves nothing).
 */

export const SHELL_TOOL = 'exec_command';
/** Where Codex lists skills from, in every folder from the git root down to its working directory. */
export const SKILLS_FOLDER = '.agents/skills';
const SKILLS_PATH = `${SKILLS_FOLDER}/`;

/** A SKILL.md path a command names: its folder is the skill asked for. */
const SKILL_MD = /([^\s'"`;|&<>()]*?)([^\s'"`;|&<>()/]+)\/SKILL\.md\b/g;

/** The skill folders whose secret is in `output`, in the order they appear. */
export function membersRead(output: string, nonces: Readonly<Record<string, string>>): string[] {
  return Object.entries(nonces)
    .map(([dir, nonce]) => [dir, output.indexOf(nonce)] as const)
    .filter(([, at]) => at >= 0)
    .sort((a, b) => a[1] - b[1])
    .map(([dir]) => dir);
}

/** The folders of the SKILL.md files a command names, each once. */
export function skillFoldersNamed(command: string): string[] {
  return [...new Set([...command.matchAll(SKILL_MD)].map((m) => m[2]!))];
}

/** The first of Codex's bundled skills whose SKILL.md a command names, if any. */
function bundledSkillNamed(command: string): string | undefined {
  return [...command.matchAll(SKILL_MD)].map((m) => bundledSkillOf(m[0])).find((name) => name !== undefined);
}

/** The status a Codex error message reports (`last status: 429`, `unexpected status 401`), if any. */
function statusIn(message: string): number | undefined {
  const m = /\bstatus:? (\d{3})\b/i.exec(message);
  return m ? Number(m[1]) : undefined;
}

export function errorKindOf(message: string, status: number | undefined): ErrorKind {
  if (status === 429) return 'rate_limit';
  if (status === 401 || status === 403) return 'authentication_failed';
  if (status === 404) return 'model_not_found';
  if (status !== undefined && status >= 500) return 'server_error';
  // Codex's own words for a 5xx it retried, a cut stream, and a stream that went quiet.
  if (/high demand|temporary errors/i.test(message)) return 'server_error';
  if (/idle timeout/i.test(message)) return 'timeout';
  if (/stream disconnected|transport error|error sending request|connection refused|network/i.test(message)) return 'connection';
  return 'unknown';
}

function errorEvent(message: string, retrying: boolean): ErrorEvent {
  const httpStatus = statusIn(message);
  return { kind: 'error', source: 'system', errorKind: errorKindOf(message, httpStatus), httpStatus, message, retrying };
}

/** Where a read skill's folder is, for plan canonicalisation: from the command, else under the session's cwd. */
function skillDir(command: string, dir: string, cwd: string | undefined): string | undefined {
  const m = new RegExp(`(/[^\\s'"\`;|&<>()]*/${SKILLS_PATH.replace(/[.]/g, '\\.')}${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')})/`).exec(
    command,
  );
  if (m) return m[1];
  return cwd ? `${cwd.replace(/\/$/, '')}/${SKILLS_PATH}${dir}` : undefined;
}

/**
 * A turn's `usage` (summed over its model calls): `input_tokens` is all input, `cached_input_tokens` its cached part,
 * and `cache_write_input_tokens`, when the CLI sends it, what went to the cache.
 */
function usageOf(u: unknown): TokenUsage | undefined {
  if (!isPlainObject(u)) return undefined;
  const [input, cached, write, output] = [
    num(u.input_tokens),
    num(u.cached_input_tokens),
    num(u.cache_write_input_tokens),
    num(u.output_tokens),
  ];
  if (input === undefined && output === undefined) return undefined;
  return {
    inputTokens: input ?? 0,
    cachedInputTokens: cached ?? 0,
    ...(write !== undefined ? { cacheWriteTokens: write } : {}),
    outputTokens: output ?? 0,
  };
}

/** Two turns' usage, added. */
function addUsage(a: TokenUsage | undefined, b: TokenUsage | undefined): TokenUsage | undefined {
  if (!a || !b) return a ?? b;
  const write =
    a.cacheWriteTokens !== undefined || b.cacheWriteTokens !== undefined
      ? (a.cacheWriteTokens ?? 0) + (b.cacheWriteTokens ?? 0)
      : undefined;
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    ...(write !== undefined ? { cacheWriteTokens: write } : {}),
    outputTokens: a.outputTokens + b.outputTokens,
  };
}

export function parseCodexStream(raw: TranscriptLines, trial?: Pick<TrialMeta, 'evidence' | 'exitCode'>): Transcript {
  const events: TranscriptEvent[] = [];
  const nonces = trial?.evidence?.skillNonces ?? {};
  const shown = trial?.evidence?.shown;
  const members = new Set(Object.keys(nonces));
  /** Tool calls started and not yet completed, by item id. */
  const open = new Map<string, ToolCallEvent>();
  let turns = 0;
  /** The session's usage so far: each turn reports its own, and each result carries the sum, as `turns` counts. */
  let usage: TokenUsage | undefined;
  /** Each process of a conversation numbers its items from `item_0`: a later user turn's ids carry its number. */
  let idPrefix = '';
  const itemId = (item: Json) => idPrefix + (str(item.id) ?? '');

  const commandCall = (id: string, command: string): ToolCallEvent => ({
    kind: 'tool_call',
    source: 'assistant',
    id,
    name: SHELL_TOOL,
    input: { command },
    intent: 'other',
  });

  const completeCommand = (item: Json) => {
    const id = itemId(item);
    const command = str(item.command) ?? '';
    const output = str(item.aggregated_output) ?? '';
    const exitCode = num(item.exit_code);
    const call = open.get(id) ?? commandCall(id, command);
    if (!open.has(id)) events.push(call);
    open.delete(id);
    events.push({ kind: 'tool_result', source: 'tool', id, isError: exitCode !== 0, ...shownBlock(output) });
    const read = membersRead(output, nonces);
    if (read.length) {
      read.forEach((dir, i) => {
        // One command can read several SKILL.md files: each is its own skill call.
        const c = i === 0 ? call : commandCall(`${id}/${dir}`, command);
        Object.assign(c, { intent: 'skill', skill: dir });
        if (i > 0) events.push(c);
        const load: SkillLoadEvent = { kind: 'skill_load', source: 'harness', callId: c.id, name: dir, status: 'loaded' };
        const path = skillDir(command, dir, shown?.cwd);
        if (path) load.path = path;
        events.push(load);
      });
      return;
    }
    // A read of one of Codex's own bundled skills (a field trial lists them; a lab trial has no such file): the
    // model chose that skill, one the suite did not install.
    const bundled = exitCode === 0 ? bundledSkillNamed(command) : undefined;
    if (bundled !== undefined) {
      Object.assign(call, { intent: 'skill', skill: bundled });
      events.push({ kind: 'skill_load', source: 'harness', callId: call.id, name: bundled, status: 'loaded' });
      return;
    }
    // A failed read of a SKILL.md is still the model choosing that skill, as a refused skill call is for a CLI with
    // a skill tool: a family member's it could not open (denied), or one outside the family, not there (unknown).
    const asked = exitCode !== 0 ? skillFoldersNamed(command)[0] : undefined;
    if (asked !== undefined) {
      Object.assign(call, { intent: 'skill', skill: asked });
      events.push({
        kind: 'skill_load',
        source: 'harness',
        callId: call.id,
        name: asked,
        status: members.has(asked) ? 'denied' : 'unknown',
        detail: output.trim().slice(0, 500),
      });
    }
  };

  /** An MCP tool's call (started, then completed with its result or error), as the call and, once done, its result. */
  const mcpToolCall = (item: Json, done: boolean) => {
    const id = itemId(item);
    let call = open.get(id);
    if (!call) {
      const mcp = { server: str(item.server) ?? '', tool: str(item.tool) ?? '' };
      const input = isPlainObject(item.arguments) ? item.arguments : {};
      call = { kind: 'tool_call', source: 'assistant', id, name: codexMcpName(mcp), input, intent: 'mcp', mcp };
      open.set(id, call);
      events.push(call);
    }
    if (!done) return;
    open.delete(id);
    const error = isPlainObject(item.error) ? str(item.error.message) : undefined;
    const content = isPlainObject(item.result) && Array.isArray(item.result.content) ? item.result.content : [];
    const text = error ?? content.flatMap((c) => (isPlainObject(c) && typeof c.text === 'string' ? [c.text] : [])).join('\n');
    events.push({ kind: 'tool_result', source: 'tool', id, isError: error !== undefined || item.status === 'failed', ...shownBlock(text) });
  };

  const warnings = readJsonLines(raw, (ev) => {
    const type = str(ev.type) ?? '';
    const item = isPlainObject(ev.item) ? ev.item : undefined;
    const itemType = str(item?.type);
    const mark = userTurnMark(ev);
    if (mark) {
      events.push(mark);
      idPrefix = turnIdPrefix(mark);
    } else if (type === 'thread.started' && events.some((e) => e.kind === 'init')) {
      // A later user turn's process resumes the same thread: what the model was shown is the first one's.
      pushOther(events, { source: 'system', type });
    } else if (type === 'thread.started') {
      const init: InitEvent = {
        kind: 'init',
        source: 'system',
        model: shown?.model ?? '',
        cliVersion: shown?.cliVersion ?? '',
        cwd: shown?.cwd ?? '',
        // The stream names no tool, and the request only the servers whose tools it defers (its session record says
        // which): their tools are those each listed when the CLI asked (their records). A record read before it named
        // the servers offered leaves every listed tool offered, as it was graded.
        tools: listedMcpTools(trial?.evidence?.mcp, codexMcpName, shown?.mcpServers),
        ...(shown?.mcpServers && { mcpServers: shown.mcpServers.map((name) => ({ name, status: MCP_CONNECTED })) }),
        skills: shown?.skills ?? [],
      };
      if (shown)
        Object.assign(init, {
          skillsFrom: shown.source,
          contextFiles: shown.contextFiles,
          ...(shown.sandbox ? { sandbox: shown.sandbox } : {}),
        });
      events.push(init);
    } else if (type === 'item.started' && item && itemType === 'command_execution') {
      const call = commandCall(itemId(item), str(item.command) ?? '');
      open.set(call.id, call);
      events.push(call);
    } else if (type === 'item.completed' && item && itemType === 'command_execution') {
      completeCommand(item);
    } else if ((type === 'item.started' || type === 'item.completed') && item && itemType === 'mcp_tool_call') {
      mcpToolCall(item, type === 'item.completed');
    } else if (type === 'item.completed' && item && itemType === 'agent_message') {
      events.push({
        kind: 'text',
        source: 'assistant',
        text: str(item.text) ?? '',
        messageId: str(item.id) === undefined ? undefined : itemId(item),
      });
    } else if (type === 'error') {
      // Top-level errors are Codex retrying ("Reconnecting... 2/5"), or the last one before `turn.failed`.
      const message = str(ev.message) ?? '';
      events.push(errorEvent(message, /^Reconnecting/i.test(message)));
    } else if (type === 'turn.completed' || type === 'turn.failed') {
      turns++;
      const failed = type === 'turn.failed';
      const message = failed && isPlainObject(ev.error) ? str(ev.error.message) : undefined;
      const last = [...events].reverse().find((e): e is ErrorEvent => e.kind === 'error');
      if (failed && message !== undefined && last?.message !== message) events.push(errorEvent(message, false));
      usage = addUsage(usage, usageOf(ev.usage));
      events.push({
        kind: 'result',
        source: 'system',
        status: failed ? 'api_error' : 'success',
        turns,
        ...(usage ? { usage } : {}),
        ...(message !== undefined ? { message, httpStatus: statusIn(message) } : {}),
      });
    } else {
      // Non-fatal notices (`item.completed` of type error: unknown model metadata, deprecations), reasoning, turn starts.
      pushOther(events, {
        source: itemType === 'reasoning' ? 'assistant' : 'system',
        type: itemType ? `${type}/${itemType}` : type || 'unknown',
      });
    }
  });
  return { agent: 'codex', events, warnings };
}

/** The thread a process's stream says it ran (its `thread.started`): what a later user turn resumes. */
export const threadStartedIn = (stdout: string): string | undefined => firstValueOf(stdout, 'thread.started', 'thread_id');
