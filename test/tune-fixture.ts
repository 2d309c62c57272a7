import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT, type Files } from './helpers.js';

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
