import { isPlainObject } from '../../util/json.js';
import type { ToolAction } from '../conversation.js';
import { isSkillFile, skillOfFile } from './skill-files.js';
import { shellWord, shellWords } from '../../util/shell-words.js';

/**
 * Codex offers no skill tool: its model uses a skill by printing the SKILL.md with the shell tool. The simulator
 * writes such commands and reads them back from later requests, so both directions live here.
 *
 * Codex offers the shell in one of two ways, by model: as the function tool `exec_command`, or ("responses lite") only
 * inside JavaScript run by the custom tool `exec`, as `tools.exec_command(…)`.
 */

export const SHELL_TOOL = 'exec_command';
export const SCRIPT_TOOL = 'exec';

/** Whether the request gives the model a shell, either way. */
export const offersShell = (tools: readonly string[]): boolean => tools.includes(SHELL_TOOL) || tools.includes(SCRIPT_TOOL);

/** Whether the shell is reachable only through a script; when both are offered the direct call is the simpler one. */
export const shellOnlyThroughScripts = (tools: readonly string[]): boolean => tools.includes(SCRIPT_TOOL) && !tools.includes(SHELL_TOOL);

/** Printing the whole file is how the model invokes a skill; a paged read is a plain file read. */
export const invokeCommand = (skillFile: string): string => `cat ${shellWord(skillFile)}`;
export const readCommand = (skillFile: string): string => `sed -n '1,400p' ${shellWord(skillFile)}`;
/** Read-only and harmless inside the sandbox. */
export const searchCommand = (pattern: string): string => `find . -path ${shellWord(`./${pattern}`)}`;

/** `exec_command`'s arguments for a command. */
export const shellArguments = (command: string): string => JSON.stringify({ cmd: command });

/** An `exec` script that runs a command and hands back its whole result (exit code, output) as JSON. */
export const execScript = (command: string): string =>
  // A JSON string is also a valid JavaScript string literal, whatever the command holds.
  `const r = await tools.exec_command({cmd: ${JSON.stringify(command)}});\ntext(r);`;

/** An `exec` script that calls the MCP tool `name` (its full name) with `input` and hands back what it answered. */
export const mcpScript = (name: string, input: Record<string, unknown>): string =>
  `const r = await tools.${name}(${JSON.stringify(input)});\ntext(JSON.stringify(r));`;

/** Whether an `exec` script calls an MCP tool (`tools.mcp__…`). */
export const callsMcpTool = (script: string): boolean => /\btools\.mcp__/.test(script);

/** What a shell command did in skill terms: printed a SKILL.md with `cat` (invoked it), read one otherwise, or searched. */
export function commandAction(command: string, skillFiles: ReadonlyMap<string, string>): { action: ToolAction; skill?: string } {
  const [program, ...args] = shellWords(command);
  const file = args.find(isSkillFile);
  if (file !== undefined) return { action: program === 'cat' ? 'skill' : 'read', skill: skillOfFile(file, skillFiles) };
  return { action: program === 'find' || program === 'ls' ? 'search' : 'other' };
}

function parsedObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The command in `exec_command`'s arguments; empty when they do not parse. */
export function commandInArguments(args: string): string {
  const cmd = parsedObject(args)?.cmd;
  return typeof cmd === 'string' ? cmd : '';
}

const JS_ESCAPES: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v', '0': '\0' };

/** A JavaScript string literal's value: escapes resolved, a backslash before a line break dropped. */
function jsStringValue(literal: string): string {
  return literal.slice(1, -1).replace(/\\(?:u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|(\r\n|[\s\S]))/g, (_, u?: string, x?: string, c = '') => {
    const hex = u ?? x;
    if (hex !== undefined) return String.fromCharCode(parseInt(hex, 16));
    return /^(\r\n|[\r\n\u2028\u2029])$/.test(c) ? '' : (JS_ESCAPES[c] ?? c);
  });
}

/** The command a script passes to `tools.exec_command({cmd: …})`, in either quotes; empty when it passes none. */
export function commandInScript(script: string): string {
  const literal = /tools\.exec_command\(\s*\{\s*cmd\s*:\s*("(?:[^"\\\r\n]|\\[\s\S])*"|'(?:[^'\\\r\n]|\\[\s\S])*')/.exec(script)?.[1];
  return literal === undefined ? '' : jsStringValue(literal);
}

const OUTPUT_HEADER = '\nOutput:\n';

/** Codex reports a finished `exec_command` call as `Process exited with code N`, then its output after an `Output:` line. */
export function commandResult(report: string): { isError: boolean; text: string } {
  const code = /^Process exited with code (-?\d+)$/m.exec(report)?.[1];
  const at = report.indexOf(OUTPUT_HEADER);
  return { isError: code === undefined || Number(code) !== 0, text: at < 0 ? report : report.slice(at + OUTPUT_HEADER.length) };
}

/**
 * Codex reports an `exec` script as a status part, then a part for each `text()`: ours passes the command's result,
 * JSON with its exit code (none while it still runs) and output. Without that result the script itself failed.
 */
export function scriptResult(parts: readonly string[]): { isError: boolean; text: string } {
  const result = parts.map(parsedObject).find((p) => typeof p?.output === 'string');
  return result ? { isError: result.exit_code !== 0, text: String(result.output) } : { isError: true, text: parts.join('\n') };
}
