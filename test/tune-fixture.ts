import { skillMd, type Files } from './helpers.js';

/**
 * A family for `tune`: csv-report's description says nothing of Excel workbooks and spreadsheets, a whole class of
 * requests it should take. Under the simulator's router (which scores the descriptions the CLI listed), those requests
 * mostly get no skill; a description naming them would take them. The Excel cases are pinned across the three splits,
 * so the tune learns from some and is judged on others it never saw.
 */
export const MISSING_CLASS = 'Summarise CSV files into a report with totals per column.';
/** The same skill with a description that already names the class. */
export const ALREADY_RIGHT = 'Summarise CSV files, Excel workbooks and xlsx spreadsheets into a report with totals per column or sheet.';

const CASES = [
  ['csv-totals', 'summarise sales.csv into a report with totals', 'csv-report', ''],
  ['csv-columns', 'report the column totals of orders.csv', 'csv-report', ''],
  ['csv-weekly', 'make a weekly report from the visits csv file', 'csv-report', ''],
  ['xl-revenue', 'turn the excel workbook revenue.xlsx into a summary by region', 'csv-report', 'tune'],
  ['xl-pivot', 'pivot the q3.xlsx excel spreadsheet and give the sums', 'csv-report', 'tune'],
  ['xl-budget', 'total the budget.xlsx spreadsheet workbook from excel', 'csv-report', 'tune'],
  ['xl-grades', 'average the grades in the grades.xlsx excel spreadsheet', 'csv-report', 'select'],
  ['xl-payroll', 'sum the payroll.xlsx excel workbook per team', 'csv-report', 'select'],
  ['xl-expenses', 'add up the expenses.xlsx excel workbook', 'csv-report', 'holdout'],
  ['xl-inventory', 'count the stock in the inventory.xlsx excel spreadsheet', 'csv-report', 'holdout'],
  ['xl-hours', 'tally the hours.xlsx spreadsheet workbook by week', 'csv-report', 'holdout'],
  ['pdf-merge', 'merge these two PDF documents into one', 'pdf-tools', ''],
  ['pdf-extract', 'extract the text from contract.pdf', 'pdf-tools', ''],
  ['pdf-rotate', 'rotate page 3 of the scanned PDF document', 'pdf-tools', ''],
  ['deck-outline', 'build a slide deck from this outline', 'slide-deck', ''],
  ['neg-capital', 'what is the capital of Portugal?', 'none', ''],
  ['neg-poem', 'write a short poem about autumn', 'none', ''],
  ['neg-weather', 'will it rain in Lisbon tomorrow?', 'none', ''],
] as const;

export function tuneProject(description: string, config = ''): Files {
  return {
    'skills/csv-report/SKILL.md': skillMd('csv-report', description),
    'skills/pdf-tools/SKILL.md': skillMd('pdf-tools', 'Merge, split, rotate and extract text from PDF documents.'),
    'skills/slide-deck/SKILL.md': skillMd('slide-deck', 'Build slide decks and presentations from an outline.'),
    'cases/tune.yaml': CASES.map(
      ([id, prompt, skill, split]) =>
        `- id: ${id}\n  prompt: "${prompt}"\n  expect: { skill: ${skill} }${split ? `\n  split: ${split}` : ''}\n`,
    ).join(''),
    'sim.yaml': 'name: tune-router\nseed: 7\nrouter: {}\n',
    // Fixed small designs keep the test's trials few; the tune logic is the same under the sequential default.
    'skillprobe.config.yaml': `${config}trials: 2\ndecision:\n  mode: fixed\nconcurrency: 2\n`,
  };
}
