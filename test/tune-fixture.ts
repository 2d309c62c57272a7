import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { expect } from 'vitest';
import { join, relative } from 'node:path';
import { ROOT, runInProcess, spyBinary, type Files } from './helpers.js';

/**
 * The `tune` example (examples/tune): csv-report's description says nothing of Excel workbooks and spreadsheets, a
 * whole class of requests it should take; under the simulator's description router those requests mostly get no
 * skill. Tests take its files, with the description and the config as each scenario needs.
 */
const EXAMPLE = join(ROOT, 'examples/tune');
const SKILL = 'skills/csv-report/SKILL.md';

export const MISSING_CLASS = 'Summarise CSV files into a report with totals per column.';

function exampleFiles(dir = EXAMPLE): Files {
  return Object.fromEntries(
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => {
        const file = join(e.parentPath, e.name);
        return [relative(EXAMPLE, file), readFileSync(file, 'utf8')];
      }),
  );
}

/**
 * The example with csv-report's description replaced, `config` put before the example's config, and `trials` per case
 * on the tune and select cases (the example's 2 by default).
 */
export function tuneProject(description: string, config = '', trials?: number): Files {
  const files = exampleFiles();
  files[SKILL] = files[SKILL]!.replace(`description: ${MISSING_CLASS}`, `description: ${description}`);
  const example = files['skillprobe.config.yaml']!;
  files['skillprobe.config.yaml'] = config + (trials === undefined ? example : example.replace(/^trials: \d+$/m, `trials: ${trials}`));
  return files;
}

/**
 * Runs `args` in `dir` over the tune example changed by `change`, its agent binary a spy that marks the folder if it is
 * ever started: a refusal is exit 2, no stack trace, nothing started and nothing written under transcripts/. Returns
 * the refusal's non-empty lines, for the caller to check what they name.
 */
export async function refusedNothingSpent(dir: string, change: ((f: Files) => void) | undefined, args: string[]): Promise<string[]> {
  const spy = spyBinary(dir);
  const files: Files = tuneProject(MISSING_CLASS);
  change?.(files);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), rel === 'skillprobe.config.yaml' ? `agentBinary: ${spy.path}\n${text}` : text);
  }
  const r = await runInProcess(args, { cwd: dir });
  expect(r.exitCode, r.stderr).toBe(2);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(existsSync(spy.marker)).toBe(false);
  expect(existsSync(join(dir, 'transcripts')) ? readdirSync(join(dir, 'transcripts')) : []).toEqual([]);
  return r.stderr.split('\n').filter((l) => l.trim() !== '');
}
