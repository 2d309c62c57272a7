import { HOLDOUT_DESIGN_DEFAULTS, plannedPower } from '../src/tune/holdout-design.js';
import { describe, expect, it } from 'vitest';
import { REPORTER_NAMES, REPORTERS } from '../src/report/registry.js';
import type { TuneReportInput } from '../src/report/tune/view.js';
import { tuneRecordSchema } from '../src/run/tune-schema.js';
import { projectsRemovedAfterAll, runInProcess } from './helpers.js';
import { MISSING_CLASS, TUNE_RECORD as RECORD, tuneProject } from './tune-fixture.js';

const INPUT: TuneReportInput = { record: RECORD, dir: 'transcripts/tune-1', diff: '--- a\n+++ b\n-old\n+new\n' };

const render = (name: (typeof REPORTER_NAMES)[number]) => REPORTERS[name]({ colour: false }).renderTune?.(INPUT);

describe('tune reports', () => {
  it.each(['terminal', 'markdown', 'html'] as const)(
    '%s: one row per iteration, the holdout verdict with p, the winner’s curse, the diff, the simulator named',
    (name) => {
      const text = render(name)!;
      // The terminal wraps a long description inside its column: each of its words is there.
      const shown = (d: string) => (name === 'html' ? d.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;') : d);
      for (const it of RECORD.iterations) for (const word of shown(it.description!).split(' ')) expect(text).toContain(word);
      expect(text).toMatch(/IMPROVED/);
      expect(text).toMatch(/p = 0\.004/);
      expect(text).toMatch(/1 pair left out/);
      expect(text).toMatch(/83%.*select.*92%.*holdout/s);
      expect(text).toMatch(/SIMULATOR|SIMULATED/);
      expect(text).toContain('+new');
      expect(text).toContain('refused by lint');
    },
  );

  it('html: self-contained and inert (no script, a description cannot become markup)', () => {
    const page = render('html')!;
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).not.toMatch(/<script|<this>/);
    expect(page).toContain('Use &lt;this&gt; &amp; that');
  });

  it('json: the record as stored, with the diff', () => {
    const json = JSON.parse(render('json')!);
    expect(tuneRecordSchema.parse(json)).toEqual(RECORD);
    expect(json.diff).toBe(INPUT.diff);
  });

  it.each(['terminal', 'markdown', 'html'] as const)(
    '%s: an undecided holdout says the power it had, what would settle it, and the constraints too thin to flag a drop',
    (name) => {
      const sequential = {
        gain: 0.25,
        beta: 0.2,
        cap: 4,
        rounds: 4,
        discordant: 9,
        winnerOnly: 6,
        improveAt: 9,
        ruledOutAt: 2,
        outcome: 'cap' as const,
        power: 0.41,
        settleRounds: 12,
        dropPower: { siblings: 0.9, negatives: 0.38 },
      };
      const record = { ...RECORD, verdict: 'NO SIGNIFICANT CHANGE' as const, holdout: { ...RECORD.holdout!, sequential } };
      const text = REPORTERS[name]({ colour: false }).renderTune!({ ...INPUT, record }).replace(/\s+/g, ' ');
      expect(text).toContain('4 of at most 4 trials per case, sequential: 6 of 9 discordant recall pairs for the winner, cap reached');
      expect(text).toContain('its power for a recall gain of 0.25 was 41%; 12 would give 80%');
      expect(text).toContain('skillprobe tune --resume transcripts/tune-1 --sim sim.yaml --holdout-trials 12');
      expect(text).toContain('negatives: too few holdout pairs (12) to flag a drop of 0.25 (chance at best 38%)');
      expect(text).not.toContain('siblings: too few');
    },
  );

  it('a holdout that ruled the gain out says so', () => {
    const sequential = {
      gain: 0.25,
      beta: 0.2,
      cap: 20,
      rounds: 8,
      discordant: 14,
      winnerOnly: 3,
      improveAt: 12,
      ruledOutAt: 4,
      outcome: 'ruled-out' as const,
      dropPower: { siblings: 0.9, negatives: 0.9 },
    };
    const record = { ...RECORD, verdict: 'NO SIGNIFICANT CHANGE' as const, holdout: { ...RECORD.holdout!, sequential } };
    expect(REPORTERS.terminal({ colour: false }).renderTune!({ ...INPUT, record })).toMatch(
      /NO SIGNIFICANT CHANGE: the holdout rules out a recall gain of 0\.25 or more \(a true gain that size is ruled out with chance at most 20%\)/,
    );
  });

  it('junit has no tune report (tune refuses it before running)', () => {
    expect(render('junit')).toBeUndefined();
  });
});

describe('tune --plan', () => {
  const project = projectsRemovedAfterAll(() => tuneProject(MISSING_CLASS));

  it('prints expected and worst-case trials and cost before anything runs, and spends nothing', async () => {
    const dir = project();
    const r = await runInProcess(
      ['tune', 'csv-report', '--plan', '--price-per-trial', '0.05', '--iterations', '3', '--holdout-trials', '4'],
      { cwd: dir },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    // 8 tune and 5 select cases at 2 fixed trials; 3 proposer calls; 5 holdout cases × 4 trials, twice.
    expect(r.stdout).toMatch(/original on tune \(8 cases\) and select \(5\)\s+1\s+26\s+26\s+\$1\.30/);
    expect(r.stdout).toMatch(/proposer calls\s+3\s+3\s+3/);
    expect(r.stdout).toMatch(/candidates on tune and select\s+3\s+78\s+78/);
    expect(r.stdout).toMatch(/holdout \(5 cases × at most 4 trials\), original and winner\s+2\s+40\s+40/);
    expect(r.stdout).toMatch(/total\s+147\s+147\s+\$7\.35/);
    expect(r.stdout).toContain('360 trials');
  });

  it('states the power of the holdout for the gain the author names, and each constraint too thin to flag a drop of it', async () => {
    const dir = project();
    const r = await runInProcess(['tune', 'csv-report', '--plan', '--holdout-trials', '12', '--gain', '0.5'], { cwd: dir });
    expect(r.exitCode, r.stderr).toBe(0);
    const d = { alpha: 0.05, beta: 0.2, gain: 0.5, halfSpentAt: HOLDOUT_DESIGN_DEFAULTS.halfSpentAt };
    const power = plannedPower(3, d, 12);
    const pc = (x: number) => `${Math.round(100 * x)}%`;
    expect(r.stdout).toContain('holdout: 3 positive cases, up to 12 trials each');
    expect(r.stdout).toContain(
      `power for a recall gain of 0.5: ${pc(power.spread)} if every positive moves by 0.5 around 50%, ${pc(power.oneWay)} if every positive goes from 0% to 50%; false IMPROVED at most 5%.`,
    );
    expect(r.stdout).toMatch(/negatives: 1 case × 12 trials (cannot|can) flag a drop of 0\.5/);
  });
});
