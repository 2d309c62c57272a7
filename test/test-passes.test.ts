import { describe, expect, it } from 'vitest';
import { closingLines } from '../scripts/test-passes.mjs';

// `npm test` runs its passes as vitest processes of their own; its last line adds up their plain summaries.
const pass = (name: string, output: string, exit: number | string = 0) => ({ name, output, exit });

describe("npm test's closing lines", () => {
  it('adds up the passes, each from its last summary line', () => {
    const unit = pass('unit', '1 passed, 0 failed, 0 skipped\n ✓ a test printed that\n\n3 passed, 1 failed, 2 skipped\n', 1);
    expect(closingLines([unit, pass('e2e', '\n10 passed, 0 failed, 0 skipped\n')])).toEqual([
      '',
      'all passes (unit, e2e):',
      '13 passed, 1 failed, 2 skipped',
    ]);
  });

  it('counts a pass that ended without its summary as a failure, and says so', () => {
    expect(closingLines([pass('unit', '\n5 passed, 0 failed, 0 skipped\n'), pass('e2e', 'RUN v3\n', 130)])).toEqual([
      'the e2e pass ended without its summary (exit 130)',
      '',
      'all passes (unit, e2e):',
      '5 passed, 1 failed, 0 skipped',
    ]);
  });

  it('counts the checks in no sum, and names them when they failed', () => {
    const passes = [pass('unit', '\n5 passed, 0 failed, 0 skipped\n'), pass('e2e', '\n2 passed, 0 failed, 0 skipped\n')];
    expect(closingLines([...passes, pass('checks', 'checks passed\n')])).toEqual([
      '',
      'all passes (unit, e2e):',
      '7 passed, 0 failed, 0 skipped',
    ]);
    expect(closingLines([pass('checks', 'tsc failed\n', 1), ...passes])).toEqual([
      'the checks failed (exit 1): see their output above',
      '',
      'all passes (unit, e2e):',
      '7 passed, 0 failed, 0 skipped',
    ]);
    expect(closingLines([pass('unit', '\n5 passed, 0 failed, 0 skipped\n'), pass('checks', '', 'SIGINT')])).toEqual([
      'the checks failed (exit SIGINT): see their output above',
    ]);
  });

  it('adds nothing to one pass but a missing summary', () => {
    expect(closingLines([pass('unit', '\n5 passed, 0 failed, 0 skipped\n')])).toEqual([]);
    expect(closingLines([pass('unit', '', 1)])).toEqual(['the unit pass ended without its summary (exit 1)']);
  });
});
