import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPORTER_NAMES, REPORTERS } from '../src/report/registry.js';
import { cleanup, makeProject, runInProcess, testEnv } from './helpers.js';
import { judgedInput } from './report-inputs.js';
import { fakeRun, storeSyntheticRun, syntheticRun } from './run-fixtures.js';

describe('--reporter NAME[=FILE] on report', () => {
  const root = makeProject({});
  afterAll(() => cleanup(root));
  let run: string;
  const report = async (args: string[], env: Record<string, string> = {}) => {
    run ??= await fakeRun(join(root, 'runs'));
    return runInProcess(['report', run, ...args], { cwd: root, env: testEnv(env) });
  };

  it('every reporter of the registry writes its file in one call; the terminal report still prints, and each file is named', async () => {
    const files = Object.fromEntries(REPORTER_NAMES.map((n) => [n, join(root, 'out', `report.${n}`)]));
    const r = await report(REPORTER_NAMES.map((n) => `--reporter=${n}=${files[n]}`));
    expect(r.stderr).not.toMatch(/could not be/);
    expect(r.stdout).toMatch(/^skillprobe run r1 [^]*\nVERDICTS · /);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('wrote '))).toEqual(REPORTER_NAMES.map((n) => `wrote ${files[n]} (${n})`));
    expect(JSON.parse(readFileSync(files.json!, 'utf8')).runId).toBe('r1');
    expect(readFileSync(files.junit!, 'utf8')).toMatch(/^<\?xml[^]*<testsuites/);
    expect(readFileSync(files.markdown!, 'utf8')).toMatch(/\|\s*case\s*\|/);
    expect(readFileSync(files.html!, 'utf8')).toMatch(/^<!doctype html>/i);
    expect(readFileSync(files.terminal!, 'utf8')).toContain('VERDICTS');
    // Colour only on a terminal: never in a file.
    expect(readFileSync(files.terminal!, 'utf8')).not.toContain('\u001b[');
  });

  it.each<[string, string[], (r: { stdout: string; stderr: string }, file: string) => void]>([
    [
      'a file reporter alone: the terminal report on stdout, then the file named',
      ['--reporter', 'junit=FILE'],
      (r, file) => {
        expect(r.stdout).toMatch(/^skillprobe run r1 [^]*\nVERDICTS · /);
        expect(r.stdout.endsWith(`\nwrote ${file} (junit)`)).toBe(true);
        expect(r.stderr).not.toContain('wrote ');
      },
    ],
    [
      '--json beside a file: stdout holds exactly the JSON document, the file is named on stderr',
      ['--json', '--reporter', 'junit=FILE'],
      (r, file) => {
        expect(JSON.parse(r.stdout).runId).toBe('r1');
        expect(r.stderr.split('\n')).toContain(`wrote ${file} (junit)`);
      },
    ],
    [
      '--reporter none beside a file: nothing on stdout, the file named on stderr',
      ['--reporter', 'none', '--reporter', 'junit=FILE'],
      (r, file) => {
        expect(r.stdout).toBe('');
        expect(r.stderr.split('\n')).toContain(`wrote ${file} (junit)`);
      },
    ],
  ])('%s', async (_, args, check) => {
    const file = join(root, 'out', 'alone.xml');
    const r = await report(args.map((a) => a.replace('FILE', file)));
    expect([0, 1, 3, 4], r.stderr).toContain(r.exitCode);
    expect(readFileSync(file, 'utf8')).toContain('<testsuites');
    check(r, file);
  });

  it.each<[string, string[], RegExp]>([
    ['an unknown reporter', ['--reporter', 'pdf'], /"pdf" is not a reporter; choose one of terminal, json, junit, markdown, html/],
    [
      'two documents on stdout',
      ['--reporter', 'json', '--reporter', 'markdown'],
      /json and markdown would both print to stdout — give all but one a file/,
    ],
    ['two reporters, one file', ['--reporter', 'json=x.out', '--reporter', 'junit=x.out'], /json and junit would both write x\.out/],
    ['a file under a file', ['--reporter', 'junit=notes.txt/junit.xml'], /notes\.txt .*is not a folder/],
    ['an empty file name', ['--reporter', 'junit='], /names no file/],
    ['none with a file', ['--reporter', 'none=x.out'], /--reporter none leaves stdout empty and writes nothing: it takes no file/],
    [
      'none beside a document on stdout',
      ['--reporter', 'none', '--json'],
      /none keeps stdout empty, and json would print there — drop one of them/,
    ],
  ])('%s: exit 2, one clear line', async (_, args, says) => {
    writeFileSync(join(root, 'notes.txt'), 'x');
    const r = await report(args);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(says);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('markdown with no file is appended to the GitHub step summary, after what earlier steps wrote', async () => {
    const summary = join(root, 'step-summary.md');
    writeFileSync(summary, '# earlier step\n');
    const r = await report(['--reporter', 'markdown', '--reporter', 'terminal'], { GITHUB_STEP_SUMMARY: summary });
    const text = readFileSync(summary, 'utf8');
    expect(text.startsWith('# earlier step\n')).toBe(true);
    expect(text).toMatch(/\|\s*case\s*\|/);
    expect(r.stdout).toContain('VERDICTS');
  });

  it("one reporter failing never loses the others' output, and turns a clean exit into 70", async () => {
    // Every verdict PASS (exit 0 on its own); every write to /dev/full fails (no space left), so the markdown step
    // summary cannot be written.
    const passing = await storeSyntheticRun(join(root, 'passing'), '20261201-000000-passes', syntheticRun({ c: { passes: 30, n: 30 } }));
    const clean = await runInProcess(['report', passing], { cwd: root });
    expect(clean.exitCode, clean.stderr).toBe(0);
    const junit = join(root, 'survivor.xml');
    const r = await runInProcess(['report', passing, '--reporter', 'markdown', `--reporter=junit=${junit}`], {
      cwd: root,
      env: testEnv({ GITHUB_STEP_SUMMARY: '/dev/full' }),
    });
    expect(readFileSync(junit, 'utf8')).toContain('<testsuites');
    expect(r.stderr).toMatch(/the markdown report could not be written to \/dev\/full/);
    expect(r.stderr).toMatch(/markdown failed; the verdicts' exit code would be 0/);
    expect(r.exitCode).toBe(70);
  });
});

describe('--reporter json passes the model judge through', () => {
  it("results.json's judge findings and each case's judged items, exactly as stored", () => {
    const input = judgedInput('unstable');
    const shown = JSON.parse(REPORTERS.json({ colour: false }).render(input));
    expect(shown).toEqual(JSON.parse(JSON.stringify(input.results)));
    expect(shown.judge).toMatchObject({
      calibrated: true,
      costUsd: 0.5,
      stability: [{ unstable: false }, { caseId: 'plans-call', unstable: true }],
    });
    expect(shown.summary.cases[0].failures).toMatchObject({
      judgeNo: { trials: 5, example: 1 },
      judged: [
        { item: 'Does it name the project?', no: 0, noVerdict: 0, scored: true },
        { item: 'Does it ask for confirmation before filing?', no: 5, noVerdict: 1, scored: true },
      ],
    });
  });
});

describe('compare and history through the CLI', () => {
  const root = makeProject({});
  afterAll(() => cleanup(root));

  it('a regression exits 1 and every reporter renders the comparison', async () => {
    const base = await storeSyntheticRun(
      join(root, 'runs'),
      '20261201-000000-aaaaaa',
      syntheticRun({ a: { passes: 48, n: 50 }, b: { passes: 20, n: 20 } }),
    );
    const cand = await storeSyntheticRun(
      join(root, 'runs'),
      '20261201-010000-bbbbbb',
      syntheticRun({ a: { passes: 25, n: 50, failedColumn: 'atl-confluence' }, b: { passes: 20, n: 20 } }, { model: 'claude-next' }),
    );
    const out = (n: string) => join(root, `compare.${n}`);
    const r = await runInProcess(
      [
        'compare',
        base,
        cand,
        ...REPORTER_NAMES.filter((n) => n !== 'terminal').map((n) => `--reporter=${n}=${out(n)}`),
        '--reporter',
        'terminal',
      ],
      { cwd: root },
    );
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/a\s.*REGRESSED/);
    expect(r.stdout).toContain('DIFFERENT MODELS');
    expect(r.stdout).toMatch(/ROUTING[^]*atl-confluence/);
    const json = JSON.parse(readFileSync(out('json'), 'utf8'));
    expect(json.cases.find((c: { caseId: string }) => c.caseId === 'a').change).toBe('REGRESSED');
    expect(readFileSync(out('junit'), 'utf8')).toMatch(/<failure[^>]*>/);
    expect(readFileSync(out('markdown'), 'utf8')).toContain('REGRESSED');
    expect(readFileSync(out('html'), 'utf8')).toContain('REGRESSED');

    // The same small run twice rules out no drop of the margin: no regression, and no green gate either (exit 3).
    const same = await runInProcess(['compare', base, base], { cwd: root });
    expect(same.exitCode, same.stderr).toBe(3);
    expect(same.stdout).toMatch(/suite UNDECIDED/);
    expect(same.stdout).not.toMatch(/ REGRESSED\s*$/m);
  });

  it('a candidate whose results and trials are gone is missing data: named, exit 4, no false model change', async () => {
    const base = await storeSyntheticRun(join(root, 'broken'), '20261201-020000-cccccc', syntheticRun({ a: { passes: 48, n: 50 } }));
    const cand = await storeSyntheticRun(join(root, 'broken'), '20261201-030000-dddddd', syntheticRun({ a: { passes: 48, n: 50 } }));
    rmSync(join(cand, 'results.json'));
    rmSync(join(cand, 'trials'), { recursive: true });
    const r = await runInProcess(['compare', base, cand], { cwd: root });
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/missing data: the candidate run has no scored trial of 1 case: a/);
    expect(r.stderr).toMatch(/the comparison is incomplete: finish the runs/);
    expect(r.stdout).not.toContain('DIFFERENT MODELS');
  });

  it('compare and grade with only a file reporter still print the terminal report, and name the file', async () => {
    const base = await storeSyntheticRun(join(root, 'files'), '20261201-000000-aaaaaa', syntheticRun({ a: { passes: 48, n: 50 } }));
    const junit = join(root, 'files', 'junit.xml');
    const compared = await runInProcess(['compare', base, base, `--reporter=junit=${junit}`], { cwd: root });
    expect(compared.exitCode, compared.stderr).toBe(0);
    expect(compared.stdout).toMatch(/^skillprobe compare · suite UNCHANGED · 1 UNCHANGED · exit code 0\n/);
    expect(compared.stdout.endsWith(`\nwrote ${junit} (junit)`)).toBe(true);
    const graded = await runInProcess(['grade', await fakeRun(join(root, 'files')), `--reporter=junit=${junit}`], { cwd: root });
    expect(graded.stdout).toMatch(/^skillprobe run r1 [^]*\nVERDICTS · [^]*\nwrote \S+junit\.xml \(junit\)\nregraded 6 trials → /);
  });

  it('compare names a folder that is not a run: exit 2', async () => {
    const r = await runInProcess(['compare', join(root, 'nope'), join(root, 'nope2')], { cwd: root });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/nope: no such run folder/);
  });

  it('history lists the runs newest first, and one case across them', async () => {
    const r = await runInProcess(['history', '--transcripts', join(root, 'runs')], { cwd: root });
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    const [newer, older] = ['20261201-010000-bbbbbb', '20261201-000000-aaaaaa'].map((id) => lines.findIndex((l) => l.includes(id)));
    expect(newer).toBeGreaterThan(0);
    expect(older).toBeGreaterThan(newer!);
    // Under each run id, who ran it: agent, model and status.
    expect(lines[newer!]).toMatch(/\$0\.70/);
    expect(lines[newer! + 1]).toMatch(/^ {2}claude-code 2\.1\.197 · claude-next · completed/);
    const one = await runInProcess(['history', '--transcripts', join(root, 'runs'), '--case', 'a'], { cwd: root });
    expect(one.stdout).toMatch(/20261201-010000-bbbbbb.*0\.50.*25\/50/);
    expect(one.stdout).toMatch(/20261201-000000-aaaaaa.*0\.96.*48\/50/);
    const missing = await runInProcess(['history', '--transcripts', join(root, 'runs'), '--case', 'zz'], { cwd: root });
    expect(missing.exitCode).toBe(2);
  });
});
