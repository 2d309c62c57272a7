import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fakeRun, storeSyntheticRun, syntheticRun } from './run-fixtures.js';
import { cleanup, runInProcess } from './helpers.js';
import type { Results, RunManifest } from '../src/run/schema.js';

describe('grade and report: durable artifacts, regraded without rerunning anything', () => {
  const root = mkdtempSync(join(tmpdir(), 'sp-regrade-'));
  afterAll(() => cleanup(root));

  it('grade writes results.json from the stored transcripts', async () => {
    const dir = await fakeRun(root);
    const r = await runInProcess(['grade', dir, '--json'], { cwd: root });
    const results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as Results;
    // 2/3 and 1/2 at p0 = 0.9 cannot be told from p1 = 0.8 with α 0.05, β 0.2: both INCONCLUSIVE, exit 3.
    expect(results.verdicts.map((v) => [v.caseId, v.verdict])).toEqual([
      ['pos', 'INCONCLUSIVE'],
      ['neg', 'INCONCLUSIVE'],
    ]);
    expect(r.exitCode).toBe(3);
    expect(results.exitCode).toBe(3);
    expect(JSON.parse(r.stdout)).toEqual(results);
    expect(results.outcomes.map((o) => [o.caseId, o.n, o.passed])).toEqual([
      ['neg', 1, true],
      ['neg', 2, false],
      ['neg', 3, null],
      ['pos', 1, true],
      ['pos', 2, true],
      ['pos', 3, false],
    ]);
    const pos = results.summary.cases.find((c) => c.caseId === 'pos')!;
    expect(pos.rate).toMatchObject({ successes: 2, n: 3 });
    expect(pos.fired).toMatchObject({ expected: 2, sibling: 1, readOnly: 1 });
    expect(results.summary.aggregates.recall).toMatchObject({ successes: 2, n: 3 });
    expect(results.summary.aggregates.falseTriggerRate).toMatchObject({ successes: 1, n: 2 });
    expect(results.summary.confusion.cells['none']!['atl-jira']).toMatchObject({ successes: 1, n: 2 });
  });

  it('regrading with reads kept separate changes the verdict, from the same transcripts', async () => {
    const dir = await fakeRun(join(root, 'b'));
    const manifest = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as RunManifest;
    manifest.config.grading.readTriggers = 'separate';
    writeFileSync(join(dir, 'run.json'), JSON.stringify(manifest));
    await runInProcess(['grade', dir], { cwd: root });
    const results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as Results;
    expect(results.outcomes.find((o) => o.caseId === 'pos' && o.n === 2)!.passed).toBe(false);
  });

  it('report prints the terminal report from the stored results, with no colour off a TTY', async () => {
    const dir = await fakeRun(join(root, 'c'));
    const r = await runInProcess(['report', dir], { cwd: root });
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toMatch(/CASES · skill arm/);
    expect(r.stdout).toMatch(/pos\s+atl-jira\s+INCONCLUSIVE\s+0\.90\s+3\s+0\.67 \[0\.21, 0\.94\]/);
    expect(r.stdout).toMatch(/CONFUSION/);
    expect(r.stdout).toMatch(/trigger recall \(positives\)\s+0\.67/);
    expect(r.stdout).toMatch(/neg\/skill#3: infra_error/);
    expect(r.stdout).not.toMatch(/\u001b\[/);
    // A run without results (e.g. interrupted) is graded in memory: report writes nothing.
    expect(r.stderr).toMatch(/no current results\.json .*graded the stored transcripts in memory/);
    expect(existsSync(join(dir, 'results.json'))).toBe(false);
  });

  it('with no run named, reports the newest run of the transcripts folder, and says which', async () => {
    const project = join(root, 'project');
    const older = await fakeRun(join(project, 'transcripts'));
    renameSync(older, join(project, 'transcripts', '20260101-000000-aaaaaa'));
    await fakeRun(join(project, 'transcripts'));
    const newest = join('transcripts', 'r1');
    const r = await runInProcess(['report'], { cwd: project });
    expect(r.stderr).toContain(`reporting the newest run: ${newest}`);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toMatch(/pos\s+atl-jira\s+INCONCLUSIVE/);
    const none = await runInProcess(['report', '--transcripts', 'nowhere'], { cwd: project });
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toMatch(/^skillprobe: nowhere: holds no run to report — name a run folder/);
  });

  it('refuses a folder that is not a run, exit 2', async () => {
    const r = await runInProcess(['report', root], { cwd: root });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/not a run folder/);
  });
});

describe('report and compare check results.json against the stored trials before it gates', () => {
  const root = mkdtempSync(join(tmpdir(), 'sp-trust-'));
  afterAll(() => cleanup(root));
  let runs = 0;
  /** A base and a candidate of the same numbers: compare says UNCHANGED (exit 0) while both are intact. */
  const pair = async () => {
    const numbers = { a: { passes: 40, n: 40 }, b: { passes: 40, n: 40 } };
    const n = ++runs;
    const base = await storeSyntheticRun(join(root, String(n)), '20261201-000000-base', syntheticRun(numbers));
    const cand = await storeSyntheticRun(join(root, String(n)), '20261201-010000-cand', syntheticRun(numbers));
    return { base, cand };
  };
  const editResults = (dir: string, edit: (r: Results) => void) => {
    const r = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as Results;
    edit(r);
    writeFileSync(join(dir, 'results.json'), JSON.stringify(r));
  };

  it('intact runs: compare exits 0 and report reads results.json as stored', async () => {
    const { base, cand } = await pair();
    const r = await runInProcess(['compare', base, cand], { cwd: root });
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await runInProcess(['report', cand], { cwd: root })).exitCode).toBe(0);
  });

  it.each<[string, (cand: string) => void, RegExp]>([
    [
      'one meta.json deleted',
      (d) => rmSync(join(d, 'trials/a/skill/7.meta.json')),
      /trials\/a\/skill\/7\.jsonl: results\.json counts this trial, but its record is damaged \(transcript without its meta\.json\)/,
    ],
    [
      'every trial deleted',
      (d) => rmSync(join(d, 'trials'), { recursive: true }),
      /trials\/a\/skill\/1\.meta\.json: results\.json counts this trial, but its record is missing/,
    ],
    [
      'a meta.json damaged',
      (d) => writeFileSync(join(d, 'trials/b/skill/3.meta.json'), '{"exitCo'),
      /trials\/b\/skill\/3\.meta\.json: results\.json counts this trial, but its record is damaged/,
    ],
    [
      'a PASS hand-edited to FAIL',
      (d) =>
        editResults(
          d,
          (r) =>
            void Object.assign(
              r.outcomes.find((o) => o.caseId === 'a' && o.n === 2)!,
              { passed: false },
            ),
        ),
      /results\.json: says trial a\/skill\/2 is FAIL, but its stored transcript grades PASS: edited, or written by other graders — run `skillprobe grade \S+` to rewrite/,
    ],
    [
      'results.json written before trials were added',
      (d) => editResults(d, (r) => void (r.outcomes = r.outcomes.filter((o) => o.n < 40))),
      /results\.json: does not count 2 stored trial\(s\), e\.g\. a\/skill\/40: written before they were stored/,
    ],
  ])('%s: exit 2 naming the file, never a verdict from what results.json says', async (_, damage, says) => {
    const { base, cand } = await pair();
    damage(cand);
    for (const args of [
      ['compare', base, cand],
      ['report', cand],
    ]) {
      const r = await runInProcess(args, { cwd: root });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toMatch(says);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stdout).not.toMatch(/REGRESSED|UNCHANGED/);
    }
  });
});
