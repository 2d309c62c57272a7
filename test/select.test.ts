import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Case } from '../src/load/cases.js';
import { lastFailedCases, newestRun, selectCases, selectSuite, type CaseFilters } from '../src/load/select.js';
import type { Verdict } from '../src/run/schema.js';
import { cleanup, makeProject, projectsRemovedAfterAll, runInProcess } from './helpers.js';
import { handMadeManifest, resultsWithVerdicts } from './run-fixtures.js';

const kase = (id: string, prompt: string, tags: string[] = []): Case => ({
  id,
  prompt,
  tags,
  expect: { skill: 'x' },
  exclusive: false,
  source: { file: 'c.yaml', line: 1, at: { id: { line: 1, col: 3 }, prompt: { line: 2, col: 3 } } },
});
const CASES = [
  kase('jira-bug', 'file a bug', ['happy']),
  kase('wiki-page', 'write a page about bugs', ['trap']),
  kase('neg', 'what is jira', ['near-miss']),
];

describe('selecting cases', () => {
  it.each<[string, CaseFilters, string[]]>([
    ['no filter keeps everything', {}, ['jira-bug', 'wiki-page', 'neg']],
    ['grep matches the id', { grep: /^jira/ }, ['jira-bug']],
    ['grep matches the prompt too', { grep: /bug/ }, ['jira-bug', 'wiki-page']],
    ['a tag', { tags: ['trap'] }, ['wiki-page']],
    ['several tags: any of them', { tags: ['trap', 'near-miss'] }, ['wiki-page', 'neg']],
    ['filters combine with AND', { grep: /bug/, tags: ['happy'] }, ['jira-bug']],
    ['ids from an earlier run', { ids: new Set(['neg', 'gone']) }, ['neg']],
    ['nothing matches', { grep: /zzz/ }, []],
  ])('%s', (_, filters, ids) => {
    expect(selectCases(CASES, filters).map((c) => c.id)).toEqual(ids);
  });
});

describe('--last-failed reads the newest run', () => {
  const root = makeProject({});
  afterAll(() => cleanup(root));
  const runs = join(root, 'runs');
  /** A run folder; `verdicts` is its results.json (a raw text when it is one), none when the run was never graded. */
  const run = (id: string, verdicts?: [string, Verdict][] | string) => {
    mkdirSync(join(runs, id), { recursive: true });
    writeFileSync(join(runs, id, 'run.json'), '{}');
    if (verdicts === undefined) return;
    writeFileSync(join(runs, id, 'results.json'), typeof verdicts === 'string' ? verdicts : resultsWithVerdicts(verdicts));
  };

  it('no run yet is an input error', () => {
    expect(newestRun(runs)).toBeUndefined();
    expect(() => lastFailedCases(runs)).toThrow(/--last-failed: no earlier run here — run the suite once first/);
  });

  it('takes FAIL, INCONCLUSIVE and ERROR from the newest run only; folders without run.json are not runs', () => {
    run('20261130-100000-aaaaaa', [
      ['a', 'FAIL'],
      ['b', 'FAIL'],
    ]);
    run('20261130-110000-bbbbbb', [
      ['a', 'PASS'],
      ['b', 'INCONCLUSIVE'],
      ['c', 'ERROR'],
      ['d', 'FAIL'],
    ]);
    mkdirSync(join(runs, 'zz-notes'));
    expect(newestRun(runs)).toBe('20261130-110000-bbbbbb');
    expect(lastFailedCases(runs)).toEqual({ runId: '20261130-110000-bbbbbb', ids: new Set(['b', 'c', 'd']) });
  });

  it.each([
    [
      'a newest run that was never graded',
      undefined,
      /20261130-120000-cccccc: --last-failed: the newest run \S+ has no results\.json.*skillprobe grade/s,
    ],
    ['unreadable results', '{ truncated', /results\.json: --last-failed: results\.json not valid JSON.*skillprobe grade/s],
    ['results without verdicts', '{}', /results\.json: --last-failed: results\.json does not match the run-folder format/],
    [
      'a verdict that is not an object',
      resultsWithVerdicts([['a', 'PASS']]).replace(/"verdicts":\[.*?\],"damaged"/s, '"verdicts":[null],"damaged"'),
      /does not match the run-folder format: at verdicts\.0/,
    ],
    ['results of a newer format', JSON.stringify({ version: 99 }), /newer than this skillprobe reads/],
  ])('%s is an input error that says how to fix it', (_, results, says) => {
    const id = '20261130-120000-cccccc';
    run(id, results);
    expect(newestRun(runs)).toBe(id);
    expect(() => lastFailedCases(runs)).toThrow(says);
    rmSync(join(runs, id), { recursive: true });
  });
});

