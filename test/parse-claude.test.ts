import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseClaudeStream } from '../src/agents/claude-code/parse.js';
import type { Transcript, TranscriptEvent } from '../src/transcript/types.js';

const SAMPLES = join(import.meta.dirname, 'fixtures/claude-samples');
const sample = (name: string) => parseClaudeStream(readFileSync(join(SAMPLES, name), 'utf8'));
const kinds = (t: Transcript) => t.events.map((e) => e.kind);
const of = <K extends TranscriptEvent['kind']>(t: Transcript, kind: K) =>
  t.events.filter((e): e is Extract<TranscriptEvent, { kind: K }> => e.kind === kind);

describe('Claude Code stream parser on every shared sample', () => {
  const files = readdirSync(SAMPLES).filter((f) => f.endsWith('.jsonl'));

  it('finds all 16 samples', () => {
    expect(files.length).toBe(16);
  });

  it.each(files)('%s parses without warnings and starts with init', (f) => {
    const t = sample(f);
    expect(t.warnings).toEqual([]);
    const init = of(t, 'init')[0]!;
    expect(init.cliVersion).toBe('2.1.197');
    expect(init.tools.length).toBeGreaterThan(0);
    expect(init.skills).toContain(f === 'subst-args.jsonl' ? 'subst' : 'pdf-tool');
  });

  // What each sample must yield: [file, result status or null for "no result line", skill loads, expected kinds subset]
  const table: [string, string | null, { name: string; status: string; path?: boolean }[], number][] = [
    ['text.jsonl', 'success', [], 0],
    ['skill.jsonl', 'success', [{ name: 'pdf-tool', status: 'loaded', path: true }], 0],
    ['read.jsonl', 'success', [], 0],
    ['bash.jsonl', 'success', [], 0],
    ['err429-r0.jsonl', 'api_error', [], 1],
    ['err500-r0.jsonl', 'api_error', [], 1],
    ['err429-recover.jsonl', 'success', [{ name: 'pdf-tool', status: 'loaded', path: true }], 2],
    ['s500.jsonl', 'api_error', [{ name: 'pdf-tool', status: 'loaded', path: true }], 1],
    ['loop.jsonl', 'max_turns', [], 0],
    ['mt1.jsonl', 'max_turns', [{ name: 'pdf-tool', status: 'loaded', path: true }], 0],
    ['multitext.jsonl', 'success', [], 0],
    ['parallel.jsonl', 'success', [{ name: 'pdf-tool', status: 'loaded', path: true }], 0],
    ['slashcmd.jsonl', 'success', [{ name: 'pdf-tool', status: 'loaded', path: true }], 0],
    ['subst-args.jsonl', 'success', [{ name: 'subst', status: 'loaded', path: true }], 0],
    ['sse-error-with-bad-fallback.jsonl', 'success', [], 1],
    ['stall-kill.jsonl', null, [], 0],
  ];

  it.each(table)('%s → result %s, skill loads and errors as recorded', (f, status, loads, errors) => {
    const t = sample(f);
    const result = of(t, 'result')[0];
    expect(result?.status ?? null).toBe(status);
    expect(of(t, 'skill_load').map((l) => ({ name: l.name, status: l.status, ...(l.path ? { path: true } : {}) }))).toEqual(loads);
    expect(of(t, 'error').length).toBe(errors);
  });

  // The result's usage, summed over the session's model calls: [file, input (all), cached, cache writes, output].
  const usageRows: [string, number, number, number, number][] = [
    ['text.jsonl', 100, 0, 0, 20],
    ['skill.jsonl', 200, 0, 0, 40],
    ['loop.jsonl', 300, 0, 0, 60],
    ['err429-r0.jsonl', 0, 0, 0, 0],
    ['sse-error-with-bad-fallback.jsonl', 400, 0, 0, 4],
  ];

  it.each(usageRows)('%s → usage of %i input tokens (%i cached, %i written), %i output', (f, input, cached, write, output) => {
    expect(of(sample(f), 'result')[0]!.usage).toEqual({
      inputTokens: input,
      cachedInputTokens: cached,
      cacheWriteTokens: write,
      outputTokens: output,
    });
  });

  it('adds both cache counts to input_tokens: Anthropic counts only the uncached rest there', () => {
    const raw = readFileSync(join(SAMPLES, 'skill.jsonl'), 'utf8').replace(
      '"usage":{"input_tokens":200,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,',
      '"usage":{"input_tokens":12,"cache_creation_input_tokens":300,"cache_read_input_tokens":9000,',
    );
    expect(of(parseClaudeStream(raw), 'result')[0]!.usage).toEqual({
      inputTokens: 9312,
      cachedInputTokens: 9000,
      cacheWriteTokens: 300,
      outputTokens: 40,
    });
  });

  it('a stream cut before its result says nothing of usage', () => {
    expect(sample('stall-kill.jsonl').events.some((e) => e.kind === 'result' && e.usage !== undefined)).toBe(false);
  });

  it('marks the injected skill body as harness text, never assistant text', () => {
    const t = sample('skill.jsonl');
    const body = t.events.find((e) => e.kind === 'text' && e.text.startsWith('Base directory for this skill:'));
    expect(body?.source).toBe('harness');
    expect(
      of(t, 'text')
        .filter((e) => e.source === 'assistant')
        .map((e) => e.text),
    ).toEqual([
      "I'll use the pdf-tool skill for this.",
      'PLAN:\n1. Run `python scripts/extract.py --input "input.pdf" --format text`\n2. Report the output.',
    ]);
  });

  it('links the body path to the loaded skill', () => {
    const load = of(sample('skill.jsonl'), 'skill_load')[0]!;
    expect(load.path).toBe('/tmp/skillprobe-x/ws1/.claude/skills/pdf-tool');
  });

  it('turns the synthetic API error message into an error event, not assistant text', () => {
    const t = sample('err429-r0.jsonl');
    expect(of(t, 'text').filter((e) => e.source === 'assistant')).toEqual([]);
    expect(of(t, 'error')[0]).toMatchObject({ errorKind: 'rate_limit', httpStatus: 429, retrying: false });
  });

  it('records CLI retries as retrying errors', () => {
    const retries = of(sample('err429-recover.jsonl'), 'error');
    expect(retries.every((e) => e.retrying && e.httpStatus === 429)).toBe(true);
  });

  it('keeps both text blocks of a multi-block message (result holds only the last)', () => {
    const t = sample('multitext.jsonl');
    expect(of(t, 'text').map((e) => e.text)).toEqual(['Part A.', 'Part B.']);
    expect(of(t, 'result')[0]!.finalText).toBe('Part B.');
  });

  it('recognises Skill and Read calls by intent, in order, for parallel calls', () => {
    const calls = of(sample('parallel.jsonl'), 'tool_call');
    expect(calls.map((c) => [c.intent, c.skill ?? c.path])).toEqual([
      ['skill', 'pdf-tool'],
      ['read', '/tmp/skillprobe-x/ws1/.claude/skills/pdf-tool/SKILL.md'],
    ]);
  });

  it('keeps unknown event types as other, a run of the same one counted, not repeated', () => {
    const t = parseClaudeStream(readFileSync(join(SAMPLES, 'stall-kill.jsonl'), 'utf8'));
    expect(t.events.map((e) => (e.kind === 'other' ? [e.type, e.repeats ?? 1] : e.kind))).toEqual([
      'init',
      ['system/status', 1],
      ['stream_event', 3],
    ]);
  });

  it('a CLI printing noise costs one event, however long it goes on', () => {
    const noise = Array.from({ length: 100_000 }, () => '{"type":"noise"}');
    const t = parseClaudeStream(noise);
    expect(t.events).toEqual([{ kind: 'other', source: 'system', type: 'noise', repeats: 100_000 }]);
  });
});

