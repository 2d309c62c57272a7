/**
 * Claude Code stopping itself once a trial's outcome is settled: a PostToolUse hook on the skill tool that answers
 * `{"continue":false}` when the call named one of the settling skills. Measured on 2.1.197 and 2.1.332: the CLI then
 * prints the tool's result and the skill's body, writes its result line and exits without another model request
 * (2.1.197's result is `error_during_execution`; 2.1.332's is `success` with `terminal_reason: "hook_stopped"`). The
 * hook is a shell `grep` over the call's JSON on its stdin (compact, `"tool_input":{"skill":"…"}`), so it adds no
 * process start of its own beyond the shell; the harness's watch of the stream is what records the trial as settled.
 */

const STOP = JSON.stringify({ continue: false, stopReason: 'skillprobe: the trial outcome is settled' });

/** A name as a literal inside an extended regular expression. */
const literal = (name: string) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * The hook entries that stop the CLI after a call of one of `skills` (as the CLI resolves a requested name: a leading
 * `/`, a `plugin:` prefix and spaces around it); none when no name can be written into the shell command whole.
 */
export function settleHooks(skills: readonly string[]): { PostToolUse?: unknown[] } {
  // A name with a quote or a newline cannot go into the single-quoted pattern: the stream's watch stops such a trial.
  const names = skills.filter((s) => !/['"\n\\]/.test(s));
  if (!names.length) return {};
  const pattern = `"skill":" *(/|[^"]*:)?(${names.map(literal).join('|')}) *"`;
  // STOP holds no single quote, so printf passes it whole; a call of another skill prints nothing and goes on.
  const command = `if grep -qE '${pattern}'; then printf '%s' '${STOP}'; fi`;
  return { PostToolUse: [{ matcher: 'Skill', hooks: [{ type: 'command', command }] }] };
}