describe('--last-failed on a resume keeps the cases the resumed run was started on', () => {
  const root = makeProject({});
  afterAll(() => cleanup(root));
  const DECISION = { threshold: 0.9, delta: 0.2, alpha: 0.05, beta: 0.2, minTrials: 5, maxTrials: 20 };
  const suite = { cases: ['a', 'b', 'c'].map((id) => kase(id, `prompt ${id}`)), files: [], hash: '' };

  it('the interrupted run is the newest now; its cases, not its failures so far, are what the resume runs', () => {
    const runs = join(root, 'runs');
    const resumed = join(runs, '20261130-130000-dddddd');
    mkdirSync(resumed, { recursive: true });
    const defs = ['a', 'b'].map((id) => ({ id, expect: 'x', exclusive: false, tags: [], decision: DECISION }));
    writeFileSync(join(resumed, 'run.json'), JSON.stringify(handMadeManifest(defs, 5, { status: 'interrupted' })));
    writeFileSync(
      join(resumed, 'results.json'),
      resultsWithVerdicts([
        ['a', 'PASS'],
        ['b', 'INCONCLUSIVE'],
      ]),
    );
    const ids = (resuming?: string) => selectSuite(suite, { lastFailed: true }, runs, resuming).suite.cases.map((c) => c.id);
    expect(ids()).toEqual(['b']);
    expect(ids(resumed)).toEqual(['a', 'b']);
  });
});

describe('selection flags on the CLI (plan spawns nothing)', () => {
  const project = projectsRemovedAfterAll();
  const casesIn = (stdout: string) => ['pos-alpha', 'neg-weather'].filter((id) => new RegExp(`^${id}\\s`, 'm').test(stdout));

  it('--grep and --tag narrow the suite', async () => {
    const dir = project();
    expect(casesIn((await runInProcess(['plan', '--grep', 'weather'], { cwd: dir })).stdout)).toEqual(['neg-weather']);
    expect(casesIn((await runInProcess(['plan', '--tag', 'happy'], { cwd: dir })).stdout)).toEqual(['pos-alpha']);
    expect(casesIn((await runInProcess(['plan', '--tag', 'happy', '--tag', 'nope'], { cwd: dir })).stdout)).toEqual(['pos-alpha']);
  });

  it.each([
    [['--grep', '(unclosed'], /--grep: invalid regular expression/],
    [['--grep', 'zzz', '--tag', 'happy'], /--grep "zzz" --tag happy: no case matches — loosen the filters/],
    [['--last-failed'], /transcripts: --last-failed: no earlier run here/],
  ])('%j is an input error, exit 2', async (args, says) => {
    const r = await runInProcess(['plan', ...args], { cwd: project() });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(says);
  });

  it('--last-failed runs what did not pass last time, and says so when everything passed', async () => {
    const dir = project();
    const write = (id: string, verdict: Verdict) => {
      mkdirSync(join(dir, 'transcripts', id), { recursive: true });
      writeFileSync(join(dir, 'transcripts', id, 'run.json'), '{}');
      writeFileSync(
        join(dir, 'transcripts', id, 'results.json'),
        resultsWithVerdicts([
          ['pos-alpha', 'PASS'],
          ['neg-weather', verdict],
        ]),
      );
    };
    write('20261130-100000-aaaaaa', 'INCONCLUSIVE');
    expect(casesIn((await runInProcess(['plan', '--last-failed'], { cwd: dir })).stdout)).toEqual(['neg-weather']);
    write('20261130-110000-bbbbbb', 'PASS');
    // No simulator and no credentials: nothing is left to run, so neither is needed to say so.
    const r = await runInProcess(['run', '--last-failed'], { cwd: dir });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/every case passed in run 20261130-110000-bbbbbb; nothing to run/);
    expect(readdirSync(join(dir, 'transcripts'))).toEqual(['20261130-100000-aaaaaa', '20261130-110000-bbbbbb']);
  });
});
