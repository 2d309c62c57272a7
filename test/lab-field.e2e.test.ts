import { execa } from 'execa';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT } from '../src/run/exit-codes.js';
import type { AgentRuns, RunManifest } from '../src/run/schema.js';
import type { Comparison } from '../src/verdict/comparison.js';
import { CLI, cleanup, ROOT, runInProcess, testEnv } from './helpers.js';
import { resultsOf } from './e2e-scenarios.js';

/**
 * `run --context lab,field` through the real pinned Claude Code against the simulator, on examples/field: one folder
 * holding a run per context, the lab→field difference of each case, and what the report advises for the case the
 * model does by hand in the field. Two cases, five trials each (the fewest at which the by-hand case's drop is significant), draws pinned.
 * Then the by-hand case alone, stopped by Ctrl-C in the field and resumed, compared with the first context by context.
 */
const readJson = <T>(file: string) => JSON.parse(readFileSync(file, 'utf8')) as T;
/** The trials stored so far in one context's run of a lab,field folder (none before it starts). */
const storedIn = (parent: string | undefined, context: string): number => {
  if (!parent || !existsSync(join(parent, 'agents.json'))) return 0;
  const entry = readJson<AgentRuns>(join(parent, 'agents.json')).agents.find((a) => a.id === context);
  const trials = entry && join(parent, entry.dir, 'trials');
  if (!trials || !existsSync(trials)) return 0;
  return readdirSync(trials, { recursive: true }).filter((f) => String(f).endsWith('.meta.json')).length;
};
/** How each trial of `caseId` ended in one context's run of a lab,field folder, in trial order. */
const trialsOf = (parent: string, context: string, caseId: string) => {
  const entry = readJson<AgentRuns>(join(parent, 'agents.json')).agents.find((a) => a.id === context)!;
  return resultsOf(join(parent, entry.dir))
    .outcomes.filter((o) => o.caseId === caseId)
    .map((o) => [o.arm, o.n, o.status, o.fired, o.passed])
    .sort((a, b) => Number(a[1]) - Number(b[1]));
};

