import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import pc from 'picocolors';
import { InvalidArgumentError } from 'commander';
import { contextList } from '../src/cli/parsers.js';
import { runOptionsFrom } from '../src/cli/run-options.js';
import type { Context } from '../src/run/config-schema.js';
import { EXIT } from '../src/run/exit-codes.js';
import { contextsToResume } from '../src/runner/agents-run.js';
import { runInProcess } from './helpers.js';
import { contextsSection } from '../src/report/contexts.js';
import type { Results } from '../src/run/schema.js';
import { RunFolderError, RunStore, writeAgentRuns } from '../src/run/store.js';
import { refuseReportersWithout } from '../src/runner/reports.js';
import { InputError } from '../src/util/input-error.js';
import { contextDifference, largestDrops } from '../src/verdict/context-difference.js';

/** Results holding only what the difference reads: each case's skill-arm passes of n (and trials done by hand). */
const results = (cases: [id: string, passes: number, n: number, self?: number][]) =>
  ({
    summary: {
      confidence: 0.95,
      cases: cases.flatMap(([caseId, successes, n, self]) => [
        { caseId, arm: 'skill', expect: 'csv-chart', rate: { successes, n, p: successes / n }, fired: { self } },
        // The ablation arm is no part of the difference.
        { caseId, arm: 'ablation', expect: 'csv-chart', rate: { successes: 0, n, p: 0 }, fired: {} },
      ]),
    },
  }) as unknown as Results;

describe('contextDifference: each case, field − lab, with Newcombe’s interval', () => {
  it.each([
    // case, lab x/n, field x/n, diff, lo, hi (Newcombe's hybrid score interval, computed apart from the product), a drop
    ['all to none', [10, 10], [0, 10], -1, -1, -0.6075, true],
    ['a big drop', [10, 10], [2, 10], -0.8, -0.9433, -0.384, true],
    ['unchanged', [10, 10], [10, 10], 0, -0.2775, 0.2775, false],
    ['a small drop', [9, 10], [7, 10], -0.2, -0.5141, 0.1598, false],
    ['a rise', [5, 10], [10, 10], 0.5, 0.1174, 0.7634, false],
  ] as const)('%s', (_name, [lx, ln], [fx, fn], diff, lo, hi, drop) => {
    const [row] = contextDifference(results([['c', lx, ln]]), results([['c', fx, fn]]), 0.95);
    expect(row).toMatchObject({ caseId: 'c', lab: { successes: lx, n: ln }, field: { successes: fx, n: fn }, drop, byHand: 0 });
    expect(row!.diff).toBeCloseTo(diff, 4);
    expect(row!.lo).toBeCloseTo(lo, 3);
    expect(row!.hi).toBeCloseTo(hi, 3);
  });

  it('keeps the lab run’s order, skips a case only one context measured, and puts the largest drop first', () => {
    const rows = contextDifference(
      results([
        ['a', 10, 10],
        ['b', 10, 10],
        ['lab-only', 10, 10],
        ['c', 10, 10],
      ]),
      results([
        ['c', 0, 10],
        ['a', 3, 10],
        ['b', 10, 10],
      ]),
      0.95,
    );
    expect(rows.map((r) => r.caseId)).toEqual(['a', 'b', 'c']);
    expect(largestDrops(rows).map((r) => r.caseId)).toEqual(['c', 'a']);
  });

  it('a case with no usable trial in one context has no difference and no drop', () => {
    const [row] = contextDifference(results([['c', 0, 0]]), results([['c', 0, 10]]), 0.95);
    expect(row).toMatchObject({ lo: -1, hi: 1, drop: false });
    expect(row!.diff).toBeNaN();
  });
});

describe('the lab → field section', () => {
  const c = pc.createColors(false);
  const section = (lab: Results, field: Results) =>
    contextsSection({ runDir: 'r', runs: [], rows: contextDifference(lab, field, 0.95), confidence: 0.95, missing: [] }, c).join('\n');

  it('heads with the drops, the trials done by hand and what to change', () => {
    const text = section(
      results([
        ['chart', 10, 10],
        ['pdf', 10, 10],
      ]),
      results([
        ['chart', 2, 10, 8],
        ['pdf', 10, 10],
      ]),
    ).replace(/\s+/g, ' ');
    expect(text).toContain('LAB → FIELD · 1 case significantly worse in the field');
    expect(text).toContain(
      "chart: 10/10 1.00 in the lab, 2/10 0.20 in the field, -0.80 [-0.94, -0.38]; the model did it by hand in 8 of 10 field trials: say in csv-chart's description what the skill adds over doing it by hand",
    );
    expect(text).toMatch(/chart +10\/10 1\.00 +2\/10 0\.20 +-0\.80 +\[-0\.94, -0\.38\] +▼ drop/);
    expect(text).toMatch(/pdf +10\/10 1\.00 +10\/10 1\.00 +0\.00 +\[-0\.28, 0\.28\] *(?!▼)/);
  });

  it('says so when no case is worse in the field', () => {
    expect(section(results([['pdf', 9, 10]]), results([['pdf', 8, 10]]))).toContain(
      'LAB → FIELD · no case significantly worse in the field (1 case compared)',
    );
  });
});

