import { describe, expect, it } from 'vitest';
import { parseClaudeStream } from '../src/agents/claude-code/parse.js';
import { parseCodexStream } from '../src/agents/codex/parse.js';
import { parseGeminiStream } from '../src/agents/gemini/parse.js';
import type { Transcript } from '../src/transcript/types.js';
import { SHOWN_CHARS } from '../src/util/shown-text.js';
import { ClaudeStream } from './claude-stream.js';

/** Characters a parsed transcript holds in its events' texts. */
const keptChars = (t: Transcript) =>
  t.events.reduce(
    (sum, e) =>
      sum + (e.kind === 'text' || e.kind === 'tool_result' ? e.text.length : e.kind === 'skill_load' ? (e.detail?.length ?? 0) : 0),
    0,
  );

const BLOCK = 1 << 20;
const BLOCKS = 40;
const pad = (i: number) => String.fromCharCode(97 + (i % 26)).repeat(BLOCK);

/** A CLI's stream with 40 tool outputs of 1 MB each: what a trial reading large files prints. */
const streams: [string, () => Transcript][] = [
  [
    'Claude Code',
    () => {
      const s = new ClaudeStream().text('reading');
      const lines = s.raw().trimEnd().split('\n');
      for (let i = 0; i < BLOCKS; i++)
        lines.push(
          JSON.stringify({
            type: 'user',
            message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: pad(i) }] },
          }),
        );
      lines.push(
        JSON.stringify({
          type: 'user',
          message: { role: 'user', content: [{ type: 'text', text: `Base directory for this skill: /x\n${pad(99)}` }] },
        }),
      );
      return parseClaudeStream(lines.join('\n'));
    },
  ],
  [
    'Codex',
    () =>
      parseCodexStream(
        Array.from({ length: BLOCKS }, (_, i) =>
          JSON.stringify({
            type: 'item.completed',
            item: { id: `c${i}`, type: 'command_execution', command: 'cat big', aggregated_output: pad(i), exit_code: 0 },
          }),
        ).join('\n'),
      ),
  ],
  [
    'Gemini CLI',
    () =>
      parseGeminiStream(
        Array.from({ length: BLOCKS }, (_, i) =>
          JSON.stringify({ type: 'tool_result', tool_id: `g${i}`, status: 'success', output: pad(i) }),
        ).join('\n'),
      ),
  ],
];

describe('a transcript keeps of what is only shown (tool output, injected skill bodies) a bounded start, never the block', () => {
  it.each(streams)('%s: 40 MB of tool output is held as at most SHOWN_CHARS a block, with its full length', (_, parse) => {
    const t = parse();
    const results = t.events.filter((e) => e.kind === 'tool_result');
    expect(results).toHaveLength(BLOCKS);
    for (const [i, r] of results.entries()) {
      expect(r.chars).toBe(BLOCK);
      expect(r.text).toBe(pad(i).slice(0, SHOWN_CHARS));
    }
    // Before the bound, every byte of every output stayed in memory with the transcript: 40 MB here.
    expect(keptChars(t)).toBeLessThanOrEqual((BLOCKS + 2) * SHOWN_CHARS + 1000);
  });

  it("the assistant's own text is graded, so it is kept whole", () => {
    const t = parseClaudeStream(new ClaudeStream().text(pad(1)).result().raw());
    expect(t.events.find((e) => e.kind === 'text' && e.source === 'assistant')).toMatchObject({ text: pad(1) });
  });
});
