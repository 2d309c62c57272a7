import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pairContexts, type ComparedFolder } from '../src/runner/context-pairs.js';
import { EXIT } from '../src/run/exit-codes.js';
import type { AgentRuns } from '../src/run/schema.js';
import { writeAgentRuns } from '../src/run/store.js';
import { InputError } from '../src/util/input-error.js';
import type { Comparison } from '../src/verdict/comparison.js';
import { cleanup, runInProcess } from './helpers.js';
import { labFieldRecord, storeSyntheticRun, syntheticRun, type CaseTrials } from './run-fixtures.js';

const parent = (dir: string, record: AgentRuns): ComparedFolder => ({ dir, record });

describe('pairContexts: two folders named to compare, lab with lab and field with field', () => {
  it('two plain runs are no lab,field comparison', () => {
    expect(pairContexts({ dir: 'a', contexts: ['lab'] }, { dir: 'b', contexts: ['field'] })).toBeUndefined();
  });

  it.each<[string, AgentRuns, AgentRuns, unknown]>([
    [
      'both contexts in both',
      labFieldRecord('a', ['lab', 'field']),
      labFieldRecord('b', ['lab', 'field']),
      {
        pairs: [
          { context: 'lab', base: join('A', 'a-lab'), candidate: join('B', 'b-lab') },
          { context: 'field', base: join('A', 'a-field'), candidate: join('B', 'b-field') },
        ],
        missing: [],
      },
    ],
    [
      "by context, in the base's order, whatever the candidate's",
      labFieldRecord('a', ['lab', 'field']),
      labFieldRecord('b', ['field', 'lab'], ['field', 'lab']),
      {
        pairs: [
          { context: 'lab', base: join('A', 'a-lab'), candidate: join('B', 'b-lab') },
          { context: 'field', base: join('A', 'a-field'), candidate: join('B', 'b-field') },
        ],
        missing: [],
      },
    ],
    [
      'a context the candidate never started is missing, named',
      labFieldRecord('a', ['lab', 'field']),
      labFieldRecord('b', ['lab']),
      {
        pairs: [{ context: 'lab', base: join('A', 'a-lab'), candidate: join('B', 'b-lab') }],
        missing: [{ context: 'field', why: 'B stopped before its field run started' }],
      },
    ],
  ])('%s', (_name, a, b, expected) => {
    expect(pairContexts(parent('A', a), parent('B', b))).toEqual(expected);
  });

  it.each<[string, ComparedFolder, ComparedFolder, { what: string; todo: string }]>([
    [
      'a field run as the candidate: the field run in the folder named',
      parent('A', labFieldRecord('a', ['lab', 'field'])),
      { dir: 'one', contexts: ['field'] },
      {
        what: 'A holds one run per context (lab, field), and the candidate is one run in the field',
        todo: `compare it with the field run: \`skillprobe compare ${join('A', 'a-field')} one\``,
      },
    ],
    [
      'a lab run as the base: the arguments keep their order',
      { dir: 'one', contexts: ['lab'] },
      parent('B', labFieldRecord('b', ['lab', 'field'])),
      {
        what: 'B holds one run per context (lab, field), and the base is one run in the lab',
        todo: `compare it with the lab run: \`skillprobe compare one ${join('B', 'b-lab')}\``,
      },
    ],
    [
      'a run whose cases ran in both: each run in the folder named',
      parent('A', labFieldRecord('a', ['lab', 'field'])),
      { dir: 'one', contexts: ['lab', 'field'] },
      {
        what: 'A holds one run per context (lab, field), and the candidate is one run',
        todo: `compare one run with one of ${join('A', 'a-lab')} or ${join('A', 'a-field')}, or two lab,field folders`,
      },
    ],
    [
      'a run of several agents',
      parent('A', labFieldRecord('a', ['lab', 'field'])),
      { dir: 'agents', record: { ...labFieldRecord('x', []), by: undefined } },
      {
        what: 'A holds one run per context (lab, field), and the candidate holds one run per agent',
        todo: `compare one run with one of ${join('A', 'a-lab')} or ${join('A', 'a-field')}, or two lab,field folders`,
      },
    ],
  ])('against %s is refused', (_name, a, b, problem) => {
    expect(() => pairContexts(a, b)).toThrow(InputError);
    try {
      pairContexts(a, b);
    } catch (e) {
      expect((e as InputError).problems).toEqual([{ file: b.record?.by === 'context' ? a.dir : b.dir, ...problem }]);
    }
  });
});