describe('Claude Code stream parser on damaged input', () => {
  const good = readFileSync(join(SAMPLES, 'skill.jsonl'), 'utf8');

  it('turns a truncated last line into a warning and keeps everything before it', () => {
    const cut = good.slice(0, good.lastIndexOf('{"type":"result"') + 40);
    const t = parseClaudeStream(cut);
    expect(t.warnings).toEqual([{ line: 7, message: 'truncated final line (process ended mid-write)' }]);
    expect(of(t, 'skill_load')).toHaveLength(1);
    expect(of(t, 'result')).toHaveLength(0);
  });

  it('warns on garbage in the middle without losing later events', () => {
    const lines = good.trimEnd().split('\n');
    lines.splice(2, 0, 'not json at all', '[1,2]');
    const t = parseClaudeStream(lines.join('\n'));
    expect(t.warnings.map((w) => w.line)).toEqual([3, 4]);
    expect(of(t, 'result')).toHaveLength(1);
  });

  it('handles empty input', () => {
    expect(parseClaudeStream('')).toEqual({ agent: 'claude-code', events: [], warnings: [] });
  });

  it('classifies denied and unknown skills', () => {
    const call = (id: string, skill: string) =>
      JSON.stringify({
        type: 'assistant',
        parent_tool_use_id: null,
        message: { id: 'm', model: 'x', content: [{ type: 'tool_use', id, name: 'Skill', input: { skill } }] },
      });
    const res = (id: string, content: string) =>
      JSON.stringify({
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content, is_error: true }] },
      });
    const t = parseClaudeStream(
      [
        call('a', 'bash-skill'),
        res('a', 'Execute skill: bash-skill'),
        call('b', 'nope'),
        res('b', '<tool_use_error>Unknown skill: nope</tool_use_error>'),
      ].join('\n'),
    );
    expect(of(t, 'skill_load').map((l) => [l.name, l.status])).toEqual([
      ['bash-skill', 'denied'],
      ['nope', 'unknown'],
    ]);
  });

  it('ignores sub-agent assistant traffic', () => {
    const line = JSON.stringify({
      type: 'assistant',
      parent_tool_use_id: 'toolu_1',
      message: { id: 'm', content: [{ type: 'text', text: 'sub' }] },
    });
    expect(kinds(parseClaudeStream(line))).toEqual(['other']);
  });
});
