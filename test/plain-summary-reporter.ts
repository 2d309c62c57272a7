import { writeSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

/** Ends the run with one plain line, `N passed, N failed, N skipped`, that any log reader understands. */
export default class PlainSummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const m of modules) {
      let failedHere = 0;
      for (const t of m.children.allTests()) {
        const state = t.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failedHere++;
        else skipped++;
      }
      // A file that failed with none of its tests failing: it did not load, or a hook of the file (its setup's too) threw.
      failed += failedHere || (m.state() === 'failed' ? 1 : 0);
    }
    // Written at exit, after every other reporter's summary, so it is the closing line.
    process.once('exit', () => writeSync(1, `\n${passed} passed, ${failed} failed, ${skipped} skipped\n`));
  }
}
