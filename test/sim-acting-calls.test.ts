import { describe, expect, it } from 'vitest';
import { fieldFixture } from './field-fixtures.js';
import { hookDecision } from '../src/agents/codex/field.js';
import { FIELD_REFUSAL } from '../src/agents/field-refusal.js';
import { GEMINI_FIELD_REFUSAL } from '../src/agents/gemini/field.js';
import { GEMINI_ACTING_TOOLS } from '../src/agents/gemini/settings.js';
import { CANARY_FILE, CANARY_URL } from '../src/sim/dialects/acting-calls.js';
import { gemini } from '../src/sim/dialects/gemini.js';
import { geminiView } from '../src/sim/dialects/gemini-view.js';
import { openaiResponses } from '../src/sim/dialects/openai-responses.js';
import { openaiResponsesView } from '../src/sim/dialects/openai-responses-view.js';
import type { ActingCall } from '../src/sim/dialects/acting-calls.js';
import type { ActKind } from '../src/sim/conversation.js';
import { commandInArguments, commandInScript } from '../src/sim/dialects/codex-commands.js';
import { shellWords } from '../src/util/shell-words.js';
import { geminiActingCall, geminiActs } from '../src/sim/dialects/gemini-acting.js';
import { addFilePatch, codexActingCall, codexActs } from '../src/sim/dialects/openai-responses-acting.js';

/** The tools the pinned CLIs offered in a field trial (and Gemini's headless default), read by the simulator's views. */
const OFFERED = JSON.parse(fieldFixture('offered-tools.json')) as Record<string, string[]>;

const CALLS: Record<ActKind, ActingCall> = {
  shell: { act: 'shell', target: 'python3 chart.py data.csv' },
  write: { act: 'write', target: 'chart.py', content: "import csv\nprint('it''s')" },
  fetch: { act: 'fetch', target: 'https://example.com/data.csv' },
  agent: { act: 'agent', target: 'Chart data.csv' },
};
const reply = (tools: string[]) => ({ id: 'r1', tools });
type Json = Record<string, unknown>;

/** The command a Codex call runs, whichever way it reached the shell, or the tool it names otherwise. */
function codexShape(item: ReturnType<typeof codexActingCall>): string | undefined {
  if (!item) return undefined;
  if (item.type === 'function_call' && item.name === 'exec_command') return `shell: ${commandInArguments(item.arguments)}`;
  if (item.type === 'custom_tool_call' && item.name === 'exec') return `script: ${commandInScript(item.input)}`;
  return item.type === 'function_call' ? `${item.namespace}.${item.name}` : item.name;
}

describe('Codex: each act as the tool call the request offered for it', () => {
  it.each([
    ['codex sim-model', 'shell', 'shell: python3 chart.py data.csv'],
    ['codex sim-model', 'write', `shell: printf '%s' 'import csv\nprint('\\''it'\\'''\\''s'\\'')' > chart.py`],
    ['codex sim-model', 'fetch', 'shell: curl -fsSL https://example.com/data.csv'],
    ['codex sim-model', 'agent', 'multi_agent_v1.spawn_agent'],
    ['codex gpt-5.5', 'write', 'apply_patch'],
    ['codex gpt-5.5', 'agent', undefined],
    ['codex gpt-6.1-sol', 'shell', 'script: python3 chart.py data.csv'],
    ['codex gpt-6.1-sol', 'fetch', 'script: curl -fsSL https://example.com/data.csv'],
    ['codex gpt-6.1-sol', 'agent', 'collaboration.spawn_agent'],
  ] as const)('%s, %s → %s', (menu, act, shape) => {
    expect(codexShape(codexActingCall(reply(OFFERED[menu]!), CALLS[act], 0))).toBe(shape);
  });

  it('writes through the shell a command that writes exactly the content, to exactly the file', () => {
    const item = codexActingCall(reply(OFFERED['codex sim-model']!), CALLS.write, 0);
    const command = item?.type === 'function_call' ? commandInArguments(item.arguments) : '';
    expect(shellWords(command)).toEqual(['printf', '%s', CALLS.write.content, '>', 'chart.py']);
  });

  it('adds the file by a patch line by line', () => {
    expect(addFilePatch('a.py', 'x = 1\ny = 2')).toBe('*** Begin Patch\n*** Add File: a.py\n+x = 1\n+y = 2\n*** End Patch\n');
  });

  it('makes no call for a tool the request did not offer', () => {
    for (const act of Object.keys(CALLS) as ActKind[]) expect(codexActingCall(reply(['view_image']), CALLS[act], 0)).toBeUndefined();
  });

  it('makes only calls the field hook refuses', () => {
    for (const menu of ['codex sim-model', 'codex gpt-5.5']) {
      for (const call of Object.values(CALLS)) {
        const item = codexActingCall(reply(OFFERED[menu]!), call, 0);
        if (!item) continue;
        const [tool_name, tool_input] =
          item.type === 'function_call' && item.name === 'exec_command'
            ? ['Bash', { command: commandInArguments(item.arguments) }]
            : [item.name, item.type === 'custom_tool_call' ? { command: item.input } : JSON.parse(item.arguments)];
        expect(hookDecision(JSON.stringify({ tool_name, tool_input, cwd: '/ws' }))).toEqual({ refuse: true });
      }
    }
  });
});

