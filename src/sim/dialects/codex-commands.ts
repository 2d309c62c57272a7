import type { ToolAction } from '../conversation.js';
import { isSkillFile, skillOfFile } from './skill-files.js';

/**
 * Codex offers no skill tool: its model uses a skill by printing the SKILL.md with the shell tool. The simulator
 * writes such commands and reads them back from later requests, so both directions live here.
 */

export const SHELL_TOOL = 'exec_command';

/** A word as a POSIX shell reads it, quoted only when it holds more than plain path characters. */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Printing the whole file is how the model invokes a skill; a paged read is a plain file read. */
export const invokeCommand = (skillFile: string): string => `cat ${shellWord(skillFile)}`;
export const readCommand = (skillFile: string): string => `sed -n '1,400p' ${shellWord(skillFile)}`;
/** Read-only and harmless inside the sandbox. */
export const searchCommand = (pattern: string): string => `find . -path ${shellWord(`./${pattern}`)}`;

/** The words of a simple command line: quotes and backslashes resolved, nothing expanded. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i];
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** What a shell command did in skill terms: printed a SKILL.md with `cat` (invoked it), read one otherwise, or searched. */
export function commandAction(command: string, skillFiles: ReadonlyMap<string, string>): { action: ToolAction; skill?: string } {
  const [program, ...args] = shellWords(command);
  const file = args.find(isSkillFile);
  if (file !== undefined) return { action: program === 'cat' ? 'skill' : 'read', skill: skillOfFile(file, skillFiles) };
  return { action: program === 'find' || program === 'ls' ? 'search' : 'other' };
}

const OUTPUT_HEADER = '\nOutput:\n';

/** Codex reports a finished command as `Process exited with code N`, then its output after an `Output:` line. */
export function commandResult(report: string): { isError: boolean; text: string } {
  const code = /^Process exited with code (-?\d+)$/m.exec(report)?.[1];
  const at = report.indexOf(OUTPUT_HEADER);
  return { isError: code === undefined || Number(code) !== 0, text: at < 0 ? report : report.slice(at + OUTPUT_HEADER.length) };
}
