import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { fieldFixture as fixture } from './field-fixtures.js';
import {
  codexFieldConfig,
  hookCommandLine,
  hookDecision,
  hookRecord,
  isActingCall,
  isSkillRead,
  withFieldFlags,
} from '../src/agents/codex/field.js';
import {
  hookRecords,
  isCodexFieldRefusal,
  ranInStream,
  sessionFieldProblem,
  unwrappedCommand,
} from '../src/agents/codex/field-evidence.js';
import { FIELD_REFUSAL } from '../src/agents/field-refusal.js';

const WS = '/ws';

describe('a skill read is the one shell command a Codex field trial lets run', () => {
  it.each([
    ['cat .agents/skills/demo/SKILL.md', true],
    ['cat /ws/.agents/skills/demo/SKILL.md', true],
    ["cat '/ws/.agents/skills/my skill/SKILL.md'", true],
    ['cat -n .agents/skills/a/SKILL.md .agents/skills/b/SKILL.md', true],
    ["sed -n '1,400p' /ws/.agents/skills/demo/SKILL.md", true],
    ['sed -n 1,200p .agents/skills/demo/SKILL.md', true],
    ['head -n 200 .agents/skills/demo/SKILL.md', true],
    ['nl -ba .agents/skills/demo/SKILL.md', true],
    ['tail -50 .agents/skills/demo/SKILL.md', true],
    // Not a reader, or a reader's option that does more than print.
    ['ls .agents/skills/demo/SKILL.md', false],
    ["sed '1,400p' .agents/skills/demo/SKILL.md", false],
    ["sed -n 'w /tmp/x' .agents/skills/demo/SKILL.md", false],
    ["sed -n '1e touch x' .agents/skills/demo/SKILL.md", false],
    ['sed -i -n 1p .agents/skills/demo/SKILL.md', false],
    ['head -n', false],
    ['python3 .agents/skills/demo/SKILL.md', false],
    // More than one plain command, or an expansion.
    ['cat .agents/skills/demo/SKILL.md; touch x', false],
    ['cat .agents/skills/demo/SKILL.md && touch x', false],
    ['cat .agents/skills/demo/SKILL.md > copy', false],
    ['cat .agents/skills/demo/SKILL.md | sh', false],
    ['cat $(touch x) .agents/skills/demo/SKILL.md', false],
    ['cat .agents/skills/*/SKILL.md', false],
    ['cat .agents/skills/demo/SKILL.md\ntouch x', false],
    // A file that is not a SKILL.md directly in a skill folder of the workspace.
    ['cat readable.txt', false],
    ['cat .agents/skills/demo/SKILL.md readable.txt', false],
    ['cat .agents/skills/demo/scripts/SKILL.md', false],
    ['cat .agents/skills/../../etc/SKILL.md', false],
    ['cat /elsewhere/.agents/skills/demo/SKILL.md', false],
    ['cat', false],
  ])('%s → %s', (command, read) => {
    expect(isSkillRead(command, WS)).toBe(read);
  });

  it('needs an absolute working folder to resolve against', () => {
    expect(isSkillRead('cat .agents/skills/demo/SKILL.md', 'ws')).toBe(false);
  });

  it('reads the command inside the stream’s shell wrapper, and leaves any other line as it is', () => {
    expect(unwrappedCommand(`/bin/bash -lc 'cat .agents/skills/demo/SKILL.md'`)).toBe('cat .agents/skills/demo/SKILL.md');
    expect(unwrappedCommand('ls -la')).toBe('ls -la');
  });
});

describe('the hook refuses every acting call and anything it cannot read', () => {
  const call = (tool_name: string, tool_input: object, cwd = WS) =>
    JSON.stringify({ hook_event_name: 'PreToolUse', tool_name, tool_input, cwd });
  it.each([
    [call('Bash', { command: 'touch canary' }), true],
    [call('Bash', { command: 'ls -la' }), true],
    [call('Bash', { command: 'curl -s http://127.0.0.1:9/x' }), true],
    [call('Bash', { command: 'cat .agents/skills/demo/SKILL.md' }), false],
    [call('Bash', { command: 'cat .agents/skills/demo/SKILL.md' }, ''), true],
    [call('Bash', {}), true],
    [call('apply_patch', { command: '*** Begin Patch\n*** Add File: x\n+y\n*** End Patch\n' }), true],
    [call('spawn_agent', { message: 'go' }), true],
    [call('write_stdin', { session_id: 1, chars: 'y' }), true],
    [call('a_tool_of_a_later_version', {}), true],
    [call('view_image', { path: 'chart.png' }), false],
    [call('request_user_input', {}), false],
    [call('create_goal', { objective: 'x' }), false],
    ['not json', true],
    [JSON.stringify({ tool_input: {} }), true],
    ['[]', true],
  ])('%s → refuse %s', (stdin, refuse) => {
    expect(hookDecision(stdin)).toEqual({ refuse });
  });

  it('classes a call the same way whether the hook or the evidence check asks', () => {
    expect(isActingCall({ tool: 'Bash', input: { command: 'ls' }, cwd: WS })).toBe(true);
    expect(isActingCall({ tool: 'view_image', input: {}, cwd: WS })).toBe(false);
  });
});