describe('Gemini: each act as the tool call the request offered for it', () => {
  it.each([
    ['gemini field', 'shell', { name: 'run_shell_command', args: { command: 'python3 chart.py data.csv' } }],
    ['gemini field', 'write', { name: 'write_file', args: { file_path: 'chart.py', content: CALLS.write.content } }],
    ['gemini field', 'fetch', { name: 'web_fetch', args: { prompt: 'Fetch https://example.com/data.csv and summarise what it says.' } }],
    ['gemini field', 'agent', { name: 'invoke_agent', args: { agent_name: 'generalist', prompt: 'Chart data.csv' } }],
    // The headless default offers neither the shell, nor writes, nor fetches.
    ['gemini headless default', 'shell', undefined],
    ['gemini headless default', 'write', undefined],
    ['gemini headless default', 'fetch', undefined],
    ['gemini headless default', 'agent', { name: 'invoke_agent', args: { agent_name: 'generalist', prompt: 'Chart data.csv' } }],
  ] as const)('%s, %s', (menu, act, functionCall) => {
    expect(geminiActingCall(CALLS[act], OFFERED[menu]!)).toEqual(functionCall && { functionCall });
  });

  it('makes only calls the field policy refuses', () => {
    for (const call of Object.values(CALLS)) {
      const part = geminiActingCall(call, OFFERED['gemini field']!);
      expect(part && 'functionCall' in part && GEMINI_ACTING_TOOLS.includes(part.functionCall.name)).toBe(true);
    }
  });
});

describe('the acts each request offered a tool for', () => {
  it.each([
    ['codex sim-model', ['shell', 'write', 'fetch', 'agent']],
    ['codex gpt-5.5', ['shell', 'write', 'fetch']],
    ['codex gpt-6.1-sol', ['shell', 'write', 'fetch', 'agent']],
  ])('%s: %j', (menu, acts) => {
    expect(codexActs(OFFERED[menu]!)).toEqual(acts);
  });

  it.each([
    ['gemini field', ['shell', 'write', 'fetch', 'agent']],
    ['gemini headless default', ['agent']],
  ])('%s: %j', (menu, acts) => {
    expect(geminiActs(OFFERED[menu]!)).toEqual(acts);
  });
});

describe('the Codex and Gemini wires, wired: an act is the CLI’s acting call, its refusal read back as an act', () => {
  const modelReply = (tools: string[], act: ActKind) => ({
    id: 'r1',
    model: 'm',
    blocks: [{ type: 'act' as const, act }],
    inputTokens: 0,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    skillFiles: new Map<string, string>(),
    tools,
  });

  it('Codex: a shell act runs the canary command through the shell offered; without a shell, words', () => {
    const body = openaiResponses.json(modelReply(OFFERED['codex sim-model']!, 'shell')) as { output: unknown[] };
    const item = body.output[0] as { type: string; name: string; arguments: string };
    expect(commandInArguments(item.arguments)).toBe(`touch ${CANARY_FILE}`);
    const none = openaiResponses.json(modelReply(['view_image'], 'shell')) as { output: { type: string }[] };
    expect(none.output[0]!.type).toBe('message');
  });

  it('Gemini: a fetch act is web_fetch of the canary URL; without it, words', () => {
    const chunk = gemini.json(modelReply(OFFERED['gemini field']!, 'fetch')) as Json;
    expect(JSON.stringify(chunk)).toContain('"name":"web_fetch"');
    expect(JSON.stringify(chunk)).toContain(CANARY_URL);
    expect(JSON.stringify(gemini.json(modelReply(['read_file'], 'fetch')))).not.toContain('functionCall');
  });

  it('the views offer the acts the menu has, and read the field refusal as an act', () => {
    expect(openaiResponsesView({ tools: [{ type: 'function', name: 'exec_command' }], input: [] }).canAct).toEqual([
      'shell',
      'write',
      'fetch',
    ]);
    expect(geminiView({ contents: [] }).canAct).toBeUndefined();
    const codexRefused = {
      tools: [{ type: 'function', name: 'exec_command' }],
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'chart it' }] },
        { type: 'function_call', call_id: 'c1', name: 'exec_command', arguments: JSON.stringify({ cmd: `touch ${CANARY_FILE}` }) },
        { type: 'function_call_output', call_id: 'c1', output: `Command blocked by PreToolUse hook: ${FIELD_REFUSAL}. Command: touch x` },
      ],
    };
    expect(openaiResponsesView(codexRefused).lastResults.map((r) => r.action)).toEqual(['act']);
    const geminiRefused = {
      contents: [
        { role: 'user', parts: [{ text: 'chart it' }] },
        { role: 'model', parts: [{ functionCall: { name: 'write_file', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'write_file', response: { error: GEMINI_FIELD_REFUSAL } } }] },
      ],
    };
    expect(geminiView(geminiRefused).lastResults.map((r) => r.action)).toEqual(['act']);
  });
});
