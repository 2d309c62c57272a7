import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT } from '../src/run/exit-codes.js';
import { mutateRecordSchema, type MutateRecord } from '../src/run/mutate-schema.js';
import { CLI, cleanup, processesIn, projectsRemovedAfterAll, runCli, runInProcess, testEnv, until } from './helpers.js';
import { MISSING_CLASS, tuneProject } from './tune-fixture.js';

/**
 * `skillprobe mutate` end to end against the simulator's description router: the mutants × outcome table, the nested
 * run folders `report` reads, then a mutate against a stored unmutated run (`--base`) stopped by Ctrl-C, its resume by
 * kill -9, and resumed to the same records, and one stopped by its cost cap. Every decision of the loop is tested in
 * process (mutate-operators, mutate-input); this file is the wiring, kept to 3 cases × 3 trials a run. The loop is the
 * harness's own whatever the CLI, so it runs through the one that starts cheapest (Codex: about half of Claude Code's
 * CPU a trial); the cost cap through Claude Code, which reports what a trial cost.
 */
const CASES = `- id: csv-totals
  prompt: "summarise sales.csv into a report with totals"
  expect: { skill: csv-report }
- id: csv-columns
  prompt: "report the column totals of orders.csv"
  expect: { skill: csv-report }
- id: neg-capital
  prompt: "what is the capital of Portugal?"
  expect: { skill: none }
`;

/** The tune example cut to three cases, three trials each, run by the agent `config` names: a mutant's run is nine trials. */
const smallProject = (config: string) => ({ ...tuneProject(MISSING_CLASS, config, 3), 'cases/tune.yaml': CASES });

// One draw seed for every mutate: a stopped and resumed mutate must reach the uninterrupted one's records.
const MUTATE = ['mutate', 'csv-report', '--sim', 'sim.yaml', '--draw-seed', '1', '--operator', 'skill-removed,near-synonym'];

const mutateFolders = (project: string) => readdirSync(join(project, 'transcripts')).filter((d) => d.startsWith('mutate-'));
const readRecord = (project: string, folder: string): MutateRecord =>
  mutateRecordSchema.parse(JSON.parse(readFileSync(join(project, 'transcripts', folder, 'mutate.json'), 'utf8')));

/**
 * What a mutant's run decided, without where, when and what it spent (a trial Ctrl-C cut short is run again, and
 * counted twice): a resumed mutate must decide exactly the same.
 */
const decided = (r: MutateRecord) =>
  r.mutants.map((m) => ({
    operator: m.operator,
    status: m.status,
    noticed: m.noticed,
    pValue: m.pValue,
    flipped: m.flipped,
    observed: m.observed,
  }));

/** The uninterrupted mutate: its project, its folder and its record; the later tests reuse all three. */
let uninterrupted: { dir: string; folder: string; record: MutateRecord } | undefined;

