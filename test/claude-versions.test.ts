import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCode } from '../src/agents/claude-code/adapter.js';
import {
  CLAUDE_BUNDLED_BY_VERSION,
  CLAUDE_BUNDLED_SKILLS,
  claudeBundled,
  fieldSettings,
  trialSettings,
} from '../src/agents/claude-code/field.js';
import { parseClaudeStream } from '../src/agents/claude-code/parse.js';
import { isLineOfType } from '../src/agents/json-lines.js';
import type { IsolationExpectation } from '../src/agents/types.js';
import type { Transcript, TranscriptEvent } from '../src/transcript/types.js';

/**
 * Claude Code 2.1.332 beside the pinned 2.1.197: real streams of the newer version (captured against the simulator,
 * test/fixtures/claude-2.1.332/) through the parser, the turn's end, the lab's and the field's isolation checks.
 */
const FIXTURES = join(import.meta.dirname, 'fixtures/claude-2.1.332');
const raw = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');
const stream = (name: string) => parseClaudeStream(raw(name));
const of = <K extends TranscriptEvent['kind']>(t: Transcript, kind: K) =>
  t.events.filter((e): e is Extract<TranscriptEvent, { kind: K }> => e.kind === kind);
const FAMILY = ['alpha', 'alpha-beta'];
const lab: IsolationExpectation = { arm: 'skill', family: FAMILY };
const field: IsolationExpectation = { arm: 'skill', family: FAMILY, context: 'field', workspaceChanged: [] };

describe('Claude Code 2.1.332 streams', () => {
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.jsonl'));

  it.each(files)('%s parses without warnings, its init naming 2.1.332', (f) => {
    const t = stream(f);
    expect(t.warnings).toEqual([]);
    expect(of(t, 'init')[0]?.cliVersion).toBe('2.1.332');
  });

  // [file, result statuses, skill loads, HTTP status of the result]
  it.each<[string, string[], string[], number | undefined]>([
    ['skill.jsonl', ['success'], ['alpha'], undefined],
    ['follow-up.jsonl', ['success', 'success'], ['alpha'], undefined],
    ['err429.jsonl', ['api_error'], [], 429],
    ['loop.jsonl', ['max_turns'], [], undefined],
    ['field-toolsearch-webfetch-refused.jsonl', ['success'], [], undefined],
  ])('%s: its result line, whose `type` comes late, is read (%s)', (f, statuses, loads, httpStatus) => {
    const t = stream(f);
    expect(of(t, 'result').map((r) => r.status)).toEqual(statuses);
    expect(of(t, 'skill_load').map((l) => l.name)).toEqual(loads);
    expect(of(t, 'result')[0]?.httpStatus).toBe(httpStatus);
  });

  it("a conversation's turn ends at each result line, found by its type and not by where the key stands", () => {
    const lines = raw('follow-up.jsonl').split('\n');
    const followUps = claudeCode.conversation?.followUps;
    if (followUps?.via !== 'stdin') throw new Error('Claude Code takes its follow-ups on stdin');
    expect(lines.filter((l) => followUps.endsTurn(l))).toHaveLength(2);
    expect(lines.filter((l) => l.startsWith('{"type":"result"'))).toEqual([]);
    expect(of(stream('follow-up.jsonl'), 'user_turn').map((u) => u.turn)).toEqual([1, 2]);
  });
});

describe('isolation on 2.1.332', () => {
  it('a lab trial with the built-in plugins off checks out; one that loaded them is an isolation problem', () => {
    expect(claudeCode.grading.isolationProblem!(stream('skill.jsonl'), lab)).toBeUndefined();
    expect(of(stream('plugins-loaded.jsonl'), 'init')[0]?.plugins).toEqual([
      'cc-plugin-agents-md@builtin',
      'cc-plugin-privacy@builtin',
      'cc-plugin-plugin-authoring@builtin',
    ]);
    expect(claudeCode.grading.isolationProblem!(stream('plugins-loaded.jsonl'), { arm: 'skill', family: ['alpha'] })).toMatch(
      /^plugins loaded: cc-plugin-agents-md@builtin, /,
    );
  });

  it('a trial outside the field turns off every built-in plugin a measured version turns on; a field trial keeps them', () => {
    const plugins = of(stream('plugins-loaded.jsonl'), 'init')[0]!.plugins!;
    expect(JSON.parse(trialSettings({}, false))).toEqual({ enabledPlugins: Object.fromEntries(plugins.map((p) => [p, false])) });
    expect(JSON.parse(fieldSettings())).not.toHaveProperty('enabledPlugins');
  });

  it('a field trial: the lookup ran, the deferred WebFetch it loaded was refused, the listing is the version’s own', () => {
    const t = stream('field-toolsearch-webfetch-refused.jsonl');
    const calls = of(t, 'tool_call');
    expect(calls.map((c) => [c.name, c.intent])).toEqual([
      ['ToolSearch', 'other'],
      ['WebFetch', 'act'],
    ]);
    const results = of(t, 'tool_result');
    expect(results.map((r) => r.isError)).toEqual([false, true]);
    expect(claudeCode.grading.isolationProblem!(t, field)).toBeUndefined();
    // Checked against 2.1.197's list, its init would name skills from outside: the lists are keyed by version.
    const asOlder = parseClaudeStream(raw('field-toolsearch-webfetch-refused.jsonl').replaceAll('"2.1.332"', '"2.1.197"'));
    expect(claudeCode.grading.isolationProblem!(asOlder, field)).toMatch(/reached the model: .*dataviz/);
  });
});

describe('what each Claude Code version bundles', () => {
  it('a version not measured is taken as the newest measured one', () => {
    expect(claudeBundled('9.9.9')).toBe(CLAUDE_BUNDLED_BY_VERSION['2.1.332']);
    expect(claudeBundled(undefined)).toBe(CLAUDE_BUNDLED_BY_VERSION['2.1.332']);
    expect(claudeBundled('2.1.197')).toBe(CLAUDE_BUNDLED_BY_VERSION['2.1.197']);
  });

  it('the names a user skill must not take are every measured version’s listed skills, each once', () => {
    expect(CLAUDE_BUNDLED_SKILLS).toEqual([...new Set(Object.values(CLAUDE_BUNDLED_BY_VERSION).flatMap((b) => b.listed))]);
    expect(CLAUDE_BUNDLED_SKILLS).toEqual(expect.arrayContaining(['deep-research', 'dataviz', 'plugin-authoring']));
  });

  it('within a version, a name is listed or init-only, never both', () => {
    for (const { listed, initOnly } of Object.values(CLAUDE_BUNDLED_BY_VERSION))
      expect(listed.filter((s) => initOnly.includes(s))).toEqual([]);
  });
});

describe('a line of a stream is of a type by its parsed `type`', () => {
  it.each<[string, string, boolean]>([
    ['{"type":"result","subtype":"success"}', 'result', true],
    ['{"subtype":"success","is_error":false,"type":"result"}', 'result', true],
    ['{"type":"assistant","message":{"content":[{"type":"result"}]}}', 'result', false],
    ['{"type":"assistant","result":"the word \\"result\\""}', 'result', false],
    ['{"type":"result"', 'result', false],
    ['["result"]', 'result', false],
    ['', 'result', false],
  ])('%s is of type %s: %s', (line, type, expected) => {
    expect(isLineOfType(line, type)).toBe(expected);
  });
});
