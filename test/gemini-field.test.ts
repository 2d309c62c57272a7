import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { fieldFixture as fixture } from './field-fixtures.js';
import { geminiFieldPolicy, geminiFieldSettings, geminiFieldTranscriptProblem } from '../src/agents/gemini/field.js';
import { GEMINI_ACTING_TOOLS } from '../src/agents/gemini/settings.js';
import { parseGeminiStream } from '../src/agents/gemini/parse.js';
import { FIELD_REFUSAL } from '../src/agents/field-refusal.js';

interface Rule {
  toolName: string | string[];
  decision: string;
  priority: number;
  argsPattern?: string;
  denyMessage?: string;
}

describe('the Gemini field policy', () => {
  const rules = (parseToml(geminiFieldPolicy()) as unknown as { rule: Rule[] }).rule;
  const names = (r: Rule) => [r.toolName].flat();

  it('refuses every call of each acting tool, whatever its arguments, with the field refusal', () => {
    const deny = rules.filter((r) => r.decision === 'deny');
    expect(deny).toHaveLength(1);
    expect(names(deny[0]!)).toEqual(GEMINI_ACTING_TOOLS);
    const pattern = new RegExp(deny[0]!.argsPattern!);
    for (const args of ['{}', '{"command":"touch x"}', '{"content":"line one\\nline two"}', '{"a":"\n"}'])
      expect(pattern.test(args)).toBe(true);
    expect(deny[0]!.denyMessage).toBe(FIELD_REFUSAL);
  });

  it('keeps each acting tool on the menu: an allow rule without arguments, below the refusal', () => {
    const deny = rules.find((r) => r.decision === 'deny')!;
    const keep = rules.find((r) => r.decision === 'allow' && names(r).includes('run_shell_command'))!;
    expect(keep.argsPattern).toBeUndefined();
    expect(names(keep)).toEqual(GEMINI_ACTING_TOOLS);
    expect(keep.priority).toBeLessThan(deny.priority);
  });

  it('allows the skill tool, which the CLI denies headless', () => {
    expect(rules).toContainEqual({ toolName: 'activate_skill', decision: 'allow', priority: 100 });
  });

  it('leaves the default tools, sub-agents and built-in skills in the settings (no allowlist, no agents switch, nothing hidden)', () => {
    const settings = JSON.parse(geminiFieldSettings({ model: 'm', maxTurns: 5, cliRetries: 0 })) as Record<string, unknown>;
    expect(settings.tools).toBeUndefined();
    expect(settings.experimental).toBeUndefined();
    expect(settings).toMatchObject({ model: { name: 'm', maxSessionTurns: 5 }, skills: { enabled: true, disabled: [] } });
  });
});

describe("a Gemini field trial's evidence, from recorded runs of the pinned CLI, as the isolation check reads it (the canonical transcript)", () => {
  const field = fixture('gemini-field-events.jsonl');
  const problem = (stream: string) => geminiFieldTranscriptProblem(parseGeminiStream(stream));

  it('holds when each acting call (a command, a write, an edit, a fetch, a search, a sub-agent) was refused', () => {
    expect(field.match(/"type":"tool_use"/g)).toHaveLength(9);
    expect(problem(field)).toBeUndefined();
  });

  it('holds for compound, substituted, background and elsewhere-run commands (refused)', () => {
    const forms = fixture('gemini-field-shell-forms-events.jsonl');
    expect(forms.match(/"type":"policy_violation"/g)).toHaveLength(5);
    // The two calls rejected as malformed before the policy saw them (their call and answer) are the next test's.
    const malformed = [...forms.matchAll(/"tool_id":"([^"]+)"[^\n]*invalid_tool_params/g)].map((m) => `"tool_id":"${m[1]!}"`);
    expect(malformed).toHaveLength(2);
    const refusedOnly = forms
      .split('\n')
      .filter((l) => !malformed.some((id) => l.includes(id)))
      .join('\n');
    expect(problem(refusedOnly)).toBeUndefined();
  });

  it('fails closed on a malformed acting call: the transcript keeps no error type to tell it from one that failed running', () => {
    expect(problem(fixture('gemini-field-shell-forms-events.jsonl'))).toMatch(
      /^the acting call write_file was not refused: Path not in workspace/,
    );
  });

  it('names an acting tool the CLI had not offered (its headless default)', () => {
    expect(problem(fixture('gemini-headless-default-events.jsonl'))).toBe(
      'write_file was not offered to the model: the field menu is wrong',
    );
  });

  it('names an acting call that ran', () => {
    const ran = field.replace(
      /"status":"error","output":"Tool execution denied by policy\. [^"]*","error":\{"type":"policy_violation","message":"[^"]*"\}/,
      '"status":"success","output":""',
    );
    expect(problem(ran)).toBe('the acting call run_shell_command was not refused: ');
  });

  it('names an acting call refused by anyone but the field policy', () => {
    const other = field.replace(`denied by policy. ${FIELD_REFUSAL}`, 'denied by policy. Another admin said no');
    expect(problem(other)).toBe(
      'the acting call run_shell_command was not refused: Tool execution denied by policy. Another admin said no',
    );
  });

  it('names an acting call with no answer (the stream ended first)', () => {
    const cut = field
      .split('\n')
      .filter((l) => !l.includes('"tool_result"') || !l.includes('run_shell_command'))
      .join('\n');
    expect(problem(cut)).toBe('the acting call run_shell_command has no answer: cannot verify it was refused');
  });
});
