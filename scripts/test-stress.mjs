#!/usr/bin/env node
// The test suite under full CPU load: busy-loop burners on every core (twice over), then the suite N times in a row.
// Usage: npm run test:stress [-- --runs 3 --burners 4]
import { execa } from 'execa';
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' }, burners: { type: 'string' } } });
const runs = Number(values.runs);
const burners = Number(values.burners ?? 2 * availableParallelism());

await execa('npm', ['run', 'build'], { stdio: 'inherit' });
const burning = Array.from({ length: burners }, () => execa('node', ['-e', 'for (;;) {}'], { reject: false }));
const stopBurners = () => burning.forEach((b) => b.kill('SIGKILL'));
process.on('exit', stopBurners);
process.on('SIGINT', () => process.exit(130));
await new Promise((r) => setTimeout(r, 5000)); // let the load average climb before the first run

const rows = [];
try {
  for (let i = 1; i <= runs; i++) {
    const t0 = performance.now();
    const r = await execa('node', ['scripts/test-passes.mjs'], { reject: false, all: true, env: { FORCE_COLOR: '0' } });
    // The last summary line adds up the passes'.
    const summary = [...(r.all ?? '').matchAll(/^(\d+) passed, (\d+) failed, (\d+) skipped$/gm)].at(-1);
    const row = {
      run: i,
      exitCode: r.exitCode,
      passed: Number(summary?.[1] ?? 0),
      failed: Number(summary?.[2] ?? -1),
      skipped: Number(summary?.[3] ?? 0),
      seconds: Math.round((performance.now() - t0) / 1000),
      load1: loadavg()[0].toFixed(1),
    };
    rows.push(row);
    console.log(
      `run ${i}/${runs} with ${burners} CPU burners: exit ${row.exitCode}, ${row.passed} passed, ${row.failed} failed, ${row.skipped} skipped, ${row.seconds} s, load ${row.load1}`,
    );
    if (r.exitCode !== 0)
      console.log(
        (r.all ?? '')
          .split('\n')
          .filter((l) => /FAIL|✗|×|Error/.test(l))
          .slice(0, 40)
          .join('\n'),
      );
  }
} finally {
  stopBurners();
}
const green = rows.filter((r) => r.exitCode === 0 && r.failed === 0).length;
console.log(`\n${green} of ${runs} runs green under load`);
process.exitCode = green === runs ? 0 : 1;
