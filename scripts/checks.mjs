#!/usr/bin/env node
// The checks that need no test: the tests' type-check and the format check, at once. `npm test` runs them beside the
// e2e pass once the in-process pass has ended (scripts/test-passes.mjs), in the share of the cores the e2e files leave
// idle while they wait on their CLIs; dist/ is built before either (`build-stamp.mjs build-if-stale`).
// Prints what each said, in order; fails when any does.
import { execa } from 'execa';

const checks = [
  ['tsc', ['-p', 'tsconfig.test.json']],
  ['prettier', ['--check', '.']],
];
const results = await Promise.all(checks.map(([cmd, args]) => execa(cmd, args, { preferLocal: true, reject: false, all: true })));
for (const [i, r] of results.entries()) {
  if (r.all) console.log(r.all);
  if (r.exitCode !== 0) console.error(`${checks[i][0]} ${checks[i][1].join(' ')} failed (exit ${r.exitCode ?? r.signal})`);
}
const passed = results.every((r) => r.exitCode === 0);
if (passed) console.log('checks passed: the tests type-check, every file is formatted');
process.exitCode = passed ? 0 : 1;
