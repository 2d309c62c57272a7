import { describe, expect, it } from 'vitest';
import { fieldFixture } from './field-fixtures.js';
import { PROBE_CALLS, probeFinding, toolAnswers } from '../src/runner/field-probe-scripted.js';

type Json = Record<string, any>;
/** The first and last requests the pinned CLIs sent the probe's model (context trimmed), every call refused. */
const RECORDED = JSON.parse(fieldFixture('probe-requests.json')) as Record<
  'codex-sim-model' | 'codex-gpt-6.1-sol' | 'gemini',
  { first: Json; last: Json }
>;
const CASES = [
  ['codex-sim-model', 'openai-responses'],
  ['codex-gpt-6.1-sol', 'openai-responses'],
  ['gemini', 'gemini'],
] as const;

/** A deep copy with every answer's text passed through `edit` (the n-th answer only, when `n` is given). */
function editAnswers(body: Json, edit: (s: string) => string, n?: number): Json {
  let i = -1;
  const walk = (v: unknown, answer = false): unknown => {
    if (typeof v === 'string') return answer && (n === undefined || i === n) ? edit(v) : v;
    if (Array.isArray(v)) return v.map((x) => walk(x, answer));
    if (v && typeof v === 'object') {
      const o = v as Json;
      const isAnswer = (typeof o.type === 'string' && o.type.endsWith('_output')) || (typeof o.name === 'string' && 'response' in o);
      if (isAnswer) i++;
      // Only what the model is sent: an answer's output (Codex) or response (Gemini), not its type or id.
      return Object.fromEntries(
        Object.entries(o).map(([k, x]) => [k, walk(x, answer || (isAnswer && ['output', 'response'].includes(k)))]),
      );
    }
    return v;
  };
  return walk(body) as Json;
}

describe('the field probe’s verdict on what the CLI did, from recorded runs of the pinned CLIs', () => {
  it.each(CASES)('%s: every call refused, nothing left behind → no finding', (name, wire) => {
    const { first, last } = RECORDED[name];
    expect(toolAnswers(wire, last)).toHaveLength(PROBE_CALLS.length);
    expect(probeFinding(wire, [first, last], [])).toBeUndefined();
  });

  it.each(CASES)('%s: a file the probe’s calls would write exists → a refused call ran', (name, wire) => {
    const { first, last } = RECORDED[name];
    expect(probeFinding(wire, [first, last], ['field-probe-touched'])).toBe('a refused call ran: field-probe-touched exists');
  });

  it.each(CASES)('%s: the read command answered with its output → not refused', (name, wire) => {
    const { first, last } = RECORDED[name];
    const ran = editAnswers(last, () => 'Process exited with code 0\nOutput:\nreadable', 2);
    expect(probeFinding(wire, [first, ran], [])).toMatch(/^the shell call was answered without the refusal: /);
  });

  it.each(CASES)('%s: a refusal by anyone else → not the field refusal', (name, wire) => {
    const { first, last } = RECORDED[name];
    const other = editAnswers(last, (s) => s.replace('Not permitted in this session', 'Blocked by a rule of the user’s'), 0);
    expect(probeFinding(wire, [first, other], [])).toMatch(/^the write call was answered without the refusal: /);
  });

  it.each(CASES)('%s: the CLI stopped before answering every call', (name, wire) => {
    const { first } = RECORDED[name];
    expect(probeFinding(wire, [first], [])).toBe('the model was answered 0 of 3 calls');
    expect(probeFinding(wire, [], [])).toBe('the CLI never called the model');
  });

  it('Gemini: a menu without the acting tools (the headless default) is named', () => {
    const { first, last } = RECORDED.gemini;
    const headless = { ...first, tools: [{ functionDeclarations: [{ name: 'read_file' }, { name: 'glob' }] }] };
    expect(probeFinding('gemini', [headless, last], [])).toBe(
      'the field menu lacks run_shell_command, write_file, replace, web_fetch, google_web_search',
    );
  });

  it("Codex: each refused call must be in the hook's log (the stream shows none)", () => {
    const { first, last } = RECORDED['codex-sim-model'];
    expect(probeFinding('openai-responses', [first, last], [], 3)).toBeUndefined();
    expect(probeFinding('openai-responses', [first, last], [], 2)).toBe('the hook logged 2 refused calls of 3');
  });

  it('Codex: a menu without the shell is named', () => {
    const { first, last } = RECORDED['codex-sim-model'];
    expect(probeFinding('openai-responses', [{ ...first, tools: [{ type: 'function', name: 'view_image' }] }, last], [])).toBe(
      'the field menu lacks a shell (exec_command, or exec for a code-mode model)',
    );
  });
});
