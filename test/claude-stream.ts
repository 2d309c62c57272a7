import { parseClaudeStream } from '../src/agents/claude-code/parse.js';
import type { InitEvent } from '../src/transcript/types.js';

/**
 * Builds Claude Code stream-JSON transcripts by hand, in the exact shapes the pinned CLI prints headless,
 * so grader tests exercise the real parser as well.
 */
export class ClaudeStream {
  private lines: unknown[] = [];
  private msg = 0;
  private tool = 0;

  constructor(
    readonly cwd = '/ws',
    skills: string[] = ['atl', 'atl-jira', 'atl-confluence'],
    tools: string[] = ['Glob', 'Grep', 'Read', 'Skill'],
  ) {
    this.lines.push({
      type: 'system',
      subtype: 'init',
      cwd,
      tools,
      model: 'claude-test',
      claude_code_version: '2.1.197',
      skills,
      slash_commands: [...skills, 'clear'],
    });
  }

  private assistant(content: unknown[], extra: Record<string, unknown> = {}, model = 'claude-test'): this {
    const id = `msg_${++this.msg}`;
    for (const block of content) {
      this.lines.push({
        type: 'assistant',
        message: { id, role: 'assistant', model, content: [block], stop_reason: null },
        parent_tool_use_id: null,
        ...extra,
      });
    }
    return this;
  }

  private user(content: unknown[], extra: Record<string, unknown> = {}): this {
    this.lines.push({ type: 'user', message: { role: 'user', content }, parent_tool_use_id: null, ...extra });
    return this;
  }

  /**
   * A user turn of a conversation, as the CLI echoes it (`--replay-user-messages`): the first where the stream starts,
   * a later one after the init line that starts it.
   */
  userTurn(text: string): this {
    if (this.lines.some((l) => (l as { isReplay?: boolean }).isReplay)) this.lines.push({ ...(this.lines[0] as object) });
    return this.user([{ type: 'text', text }], { isReplay: true });
  }

  text(...texts: string[]): this {
    return this.assistant(texts.map((text) => ({ type: 'text', text })));
  }

  /** A tool call and the CLI's answer to it (a refusal is an error result). */
  answeredCall(name: string, input: Record<string, unknown>, answer: string, isError = true): this {
    const id = `toolu_${++this.tool}`;
    this.assistant([{ type: 'tool_use', id, name, input }]);
    return this.user([{ type: 'tool_result', tool_use_id: id, content: answer, is_error: isError }]);
  }

  /** A tool call the CLI has not answered yet (its tool still running when the stream ends). */
  toolCall(name: string, input: Record<string, unknown>): this {
    return this.assistant([{ type: 'tool_use', id: `toolu_${++this.tool}`, name, input }]);
  }

  /** A skill call and what the CLI did with it. */
  skill(
    name: string,
    args?: string,
    how: { status?: 'loaded' | 'denied' | 'unknown' | 'invalid'; body?: string; path?: string } = {},
  ): this {
    const id = `toolu_${++this.tool}`;
    this.assistant([{ type: 'tool_use', id, name: 'Skill', input: args === undefined ? { skill: name } : { skill: name, args } }]);
    return this.skillResult(id, name, how);
  }

  private skillResult(
    id: string,
    name: string,
    how: { status?: 'loaded' | 'denied' | 'unknown' | 'invalid'; body?: string; path?: string },
  ): this {
    const status = how.status ?? 'loaded';
    if (status === 'loaded') {
      this.user([{ type: 'tool_result', tool_use_id: id, content: `Launching skill: ${name}` }], {
        tool_use_result: { success: true, commandName: name },
      });
      const dir = how.path ?? `${this.cwd}/.claude/skills/${name.replace(/^\//, '').trim()}`;
      return this.user([{ type: 'text', text: `Base directory for this skill: ${dir}\n\n${how.body ?? '# body'}` }], { isSynthetic: true });
    }
    const content = {
      denied: `Execute skill: ${name}`,
      unknown: `<tool_use_error>Unknown skill: ${name}</tool_use_error>`,
      invalid: `<tool_use_error>Skill ${name} cannot be used with Skill tool due to disable-model-invocation</tool_use_error>`,
    }[status];
    return this.user([{ type: 'tool_result', tool_use_id: id, content, is_error: true }]);
  }

  /** A Read and its result: the file's lines, or (`error`) the CLI's error for a file it could not read. */
  read(
    path: string,
    result: string | { error: string } = '1\t---\n2\tname: x\n3\t---\n4\t```bash\n5\tatl jira create-issue --project OPS\n6\t```',
  ): this {
    const id = `toolu_${++this.tool}`;
    this.assistant([{ type: 'tool_use', id, name: 'Read', input: { file_path: path } }]);
    const content =
      typeof result === 'string' ? { content: result } : { content: `<tool_use_error>${result.error}</tool_use_error>`, is_error: true };
    return this.user([{ type: 'tool_result', tool_use_id: id, ...content }]);
  }

  /** One assistant message with several blocks, results in the CLI's stream order (parallel calls). */
  parallelSkillAndRead(skill: string, args: string, path: string, text = 'Let me look.'): this {
    const sid = `toolu_${++this.tool}`;
    const rid = `toolu_${++this.tool}`;
    this.assistant([
      { type: 'text', text },
      { type: 'tool_use', id: sid, name: 'Skill', input: { skill, args } },
    ]);
    this.skillResult(sid, skill, {});
    this.assistant([{ type: 'tool_use', id: rid, name: 'Read', input: { file_path: path } }]);
    return this.user([{ type: 'tool_result', tool_use_id: rid, content: '1\t---' }]);
  }

  apiError(status: number, text = `API Error: Request rejected (${status}) · overloaded`): this {
    const tag = status === 429 ? 'rate_limit' : status === 401 ? 'authentication_failed' : status >= 500 ? 'server_error' : 'unknown';
    return this.assistant([{ type: 'text', text }], { error: tag }, '<synthetic>');
  }

  retry(status: number): this {
    this.lines.push({
      type: 'system',
      subtype: 'api_retry',
      attempt: 1,
      max_retries: 2,
      retry_delay_ms: 0,
      error_status: status,
      error: 'rate_limit',
    });
    return this;
  }

  result(r: { subtype?: string; is_error?: boolean; result?: string; api_error_status?: number; errors?: string[] } = {}): this {
    this.lines.push({
      type: 'result',
      subtype: r.subtype ?? 'success',
      is_error: r.is_error ?? false,
      num_turns: 3,
      result: r.result ?? '',
      api_error_status: r.api_error_status ?? null,
      ...(r.errors ? { errors: r.errors } : {}),
    });
    return this;
  }

  raw(): string {
    return this.lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
  }
}

/** The init event of a stored Claude Code transcript: the skills and tools the CLI says it offered. */
export const claudeInitOf = (raw: string): InitEvent => parseClaudeStream(raw).events.find((e): e is InitEvent => e.kind === 'init')!;
