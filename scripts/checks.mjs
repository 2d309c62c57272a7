#!/usr/bin/env node
// Before the tests: the build (unless dist/ was built from the sources as they are, as `npm ci` leaves it), the tests'
// type-check and the format check at once. The first two run on one core each, the format check on what is left, and
// `npm test` has two; none reads what another writes.
// Prints what each said, in order; fails when any does.
import { execa } from 'execa';
import { distIsCurrent } from './build-stamp.mjs';

const build = ['npm', ['run', '--silent', 'build']];
const checks = [...(distIsCurrent(process.cwd()) ? [] : [build]), ['tsc', ['-p', 'tsconfig.test.json']], ['prettier', ['--check', '.']]];
if (checks[0] !== build) console.log('dist/ is built from the sources as they are: no build');
const results = await Promise.all(checks.map(([cmd, args]) => execa(cmd, args, { preferLocal: true, reject: false, all: true })));
for (const [i, r] of results.entries()) {
  if (r.all) console.log(r.all);
  if (r.exitCode !== 0) console.error(`${checks[i][0]} ${checks[i][1].join(' ')} failed (exit ${r.exitCode ?? r.signal})`);
}
process.exitCode = results.some((r) => r.exitCode !== 0) ? 1 : 0;