describe('run --context', () => {
  it.each([
    ['lab', 'lab'],
    ['field', 'field'],
    ['lab,field', ['lab', 'field']],
    ['field, lab', ['field', 'lab']],
  ])('%s', (v, parsed) => expect(contextList(v)).toEqual(parsed));

  it.each(['', 'lab,', 'lab,lab', 'feild', 'lab,field,lab'])('"%s" is refused in one line', (v) => {
    expect(() => contextList(v)).toThrow(InvalidArgumentError);
    expect(() => contextList(v)).toThrow('--context takes lab, field, or lab,field');
  });

  it('lab,field is taken as the contexts to run, not as the config’s context', () => {
    const o = runOptionsFrom({ context: ['lab', 'field'] } as Parameters<typeof runOptionsFrom>[0]);
    expect(o.contexts).toEqual(['lab', 'field']);
    expect(o.run.overrides.context).toBeUndefined();
    expect(runOptionsFrom({ context: 'field' } as Parameters<typeof runOptionsFrom>[0]).contexts).toBeUndefined();
  });

  it.each([
    [{ lastFailed: true }, '--last-failed'],
    [{ agent: ['claude-code', 'codex'] }, '--agent'],
  ])('with %o is refused, naming %s and what to do', (flags, file) => {
    const run = () => runOptionsFrom({ context: ['lab', 'field'], ...flags } as Parameters<typeof runOptionsFrom>[0]);
    expect(run).toThrow(InputError);
    try {
      run();
    } catch (e) {
      expect((e as InputError).problems[0]).toMatchObject({ file, what: expect.stringContaining('--context lab,field runs two') });
    }
  });
});

describe('run --resume of a lab,field folder', () => {
  const record = (planned: string[]) => ({ version: 6, runId: 'r', startedAt: 'now', by: 'context' as const, planned, agents: [] });

  it.each<[string, { contexts?: Context[]; context?: string }, Context[]]>([
    ['no --context: the contexts it was for', {}, ['lab', 'field']],
    ['the same --context lab,field', { contexts: ['lab', 'field'] }, ['lab', 'field']],
  ])('%s', (_name, named, expected) => expect(contextsToResume(record(['lab', 'field']), named)).toEqual(expected));

  it.each<[string, { contexts?: Context[]; context?: string }, string]>([
    ['one context of it', { context: 'lab' }, 'not lab'],
    ['the contexts in another order', { contexts: ['field', 'lab'] }, 'not field,lab'],
  ])('%s is refused, naming what it resumes', (_name, named, not) => {
    expect(() => contextsToResume(record(['lab', 'field']), named)).toThrow(
      expect.objectContaining({
        problems: [
          {
            file: '--context',
            what: `the run being resumed is for lab,field, ${not}`,
            todo: "leave --context out (it resumes lab and field), or resume one context's run folder in it on its own",
          },
        ],
      }),
    );
  });

  it('--context lab,field --resume of a folder that is not one is refused before anything loads (exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sp-labfield-'));
    try {
      const agents = join(dir, 'agents');
      await writeAgentRuns(agents, { ...record(['claude-code', 'codex']), by: undefined });
      for (const folder of [agents, join(dir, 'one-run')]) {
        const r = await runInProcess(['run', '--context', 'lab,field', '--resume', folder], { cwd: dir });
        expect(r.exitCode).toBe(EXIT.usage);
        expect(r.stderr).toBe(
          `skillprobe: --resume: ${folder} is not a lab,field run folder (its agents.json does not name one run per context) — leave --context lab,field out to resume it as it ran, or name the folder \`run --context lab,field\` printed`,
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a lab,field folder named where one run is read (--baseline, merge)', () => {
  it('is refused naming its runs and what to pass instead', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sp-labfield-'));
    try {
      const entry = (id: string) => ({ id, dir: `r-${id}`, binary: 'claude', model: 'm', status: 'completed' as const });
      await writeAgentRuns(dir, { runId: 'r', startedAt: 'now', by: 'context', agents: [entry('lab'), entry('field')] });
      const opened = RunStore.open(dir);
      await expect(opened).rejects.toBeInstanceOf(RunFolderError);
      await expect(opened).rejects.toMatchObject({
        what: 'holds 2 runs, one per context (lab, field), not one run',
        todo: `name one of them (${join(dir, 'r-lab')}); \`skillprobe report ${dir}\` reports them together`,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a reporter without a lab,field report', () => {
  it('is refused naming the one reporter that has it', () => {
    expect(() => refuseReportersWithout([{ name: 'json' }], 'renderContexts', 'lab,field')).toThrow(
      expect.objectContaining({ problems: [expect.objectContaining({ file: '--reporter', todo: 'use terminal' })] }),
    );
  });
});
