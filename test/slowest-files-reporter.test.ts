import { describe, expect, it } from 'vitest';
import { slowestFilesLines } from './slowest-files-reporter.js';

describe('the slowest-files report every test run prints', () => {
  const files = Array.from({ length: 12 }, (_, i) => ({
    file: `test/f${i}.test.ts`,
    pass: i % 3 ? 'unit' : 'e2e',
    ms: (i + 1) * 1000,
    cpuMs: (i + 1) * 500,
  }));

  it('lists the ten slowest files, slowest first, with their time, CPU time and pass, then each pass with its wall and CPU time', () => {
    expect(
      slowestFilesLines(files, [
        { pass: 'unit', wallMs: 30_000 },
        { pass: 'e2e', wallMs: 22_500 },
      ]),
    ).toEqual([
      '10 slowest test files (time in their worker, CPU time):',
      '  12.0 s  6.0 s CPU  unit  test/f11.test.ts',
      '  11.0 s  5.5 s CPU  unit  test/f10.test.ts',
      '  10.0 s  5.0 s CPU  e2e   test/f9.test.ts',
      '   9.0 s  4.5 s CPU  unit  test/f8.test.ts',
      '   8.0 s  4.0 s CPU  unit  test/f7.test.ts',
      '   7.0 s  3.5 s CPU  e2e   test/f6.test.ts',
      '   6.0 s  3.0 s CPU  unit  test/f5.test.ts',
      '   5.0 s  2.5 s CPU  unit  test/f4.test.ts',
      '   4.0 s  2.0 s CPU  e2e   test/f3.test.ts',
      '   3.0 s  1.5 s CPU  unit  test/f2.test.ts',
      'pass unit: 30.0 s wall, 8 files, 56.0 s in workers, 28.0 s CPU',
      'pass e2e: 22.5 s wall, 4 files, 22.0 s in workers, 11.0 s CPU',
    ]);
  });

  it('lists every file when there are fewer than ten, ties in file order; a file that did not load has no CPU time', () => {
    const two = [
      { file: 'test/b.test.ts', pass: 'unit', ms: 500, cpuMs: 12_300 },
      { file: 'test/a.test.ts', pass: 'unit', ms: 500, cpuMs: undefined },
    ];
    expect(slowestFilesLines(two, [{ pass: 'unit', wallMs: 600 }])).toEqual([
      '2 slowest test files (time in their worker, CPU time):',
      '  0.5 s       ? CPU  unit  test/a.test.ts',
      '  0.5 s  12.3 s CPU  unit  test/b.test.ts',
      'pass unit: 0.6 s wall, 2 files, 1.0 s in workers, 12.3 s CPU',
    ]);
  });
});
