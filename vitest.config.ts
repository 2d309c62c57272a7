import { defineConfig } from 'vitest/config';

/** Test files that start real agent CLIs (~0.5 s of CPU a trial): the e2e pass, timed apart from the in-process one. */
const E2E = 'test/**/*.e2e.test.ts';

export default defineConfig({
  test: {
    // `npm test` runs the two passes as two vitest processes at once (scripts/test-passes.mjs): the e2e files three at
    // a time (one keeps about half a core busy: it waits on CLIs starting, simulated latency and deadlines), the
    // in-process ones two at a time without per-file isolation, then the type and format checks, filling the cores
    // while the e2e files wait. Each pass runs its longest files first (the last run's durations, else the largest file).
    fileParallelism: true,
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/slowest-files-reporter.ts', './test/plain-summary-reporter.ts'],
    // Measures each file's CPU time for the slowest-files report; removes the temp folders shared test modules made for it.
    setupFiles: ['./test/setup/cpu-time.ts', './test/setup/temp-folders.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [E2E],
          // Fails any test here that starts an agent CLI, in process or through a spawned skillprobe.
          setupFiles: ['./test/setup/unit-pass.ts'],
        },
      },
      {
        extends: true,
        test: { name: 'e2e', include: [E2E] },
      },
    ],
  },
});
