/**
 * Codex's PreToolUse hook in a field trial (configured by codex/field.ts, run by the CLI before every tool call):
 * reads the call as JSON on stdin and refuses it, exit 2 with the reason on stderr, unless it is a skill read or a
 * tool that acts on nothing. Exit 0 with no output lets the call go on.
 */
import { text } from 'node:stream/consumers';
import { FIELD_REFUSAL } from '../field-refusal.js';
import { hookDecision } from './field.js';

const { refuse } = hookDecision(await text(process.stdin).catch(() => ''));
if (refuse) process.stderr.write(FIELD_REFUSAL);
process.exit(refuse ? 2 : 0);