describe('run --context lab,field (Claude Code, simulator, examples/field)', () => {
  const transcripts = mkdtempSync(join(tmpdir(), 'sp-labfield-'));
  afterAll(() => cleanup(transcripts));
  const example = join(ROOT, 'examples', 'field');
  const args = ['--sim', 'sim.yaml', '--draw-seed', '5', '--trials', '5', '--grep', 'chart-sales|slides'];
  /** The stopped and resumed run: the case done by hand alone (its trials are drawn as in the uninterrupted run). */
  const cutArgs = ['--sim', 'sim.yaml', '--draw-seed', '5', '--trials', '5', '--grep', 'chart-sales'];
  /** The uninterrupted lab,field folder the first test makes. */
  let whole: string | undefined;

  it('runs the suite in each context and reports them side by side', async () => {
    // In this process where skillprobe's own process is not the point (the Ctrl-C below stops a spawned one).
    const run = await runInProcess(['run', '--context', 'lab,field', ...args, '--transcripts', join(transcripts, 'whole')], {
      cwd: example,
    });
    // Five trials cannot tell the field's 1 of 5 from the threshold (INCONCLUSIVE, exit 3); the difference is clear.
    expect(run.exitCode, run.stderr).toBe(EXIT.inconclusive);
    const dir = /run folder: (\S+) \(agents\.json names each context's run folder\)/.exec(run.stdout)?.[1];
    expect(dir, run.stdout).toBeDefined();
    const parent = join(example, dir!);
    whole = parent;
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
    const report = await runInProcess(['report', dir!], { cwd: example });
    expect(report.exitCode, report.stderr).toBe(EXIT.inconclusive);
    expect(report.stdout.replace(/\s+/g, ' ')).toMatch(/LAB → FIELD · 1 case significantly worse in the field/);
  }, 600_000);

  it('Ctrl-C in the field, --resume of the folder reaches the uninterrupted answer; compare pairs the contexts', async () => {
    expect(whole, 'the uninterrupted run of the test before').toBeDefined();
    const cutRoot = join(transcripts, 'cut');
    const child = execa('node', [CLI, 'run', '--context', 'lab,field', ...cutArgs, '--transcripts', cutRoot], {
      cwd: example,
      env: testEnv(),
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    const parent = () => (existsSync(cutRoot) ? readdirSync(cutRoot).map((d) => join(cutRoot, d))[0] : undefined);
    const deadline = Date.now() + 240_000;
    // The lab run done, the field's under way: stopped mid-way through its five trials.
    while (storedIn(parent(), 'field') < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGINT');
    const cut = await child;
    expect(cut.exitCode, cut.stderr).toBe(EXIT.interrupted);
    const folder = parent()!;
    expect(readJson<AgentRuns>(join(folder, 'agents.json')).agents.map((a) => [a.id, a.status])).toEqual([
      ['lab', 'completed'],
      ['field', 'interrupted'],
    ]);
    expect(storedIn(folder, 'field')).toBeLessThan(5);
    expect(cut.stdout).toMatch(/interrupted: `skillprobe run --context lab,field --sim sim\.yaml .*--resume \S+` resumes the stopped run/);

    const resumed = await runInProcess(['run', ...cutArgs, '--resume', folder], { cwd: example });
    // Alone (no correction across cases), the field's 1 of 5 is below the threshold: FAIL.
    expect(resumed.exitCode, resumed.stderr).toBe(EXIT.fail);
    expect(resumed.stdout).toContain('context lab: completed before, kept (1 of 2)');
    expect(resumed.stdout).toContain('context field: resuming its run (2 of 2)');
    expect(resumed.stdout.replace(/\s+/g, ' ')).toMatch(/LAB → FIELD · 1 case significantly worse in the field/);
    expect(readdirSync(cutRoot)).toHaveLength(1);
    // Every trial as the uninterrupted run's: none lost, none run twice, each drawn alike.
    for (const context of ['lab', 'field']) {
      expect(trialsOf(folder, context, 'chart-sales')).toHaveLength(5);
      expect(trialsOf(folder, context, 'chart-sales')).toEqual(trialsOf(whole!, context, 'chart-sales'));
    }

    // The two folders compared context by context: the same trials of the case they share, so it moved in neither.
    const compared = await runInProcess(['compare', whole!, folder, '--json'], { cwd: example });
    expect(compared.exitCode, compared.stderr).not.toBe(EXIT.usage);
    const { contexts } = JSON.parse(compared.stdout) as { contexts: { context: string; comparison: Comparison }[] };
    expect(contexts.map((c) => c.context)).toEqual(['lab', 'field']);
    for (const { comparison } of contexts) expect(comparison.cases.map((c) => c.change)).not.toContain('REGRESSED');
  }, 600_000);

  it("--baseline of a lab,field folder: each context's canary runs against the same context's base", async () => {
    expect(whole, 'the uninterrupted run of the first test').toBeDefined();
    const canaryArgs = ['--sim', 'sim.yaml', '--draw-seed', '5', '--grep', 'chart-sales', '--mode', 'sequential', '--max-trials', '3'];
    const canaryRoot = join(transcripts, 'canary');
    const run = await runInProcess(['run', '--context', 'lab,field', ...canaryArgs, '--baseline', whole!, '--transcripts', canaryRoot], {
      cwd: example,
    });
    expect(run.stderr).not.toMatch(/internal error/);
    expect([EXIT.pass, EXIT.fail, EXIT.inconclusive]).toContain(run.exitCode);
    const folder = join(canaryRoot, readdirSync(canaryRoot)[0]!);
    const record = readJson<AgentRuns>(join(folder, 'agents.json'));
    expect(record).toMatchObject({ by: 'context', planned: ['lab', 'field'] });
    const baseRecord = readJson<AgentRuns>(join(whole!, 'agents.json'));
    for (const context of ['lab', 'field']) {
      const manifest = readJson<RunManifest>(join(folder, record.agents.find((a) => a.id === context)!.dir, 'run.json'));
      expect(manifest.canary?.base.dir).toBe(join(whole!, baseRecord.agents.find((a) => a.id === context)!.dir));
    }
    const out = run.stdout.replace(/\s+/g, ' ');
    expect(out).toMatch(/═══ context lab · base \S+-lab · candidate \S+-lab/);
    expect(out).toMatch(/═══ context field · base \S+-field · candidate \S+-field/);
    expect(run.stdout.match(/^skillprobe compare · suite/gm)).toHaveLength(2);
  }, 600_000);
});
