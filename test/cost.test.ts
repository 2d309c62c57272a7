import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { agentNotes } from '../src/commands/reports.js';
import { costBreakdown } from '../src/report/cost.js';
import { REPORTERS } from '../src/report/registry.js';
import { syntheticRun } from './run-fixtures.js';

// a: 18 of 20 pass (INCONCLUSIVE at p0 0.9 with 20 fixed trials), b: 2 of 10 (FAIL), c: 30 of 30 (PASS); each trial $0.01, 500 ms.
const run = syntheticRun({ a: { passes: 18, n: 20 }, b: { passes: 2, n: 10 }, c: { passes: 30, n: 30 } });
const input = { manifest: run.manifest, results: run.results, runDir: 'runs/r1', agentNotes: agentNotes(run.manifest) };

describe('cost: in all, per case, per verdict', () => {
  it("sums the reported costs and the trials' own wall times", () => {
    const cost = costBreakdown(run.results);
    expect(cost.total).toEqual({ trials: 60, costUsd: expect.closeTo(0.6, 10), wallMs: 30_000 });
    expect(cost.byCase.map((k) => [k.caseId, k.trials, k.verdict])).toEqual([
      ['a', 20, run.results.verdicts[0]!.verdict],
      ['b', 10, 'FAIL'],
      ['c', 30, 'PASS'],
    ]);
    // In the verdicts' own order, each verdict once.
    const verdicts = cost.byVerdict.map((v) => v.verdict);
    expect(verdicts).toEqual([...new Set(verdicts)]);
    expect(cost.byVerdict.reduce((s, v) => s + v.trials, 0)).toBe(60);
    expect(cost.byVerdict.find((v) => v.verdict === 'FAIL')?.costUsd).toBeCloseTo(0.1, 10);
  });

  it('is absent when the CLI reported no cost', () => {
    const free = { ...run.results, outcomes: run.results.outcomes.map(({ costUsd: _cost, ...o }) => o) };
    expect(costBreakdown(free).total.costUsd).toBeUndefined();
    expect(REPORTERS.terminal({ colour: false }).render({ ...input, results: free })).not.toContain('COST');
    expect(REPORTERS.markdown({ colour: false }).render({ ...input, results: free })).not.toContain('Cost:');
  });

  it('every report for people shows it: terminal, markdown and html', () => {
    const terminal = stripVTControlCharacters(REPORTERS.terminal({ colour: false }).render(input));
    expect(terminal).toMatch(/COST · \$0\.600 reported by the CLI for 60 trials · 30 s of trial time/);
    expect(terminal).toMatch(/\nFAIL\s+10\s+\$0\.100/);
    const markdown = REPORTERS.markdown({ colour: false }).render(input);
    expect(markdown).toContain('<summary>Cost: $0.600 for 60 trials, 30 s of trial time</summary>');
    expect(markdown).toMatch(/\| c \| PASS \| 30 \| \$0\.300 \| 15 s \|/);
    const page = REPORTERS.html({ colour: false }).render(input);
    expect(page).toMatch(/id="cost"[^]*\$0\.600 for 60 trials/);
  });
});

describe('cost: what the numbers are', () => {
  const terminal = (i: typeof input) => stripVTControlCharacters(REPORTERS.terminal({ colour: false }).render(i));
  const section = (text: string) => text.slice(text.indexOf('COST · '));

  it('the terminal lists the costliest cases apart from the verdicts, each with its own verdict', () => {
    const cost = section(terminal(input));
    const [byVerdict, costliest] = cost.split('\n\n')[0]!.split(/\n(?=costliest cases)/);
    expect(byVerdict).toMatch(/^COST · [^\n]*\nverdict\s+trials\s+cost\s+trial time\n/);
    for (const id of ['a', 'b', 'c']) expect(byVerdict).not.toMatch(new RegExp(`^\\s*${id}\\s`, 'm'));
    const verdictOf = new Map(run.results.verdicts.map((v) => [v.caseId, v.verdict]));
    expect(costliest).toMatch(/^costliest cases\s+verdict\s+trials\s+cost\s+trial time\n/);
    const rows = costliest!.split('\n').slice(1).filter(Boolean);
    expect(rows.map((r) => r.split(/\s+/).slice(0, 2))).toEqual([
      ['c', 'PASS'],
      ['a', verdictOf.get('a')],
      ['b', 'FAIL'],
    ]);
  });

  const simulated = { ...input, manifest: { ...run.manifest, simulator: { profile: 'sim/demo.profile.yaml', name: 'demo', seed: 1 } } };
  const sim = {
    ...simulated,
    results: { ...run.results, run: { ...run.results.run, simulated: true, simulator: simulated.manifest.simulator } },
  };
  const SAYS = "simulated: the CLI priced the simulator's token counts, and no model was paid";

  it.each([
    ['terminal', (i: typeof input) => section(terminal(i))],
    ['markdown', (i: typeof input) => REPORTERS.markdown({ colour: false }).render(i).split('<summary>Cost:')[1]!],
    ['html', (i: typeof input) => REPORTERS.html({ colour: false }).render(i).split('id="cost"')[1]!.replace(/&#39;/g, "'")],
  ])("%s says a simulated run's dollars are simulated, and a real run's are not", (_, costOf) => {
    expect(costOf(sim).replace(/\s+/g, ' ')).toContain(SAYS);
    expect(costOf(input)).not.toMatch(/simulat/i);
  });
});
