/**
 * Codex's PreToolUse hook in a field trial (configured by codex/field.ts, run by the CLI before every tool call):
 * `field-hook-main.js <log> [read-only MCP tool…]` reads the call as JSON on stdin and refuses it, exit 2 with the reason
 * on stderr, unless it is a skill read, a tool that acts on nothing or one of the trial's MCP tools that only read
 * (exit 0, no output: the call goes on). Every call is appended to
 * the log, in the order the model made them: the one record of the refused calls that Codex's stream never shows.
 */
import { appendFileSync } from 'node:fs';
import { text } from 'node:stream/consumers';
import { FIELD_REFUSAL } from '../field-refusal.js';
import { hookDecision, hookRecord } from './field.js';

const stdin = await text(process.stdin).catch(() => '');
let { refuse } = hookDecision(stdin, process.argv.slice(3));
try {
  appendFileSync(process.argv[2] ?? '', hookRecord(stdin, refuse));
} catch {
  // A call the log cannot record is refused, whatever it was: the evidence would not show it.
  refuse = true;
}
if (refuse) process.stderr.write(FIELD_REFUSAL);
process.exit(refuse ? 2 : 0);
