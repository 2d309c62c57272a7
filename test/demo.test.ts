import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, ROOT, runCli } from './helpers.js';
import type { Results } from '../src/run/schema.js';
import { loadProfile, type Profile } from '../src/sim/profile.js';
import type { Comparison } from '../src/verdict/comparison.js';

/**
 * `npm run demo` as a newcomer runs it (without the build): the repo's example suite through the real CLI against
 * the simulator. Its report must show every kind of finding the product makes, so the demo stays worth watching.
 */
const out = mkdtempSync(join(tmpdir(), 'sp-demo-'));
const demoRun = () => join(out, 'demo', readdirSync(join(out, 'demo'))[0]!);
afterAll(() => cleanup(out));

describe('the demo', () => {
  let results: Results;
  let stdout: string;
  let exitCode: number | undefined;

  beforeAll(async () => {
    const r = await runCli(['run', '--sim', 'sim/demo.profile.yaml', '--no-gate', '--transcripts', join(out, 'demo')], { cwd: ROOT, timeoutMs: 600_000 });
    exitCode = r.exitCode;
    stdout = r.stdout;
    results = JSON.parse(readFileSync(join(demoRun(), 'results.json'), 'utf8')) as Results;
  }, 600_000);

  it('exits 0 (gate off) and says what the gate would have said', () => {
    expect(exitCode).toBe(0);
    expect(stdout).toMatch(/gate off \(--no-gate\): the verdicts' exit code would be 1/);
  });

  it('stays small: about a hundred trials', () => {
    expect(results.outcomes.length).toBeLessThanOrEqual(130);
  });

  it('decides every case by its sequential design, PASS and FAIL, none left INCONCLUSIVE, each with its adjusted rate', () => {
    const verdicts = results.verdicts.map((v) => v.verdict);
    expect(verdicts).toContain('PASS');
    expect(verdicts).toContain('FAIL');
    expect(verdicts.filter((v) => v === 'INCONCLUSIVE')).toHaveLength(0);
    for (const v of results.verdicts) {
      expect(v.mode).toBe('sequential');
      expect(v.decidedAt).toBeLessThanOrEqual(v.design!.maxTrials);
      expect(v.design!.alpha).toBeLessThanOrEqual(v.params.alpha);
      expect(v.design!.beta).toBeLessThanOrEqual(v.params.beta);
      expect(v.estimate!.lower).toBeLessThanOrEqual(v.estimate!.rate);
      expect(v.estimate!.rate).toBeLessThanOrEqual(v.estimate!.upper);
    }
  });

  it('shows a sibling stealing a case, in the confusion matrix', () => {
    const m = results.summary.confusion;
    const notMembers = ['none', 'multiple', 'other'];
    const stolen = m.rows.filter((row) => row !== 'none').flatMap((row) => m.columns.filter((col) => col !== row && !notMembers.includes(col) && m.cells[row]![col]!.successes > 0));
    expect(stolen.length).toBeGreaterThan(0);
  });

  it('shows a plan failure: the expected skill fired, the plan was wrong', () => {
    expect(results.outcomes.some((o) => o.arm === 'skill' && o.fired === 'expected' && o.plan?.pass === false)).toBe(true);
  });

  it('shows an ablation difference that McNemar’s test calls significant', () => {
    expect(results.summary.ablation.some((a) => a.difference.diff > 0 && a.pValue < 0.05)).toBe(true);
  });
});

/** The demo profile after a model update that broke routing: every rule keeps half its skill-calling mass. */
function halvedRouting(demo: Profile): Profile {
  const answer = 'Here is how I would go about that, in plain text: no tool needed.';
  return {
    ...demo,
    name: 'demo-halved-routing',
    rules: demo.rules.map((r) => {
      const moved = r.do.filter((d) => d.skill !== undefined).reduce((sum, d) => sum + d.p / 2, 0);
      const kept = r.do.map((d) => (d.skill !== undefined ? { ...d, p: d.p / 2 } : d));
      return { ...r, do: moved > 0 ? [...kept, { p: Math.round(moved * 1000) / 1000, answer }] : kept };
    }),
  };
}

/**
 * The canary on the runs users already make: the demo (its default sequential design) as the base, and the same
 * suite through the real CLI against the halved profile. No case is significant alone at six trials, and the
 * suite-level test sees the regression with no extra trial.
 */
describe('the demo as a canary base', () => {
  const halvedProfile = join(ROOT, 'test/fixtures/sim/demo-halved.profile.yaml');
  let halvedRun: string;

  beforeAll(async () => {
    const r = await runCli(['run', '--sim', halvedProfile, '--no-gate', '--reporter', 'none', '--transcripts', join(out, 'halved')], { cwd: ROOT, timeoutMs: 600_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    halvedRun = join(out, 'halved', readdirSync(join(out, 'halved'))[0]!);
  }, 600_000);

  it('the halved profile is the demo profile with half of every rule\'s skill-calling mass, and nothing else', () => {
    const [demo, halved] = [loadProfile(join(ROOT, 'sim/demo.profile.yaml')), loadProfile(halvedProfile)];
    expect(halved).toEqual(halvedRouting(demo));
  });

  it('compare demo halved: the suite REGRESSED, named, exit 1', async () => {
    const r = await runCli(['compare', demoRun(), halvedRun], { cwd: ROOT });
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^skillprobe compare · suite REGRESSED · /);
    expect(r.stdout).toMatch(/SUITE · REGRESSED · the cases' pass rates dropped across the suite: combined p <?0\.\d+ ≤ 0\.05 over 11\s+cases/);
    expect(r.stdout).toMatch(/trigger recall\s+-0\.\d\d \[-0\.\d\d, -0\.\d\d\]/);
    // Every skill-arm row was tested under both runs' designs.
    const json = JSON.parse((await runCli(['compare', demoRun(), halvedRun, '--reporter', 'json'], { cwd: ROOT })).stdout) as Comparison;
    expect(json.cases.filter((c) => c.arm === 'skill').every((c) => c.method === 'design')).toBe(true);
    expect(json.suite.rates.passRate.hi).toBeLessThan(0);
  });

  it('compare demo demo: nothing moved, exit 0', async () => {
    const r = await runCli(['compare', demoRun(), demoRun()], { cwd: ROOT });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^skillprobe compare · suite UNCHANGED · /);
  });
});