describe('compare of two lab,field folders', () => {
  const root = mkdtempSync(join(tmpdir(), 'sp-labfield-compare-'));
  afterAll(() => cleanup(root));
  /**
   * A lab,field folder of stored runs, each context's cases and trials. Both are stored as lab runs: a field trial's
   * transcript must carry the field's evidence to grade, and pairing reads agents.json, never a run's context.
   */
  const store = async (runId: string, lab: Record<string, CaseTrials>, field: Record<string, CaseTrials>) => {
    const dir = join(root, runId);
    await storeSyntheticRun(dir, `${runId}-lab`, syntheticRun(lab));
    await storeSyntheticRun(dir, `${runId}-field`, syntheticRun(field));
    await writeAgentRuns(dir, labFieldRecord(runId, ['lab', 'field']));
    return dir;
  };
  const all = (passes: number) => ({ chart: { passes, n: 30 }, slides: { passes: 30, n: 30 } });
  const compare = (...args: string[]) => runInProcess(['compare', ...args], { cwd: root });

  it('compares each context as compare compares its two runs, one suite line each, exit by the worst', async () => {
    const [before, after] = [await store('before', all(30), all(30)), await store('after', all(30), all(10))];
    const r = await compare(before, after);
    expect(r.exitCode, r.stderr).toBe(EXIT.fail);
    const text = r.stdout.replace(/\s+/g, ' ');
    expect(text).toContain(`═══ context lab · base ${join(before, 'before-lab')} · candidate ${join(after, 'after-lab')}`);
    expect(text).toContain(`═══ context field · base ${join(before, 'before-field')} · candidate ${join(after, 'after-field')}`);
    expect(r.stdout.match(/^skillprobe compare · suite \w+/gm)).toEqual([
      'skillprobe compare · suite UNCHANGED',
      'skillprobe compare · suite REGRESSED',
    ]);

    // Each context's part is exactly what compare gives its two runs.
    const json = await compare(before, after, '--json');
    expect(json.exitCode).toBe(EXIT.fail);
    const { contexts, missing } = JSON.parse(json.stdout) as { contexts: { context: string; comparison: Comparison }[]; missing: [] };
    expect(missing).toEqual([]);
    for (const { context, comparison } of contexts) {
      const alone = await compare(join(before, `before-${context}`), join(after, `after-${context}`), '--json');
      expect(comparison).toEqual(JSON.parse(alone.stdout));
      expect(comparison.exitCode).toBe(alone.exitCode);
    }
    expect(contexts.map((c) => [c.context, c.comparison.cases.find((x) => x.caseId === 'chart')!.change])).toEqual([
      ['lab', 'UNCHANGED'],
      ['field', 'REGRESSED'],
    ]);
  });

  it('unchanged in both: exit 0', async () => {
    const [a, b] = [await store('a0', all(30), all(30)), await store('b0', all(30), all(30))];
    expect((await compare(a, b)).exitCode).toBe(EXIT.pass);
  });

  it('a context one folder never ran is missing data (exit 4), the other compared', async () => {
    const [a, b] = [await store('a1', all(30), all(30)), await store('b1', all(30), all(30))];
    await writeAgentRuns(b, labFieldRecord('b1', ['lab']));
    const r = await compare(a, b);
    expect(r.exitCode).toBe(EXIT.error);
    expect(r.stdout).toContain('context field: not compared, ');
    expect(r.stderr).toContain(`missing data: context field not compared, ${b} stopped before its field run started`);
  });

  it('a reporter with no lab,field comparison is refused before anything is written (exit 2)', async () => {
    const [a, b] = [await store('a2', all(30), all(30)), await store('b2', all(30), all(30))];
    const r = await compare(a, b, '--reporter', 'junit');
    expect(r.exitCode).toBe(EXIT.usage);
    expect(r.stderr).toMatch(/--reporter: the junit reporter has no lab,field comparison report — use terminal or json/);
    expect(r.stdout).toBe('');
  });

  it('a lab,field folder against one run: refused, naming the run to compare (exit 2)', async () => {
    const a = await store('a3', all(30), all(30));
    const one = join(a, 'a3-lab');
    const r = await compare(a, one);
    expect(r.exitCode).toBe(EXIT.usage);
    expect(r.stderr).toContain(`compare it with the lab run: \`skillprobe compare ${one} ${one}\``);
  });
});
