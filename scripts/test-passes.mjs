#!/usr/bin/env node
// The test passes, each a process of its own, side by side: `unit` (the in-process files) and `e2e` (the
// *.e2e.test.ts files, which start real agent CLIs) are vitest processes; `checks` (the tests' type-check and the
// format check, scripts/checks.mjs) starts once `unit` has ended. The unit pass runs its files without per-file
// isolation: a worker loads the modules once for all the files it runs, which halves the pass's CPU time (each file
// still gets fresh setup files, and `vi.mock` a fresh copy of what it replaces); vitest can only switch isolation off
// for the whole of one process, hence two. The e2e files wait on their CLIs and deadlines much of the time: the unit
// pass, then the checks, fill the cores meanwhile.
// Prints the first pass's output as it comes and each later one's after it, each vitest pass ending with its slowest
// files, then one line adding up their counts. Fails when any pass fails.
// Usage: node scripts/test-passes.mjs [unit] [e2e] [checks] [vitest arguments, e.g. files]
//   (no pass named: all three, or with files named only the two vitest passes)
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

const VITEST_PASSES = {
  // As many workers from the start as at most: vitest 3.2 ends a non-isolated worker it finds idle, and with it, at
  // times, the file it has just been given ("Terminating worker thread").
  unit: ['--project', 'unit', '--no-isolate', '--maxWorkers=2', '--minWorkers=2'],
  e2e: ['--project', 'e2e'],
};
const PASSES = [...Object.keys(VITEST_PASSES), 'checks'];
/** A pass that starts only once another (when it runs too) has ended. */
const AFTER = { checks: 'unit' };
/** The plain-summary reporter's closing line. */
const SUMMARY = /^(\d+) passed, (\d+) failed, (\d+) skipped$/gm;

/**
 * The lines that end `npm test`, from each pass's name, output and exit code: a note for the checks when they failed,
 * and for each vitest pass that ended without its summary (it crashed, or was stopped: it counts as one failure), then,
 * for more than one vitest pass, their counts added up.
 */
export function closingLines(passes) {
  const notes = passes
    .filter(({ name, exit }) => name === 'checks' && exit !== 0)
    .map(({ exit }) => `the checks failed (exit ${exit}): see their output above`);
  passes = passes.filter(({ name }) => name !== 'checks');
  const counts = passes.map(({ name, output, exit }) => {
    const summary = [...output.matchAll(SUMMARY)].at(-1);
    if (summary) return summary.slice(1).map(Number);
    notes.push(`the ${name} pass ended without its summary (exit ${exit})`);
    return [0, 1, 0];
  });
  if (passes.length < 2) return notes;
  const [passed, failed, skipped] = [0, 1, 2].map((k) => counts.reduce((sum, c) => sum + c[k], 0));
  return [...notes, '', `all passes (${passes.map((p) => p.name).join(', ')}):`, `${passed} passed, ${failed} failed, ${skipped} skipped`];
}

async function main() {
  const args = process.argv.slice(2);
  const namedCount = args.findIndex((a) => !PASSES.includes(a));
  const named = namedCount === -1 ? args : args.slice(0, namedCount);
  const vitestArgs = args.slice(named.length);
  const everyPass = vitestArgs.length ? Object.keys(VITEST_PASSES) : PASSES;
  // In the order their output is shown: the checks end before the e2e pass does.
  const passes = PASSES.filter((pass) => (named.length ? named : everyPass).includes(pass)).sort((a, b) => (a === 'e2e') - (b === 'e2e'));

  const options = {
    preferLocal: true,
    reject: false,
    all: true,
    buffer: false,
    // Piped, vitest would drop its colours; a terminal keeps them.
    env: process.stdout.isTTY ? { FORCE_COLOR: '1' } : {},
  };
  const start = (pass) =>
    pass === 'checks'
      ? execa('node', ['scripts/checks.mjs'], options)
      : // Files named on the command line may all belong to the other pass.
        execa('vitest', ['run', ...VITEST_PASSES[pass], ...(vitestArgs.length ? ['--passWithNoTests'] : []), ...vitestArgs], options);
  const children = new Set();
  let stopped;
  for (const signal of ['SIGINT', 'SIGTERM'])
    process.on(signal, () => {
      stopped = signal;
      children.forEach((child) => child.kill(signal));
    });

  // Each pass's output waits in its buffer until the passes before it have ended, then flows straight through.
  const outputs = passes.map(() => ({ chunks: [], text: '', ended: false }));
  let shown = 0;
  const showReady = () => {
    while (shown < passes.length) {
      const output = outputs[shown];
      for (const chunk of output.chunks.splice(0)) process.stdout.write(chunk);
      if (!output.ended) return;
      shown++;
    }
  };
  const done = {};
  const results = await Promise.all(
    passes.map(
      (pass, i) =>
        (done[pass] = (async () => {
          if (done[AFTER[pass]]) await done[AFTER[pass]];
          // A stop before it started: nothing to run, and it did not pass.
          const run = stopped ? undefined : start(pass);
          if (run) {
            children.add(run);
            run.all.setEncoding('utf8');
            for await (const chunk of run.all) {
              outputs[i].chunks.push(chunk);
              outputs[i].text += chunk;
              showReady();
            }
          }
          const result = run ? await run : { exitCode: undefined, signal: stopped };
          outputs[i].ended = true;
          showReady();
          return result;
        })()),
    ),
  );

  const closing = closingLines(
    passes.map((name, i) => ({ name, output: outputs[i].text, exit: results[i].exitCode ?? results[i].signal })),
  );
  if (closing.length) console.log(closing.join('\n'));
  process.exitCode = results.every((r) => r.exitCode === 0) ? 0 : 1;
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
