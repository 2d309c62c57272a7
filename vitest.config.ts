import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // End-to-end tests spawn the real CLI (~0.5 s of CPU each); two cores, so keep files serial-ish.
    fileParallelism: true,
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/plain-summary-reporter.ts'],
  },
});
