import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT } from '../src/run/exit-codes.js';
import type { AgentRuns } from '../src/run/schema.js';
import { cleanup, ROOT, runCli } from './helpers.js';
import { resultsOf } from './e2e-scenarios.js';

/**
 * `run --context lab,field` through the real pinned Claude Code against the simulator, on examples/field: one folder
 * holding a run per context, the lab→field difference of each case, and what the report advises for the case the
 * model does by hand in the field. Two cases, five trials each (the fewest at which the by-hand case's drop is significant), draws pinned.
 */
describe('run --context lab,field (Claude Code, simulator, examples/field)', () => {
  const transcripts = mkdtempSync(join(tmpdir(), 'sp-labfield-'));
  afterAll(() => cleanup(transcripts));
  const example = join(ROOT, 'examples', 'field');

  it('runs the suite in each context and reports them side by side', async () => {
    const args = ['--sim', 'sim.yaml', '--draw-seed', '5', '--trials', '5', '--grep', 'chart-sales|slides', '--transcripts', transcripts];
    const run = await runCli(['run', '--context', 'lab,field', ...args], { cwd: example, timeoutMs: 300_000 });
    // Five trials cannot tell the field's 1 of 5 from the threshold (INCONCLUSIVE, exit 3); the difference is clear.
    expect(run.exitCode, run.stderr).toBe(EXIT.inconclusive);
    const dir = /run folder: (\S+) \(agents\.json names each context's run folder\)/.exec(run.stdout)?.[1];
    expect(dir, run.stdout).toBeDefined();
    const parent = join(example, dir!);
    const record = JSON.parse(readFileSync(join(parent, 'agents.json'), 'utf8')) as AgentRuns;
    expect(record).toMatchObject({ by: 'context', planned: ['lab', 'field'] });
    expect(record.agents.map((a) => [a.id, a.status])).toEqual([
      ['lab', 'completed'],
      ['field', 'completed'],
    ]);
    const chart = (id: string) =>
      resultsOf(join(parent, record.agents.find((a) => a.id === id)!.dir)).summary.cases.find((c) => c.caseId === 'chart-sales')!;
    expect(chart('lab').rate).toMatchObject({ successes: 5, n: 5 });
    const field = chart('field');
    // Each of the field's failures is the model writing the chart itself, refused before it ran.
    expect(field.fired.self).toBe(5 - field.rate.successes);
    expect(field.rate.successes).toBe(1);

    const out = run.stdout.replace(/\s+/g, ' ');
    expect(out).toContain('═══ context lab · run folder');
    expect(out).toContain('═══ context field · run folder');
    expect(out).toMatch(
      /LAB → FIELD · 1 case significantly worse in the field, largest drop first chart-sales: 5\/5 1\.00 in the lab, 1\/5 0\.20 in the field, -0\.80 \[-0\.96, -0\.19\]; the model did it by hand in 4 of 5 field trials: say in csv-chart's description what the skill adds over doing it by hand/,
    );
    expect(out).toMatch(/chart-sales +5\/5 1\.00 +1\/5 0\.20 +-0\.80 +\[-0\.96, -0\.19\] +▼ drop/);
    expect(out).toMatch(/slides +5\/5 1\.00 +5\/5 1\.00 +0\.00 +\[-0\.43, 0\.43\] Each case/);
    // The field run's own block for the case done by hand.
    expect(out).toMatch(/chart-sales · INCONCLUSIVE · expects csv-chart · 1 of 5 passed.* went around the skill in 4 of 5/);

    // The parent folder reports again as it ran.
    const report = await runCli(['report', dir!], { cwd: example });
    expect(report.exitCode, report.stderr).toBe(EXIT.inconclusive);
    expect(report.stdout.replace(/\s+/g, ' ')).toMatch(/LAB → FIELD · 1 case significantly worse in the field/);
  });
});