describe('mutate through Codex', () => {
  const project = projectsRemovedAfterAll(() => smallProject('agent: codex\n'));

  it('prints the plan, then the mutants × outcome table; each run is a run folder report reads', async () => {
    const dir = project();
    const plan = await runInProcess([...MUTATE, '--plan', '--price-per-trial', '0.01'], { cwd: dir });
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/skill-removed\s+100%/);
    expect(plan.stdout).toMatch(/near-synonym\s+\d+% \(≥0%\)\s+moves cases/);
    expect(plan.stdout).toMatch(/the unmutated family\s+9\s+9/);
    expect(plan.stdout).toMatch(/2 mutants\s+18\s+18/);
    expect(existsSync(join(dir, 'transcripts'))).toBe(false);

    const r = await runCli(MUTATE, { cwd: dir, timeoutMs: 300_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('SIMULATOR');
    const [folder] = mutateFolders(dir);
    const record = readRecord(dir, folder!);
    uninterrupted = { dir, folder: folder!, record };
    expect(record.status).toBe('completed');
    expect(record.trials).toBe(27);
    // Removing the skill leaves nothing to fire its cases: both drop to 0, and the suite notices.
    const [removed, synonym] = record.mutants;
    expect(removed!.observed!.filter((o) => o.caseId.startsWith('csv-')).map((o) => o.to)).toEqual([0, 0]);
    expect(removed!.noticed).toBe(true);
    expect(synonym!.noticed).toBe(false);
    expect(r.stdout).toMatch(/csv-report\s+skill-removed\s+killed\s+100%/);
    expect(r.stdout).toMatch(/csv-report\s+near-synonym\s+survived\s+\d+% \(≥0%\)\s+\d+\s+too few trials/);
    expect(r.stdout).toMatch(/overall\s+1\/2/);

    for (const run of ['original', 'csv-report/skill-removed/run', 'csv-report/near-synonym/run']) {
      const shown = await runInProcess(['report', join('transcripts', folder!, run), '--reporter', 'markdown'], { cwd: dir });
      // The run's own exit: three trials a case leave some verdicts open (3), never a refusal or an error.
      expect([EXIT.pass, EXIT.fail, EXIT.inconclusive], `${run}: ${shown.stderr}`).toContain(shown.exitCode);
      expect(shown.stdout).toContain('csv-totals');
    }
    // compare reads a mutant's run against the unmutated one as the mutate did: the same suite-level REGRESSED.
    const compared = await runInProcess(
      ['compare', join('transcripts', folder!, 'original'), join('transcripts', folder!, 'csv-report/skill-removed/run')],
      { cwd: dir },
    );
    expect(compared.stdout, compared.stderr).toMatch(/REGRESSED/);
    const again = await runInProcess(['report', join('transcripts', folder!), '--reporter', 'markdown'], { cwd: dir });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/\| csv-report \| skill-removed \| killed \|/);
  }, 300_000);

  const roots: string[] = [];
  afterAll(() => cleanup(...roots));

  /** A mutate spawned in the first test's project with a workspace root of its own, as a user would start it. */
  const start = (dir: string, args: string[]) => {
    const workdir = mkdtempSync(join(tmpdir(), 'sp-mutate-ws-'));
    roots.push(workdir);
    const child = execa('node', [CLI, ...args, '--workdir', workdir], {
      cwd: dir,
      env: testEnv(),
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      timeout: 300_000,
    });
    const clean = () => until(() => processesIn(workdir).length === 0 && readdirSync(workdir).length === 0, 10_000);
    return { child, clean };
  };

  it('against the stored unmutated run: Ctrl-C in a mutant exits 130, kill -9 of its resume, no process or workspace left; --resume reaches the same records', async () => {
    expect(uninterrupted, 'the uninterrupted mutate ran first in this file').toBeDefined();
    const dir = uninterrupted!.dir;
    const base = join('transcripts', uninterrupted!.folder, 'original');
    const before = new Set(mutateFolders(dir));
    const first = start(dir, [...MUTATE, '--base', base]);
    const folder = () => mutateFolders(dir).find((f) => !before.has(f));
    const trials = () => {
      const f = folder();
      const at = f && join(dir, 'transcripts', f, 'csv-report/skill-removed/run/trials');
      return at && existsSync(at) ? readdirSync(at).length : 0;
    };
    await until(() => trials() >= 1, 120_000);
    first.child.kill('SIGINT');
    const interrupted = await first.child;
    expect(interrupted.exitCode, interrupted.stderr).toBe(130);
    expect(readRecord(dir, folder()!).status).toBe('interrupted');
    await first.clean();

    // kill -9 once the resume has stored a trial more: nothing is cleaned by it, the watchdog reaps, the record stays.
    const stored = trials();
    const second = start(dir, ['mutate', '--resume', join('transcripts', folder()!), '--sim', 'sim.yaml']);
    await until(() => trials() > stored, 120_000);
    second.child.kill('SIGKILL');
    await second.child;
    await second.clean();

    const last = start(dir, ['mutate', '--resume', join('transcripts', folder()!), '--sim', 'sim.yaml']);
    const resumed = await last.child;
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    await last.clean();
    const record = readRecord(dir, folder()!);
    expect(record.status).toBe('completed');
    // The stored run was the base: no unmutated run here, only the mutants' trials.
    expect(record.base).toMatchObject({ dir: base, given: true });
    expect(existsSync(join(dir, 'transcripts', folder()!, 'original'))).toBe(false);
    expect(decided(record)).toEqual(decided(uninterrupted!.record));
  }, 300_000);

  // Codex reports no cost, so the cap is Claude Code's: a cap below the unmutated run's stops it within a few trials.
  const priced = projectsRemovedAfterAll(() => smallProject(''));

  it('--max-cost below the spend stops it with the cost-capped exit, the record saying so', async () => {
    const dir = priced();
    const capped = start(dir, [...MUTATE, '--max-cost', '0.01']);
    const r = await capped.child;
    expect(r.exitCode, r.stderr).toBe(5);
    await capped.clean();
    const [folder] = mutateFolders(dir);
    const record = readRecord(dir, folder!);
    expect(record.status).toBe('cost_capped');
    expect(record.costUsd).toBeGreaterThanOrEqual(0.01);
    expect(record.mutants.every((m) => m.status === undefined)).toBe(true);
  }, 300_000);
});