describe('the field config keeps the default menu and hooks every tool', () => {
  const req = { model: 'm', cliRetries: 0, deadlineMs: 60_000, callerEnv: {}, role: 'trial' as const };
  const config = parseToml(
    codexFieldConfig(req, hookCommandLine('/usr/bin/node', '/opt/sp/field hook.js', '/h/field-hook.jsonl')),
  ) as Record<string, any>;

  it('turns the hook on for every tool, with the command that runs it', () => {
    expect(config.features.hooks).toBe(true);
    expect(config.hooks.PreToolUse).toEqual([
      { matcher: '.*', hooks: [{ type: 'command', command: "/usr/bin/node '/opt/sp/field hook.js' /h/field-hook.jsonl", timeout: 30 }] },
    ]);
  });

  it('gives back sub-agents and goals, keeps the read-only sandbox, and leaves off what no hook can stop', () => {
    expect(config.agents).toBeUndefined();
    expect(config.features.goals).toBeUndefined();
    expect(config.sandbox_mode).toBe('read-only');
    expect(config.web_search).toBe('disabled');
    expect(config.features).toMatchObject({ apps: false, plugins: false, memories: false, shell_snapshot: false });
  });
});

describe("a Codex field trial's evidence, from recorded runs of the pinned CLI", () => {
  // As the adapter puts them together: what the stream shows ran (in the session's folder), else what the session
  // record shows went unrefused. Without a session record the lab's own check refuses the trial first (parse-codex).
  const fieldProblem = (stream: string, rollout: string) => {
    const session = sessionFieldProblem(rollout);
    return ranInStream(stream, session.cwd) ?? session.problem;
  };
  it.each([
    ['direct tools: every acting call refused, the skill read ran', 'codex-direct', undefined],
    ['code mode: every nested acting call refused, the skill read ran', 'codex-script', undefined],
    ['the lab lock (no hook): a read-only command ran', 'codex-lab', 'a command ran: ls -la'],
  ])('%s', (_, name, problem) => {
    expect(fieldProblem(fixture(`${name}-events.jsonl`), fixture(`${name}-rollout.jsonl`))).toBe(problem);
  });

  const rollout = fixture('codex-direct-rollout.jsonl');
  const events = fixture('codex-direct-events.jsonl');

  it('names an acting call answered with anything but the refusal', () => {
    const answered = rollout.replace(/Command blocked by PreToolUse hook: [^"]*Command: touch canary-exec/, 'Process exited with code 0');
    expect(fieldProblem(events, answered)).toBe('the acting call Bash was not refused: Process exited with code 0');
  });

  it('names a sub-agent, a patch or any other tool that ran, from the stream', () => {
    const spawned = '{"type":"item.started","item":{"id":"i","type":"collab_tool_call","tool":"spawn_agent"}}';
    expect(fieldProblem(`${events}\n${spawned}`, rollout)).toBe('a collab_tool_call ran');
  });

  it('a session record names the folder its commands ran in; without one there is none to read a skill read against', () => {
    expect(sessionFieldProblem(rollout).cwd).not.toBe('');
    expect(sessionFieldProblem('')).toEqual({ cwd: '' });
  });

  it('reads the refusal as Codex words it, for commands and for other tools', () => {
    expect(isCodexFieldRefusal(`Command blocked by PreToolUse hook: ${FIELD_REFUSAL}. Command: ls`)).toBe(true);
    expect(isCodexFieldRefusal(`Script error:\nTool call blocked by PreToolUse hook: ${FIELD_REFUSAL}. Tool: spawn_agent`)).toBe(true);
    expect(isCodexFieldRefusal('Command blocked by PreToolUse hook: some other hook. Command: ls')).toBe(false);
  });
});

describe("a field trial's MCP call in its server's namespace (a model outside Codex's catalog)", () => {
  /** A session record holding one call and its answer (Codex 0.171.0's shape, measured). */
  const rollout = (call: object, answer: string) =>
    [
      { type: 'session_meta', payload: { cwd: WS } },
      { type: 'response_item', payload: { type: 'function_call', call_id: 'c1', arguments: '{"project":"SEC"}', ...call } },
      { type: 'response_item', payload: { type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_text', text: answer }] } },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n');
  const refused = `Tool call blocked by PreToolUse hook: ${FIELD_REFUSAL}. Tool: mcp__jira__create_issue`;
  it.each<[string, object, string, string | undefined]>([
    // Whether it may run is the trial's servers' to say (`fieldMcpProblem`, from the stream), not the record's.
    ['an MCP tool, answered', { name: 'create_issue', namespace: 'mcp__jira' }, 'Created OPS-1234.', undefined],
    ['an MCP tool, refused', { name: 'create_issue', namespace: 'mcp__jira' }, refused, undefined],
    [
      'a sub-agent, in a namespace that is no server’s, answered: it acted',
      { name: 'spawn_agent', namespace: 'multi_agent_v1' },
      'spawned',
      'the acting call spawn_agent was not refused: spawned',
    ],
  ])('%s', (_, call, answer, problem) => {
    expect(sessionFieldProblem(rollout(call, answer))).toEqual({ cwd: WS, ...(problem ? { problem } : {}) });
  });
});

describe('a call of a tool Codex did not offer ran nothing', () => {
  it('is not an unrefused acting call (the recorded run called apply_patch, which the fallback metadata does not offer)', () => {
    const rollout = fixture('codex-direct-rollout.jsonl');
    expect(rollout).toContain('unsupported custom tool call: apply_patch');
    const events = fixture('codex-direct-events.jsonl');
    expect(ranInStream(events, sessionFieldProblem(rollout).cwd)).toBeUndefined();
    expect(sessionFieldProblem(rollout).problem).toBeUndefined();
    expect(sessionFieldProblem(rollout.replace('unsupported custom tool call: apply_patch', 'Done!')).problem).toBe(
      'the acting call apply_patch was not refused: Done!',
    );
  });
});

describe('the field argv', () => {
  it('adds the hook-trust flag before the end of the options, and at the end when there is none', () => {
    expect(withFieldFlags(['exec', '--json', '--', '-p'])).toEqual(['exec', '--json', '--dangerously-bypass-hook-trust', '--', '-p']);
    expect(withFieldFlags(['exec'])).toEqual(['exec', '--dangerously-bypass-hook-trust']);
  });
});

describe("the hook's log: every call, in order, with what the hook answered", () => {
  const stdin = (tool_name: string, tool_input: object) => JSON.stringify({ tool_name, tool_input, cwd: WS });

  it('records each call as the hook read it, and reads the records back in order', () => {
    const log =
      hookRecord(stdin('Bash', { command: 'cat .agents/skills/demo/SKILL.md' }), false) +
      hookRecord(stdin('Bash', { command: 'touch x' }), true) +
      hookRecord('not json', true);
    expect(hookRecords(log)).toEqual([
      { tool: 'Bash', input: { command: 'cat .agents/skills/demo/SKILL.md' }, refused: false },
      { tool: 'Bash', input: { command: 'touch x' }, refused: true },
      { tool: '', input: {}, refused: true },
    ]);
  });

  it.each([
    [
      'codex-direct',
      [
        'touch canary-exec',
        'ls -la',
        'SKILL READ',
        'curl -s http://127.0.0.1:18699/canary-fetch',
        'spawn_agent',
        'view_image (let through)',
      ],
    ],
    ['codex-script', ['touch canary-exec', 'ls -la', 'SKILL READ', 'apply_patch']],
  ])("%s: the recorded run's log holds each call in the order the model made it, code-mode nested calls included", (name, calls) => {
    const shown = hookRecords(fixture(`${name}-hook.jsonl`)).map((r) =>
      r.tool === 'Bash' ? (r.refused ? String(r.input.command) : 'SKILL READ') : r.refused ? r.tool : `${r.tool} (let through)`,
    );
    expect(shown).toEqual(calls);
  });

  it('leaves out a line a killed hook cut short', () => {
    expect(hookRecords('{"tool":"Bash","input":{},"refused":true}\n{"tool":"Ba')).toEqual([{ tool: 'Bash', input: {}, refused: true }]);
  });
});
