import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { agentNotes } from '../src/runner/reports.js';
import { costBreakdown, tokenCost } from '../src/report/cost.js';
import { REPORTERS } from '../src/report/registry.js';
import { tokenCount } from '../src/report/wording.js';
import { tokenTotals } from '../src/verdict/results.js';
import type { ReportInput } from '../src/report/reporter.js';
import { judgedInput } from './report-inputs.js';
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

describe("cost: the judge's, beside the trials' (run.costUsd counts only the trials under test)", () => {
  const judged = judgedInput('calibrated');
  const render = (name: 'terminal' | 'markdown' | 'html', i: ReportInput) =>
    stripVTControlCharacters(REPORTERS[name]({ colour: false }).render(i)).replace(/\s+/g, ' ');
  const unpaid = { ...judged, results: { ...judged.results, judge: { ...judged.results.judge!, costUsd: undefined } } };

  it.each([
    ['terminal', "COST · $0.090 reported by the CLI for 9 trials + $0.500 for the judge's 51 trials · 16 s of trial time"],
    ['markdown', "Cost: $0.090 for 9 trials + $0.500 for the judge's 51 trials, 16 s of trial time"],
    ['html', '$0.090 for 9 trials + $0.500 for the judge&#39;s 51 trials, 16 s of trial time'],
  ] as const)('%s adds what the judge cost; a judge that reported none adds nothing', (name, line) => {
    expect(render(name, judged)).toContain(line);
    expect(costBreakdown(judged.results).total.costUsd).toBeCloseTo(0.09, 10);
    expect(render(name, unpaid)).not.toMatch(/judge('|&#39;)s 51 trials/);
  });
});

describe('cache: how much input the prompt cache served', () => {
  // Every trial: 20k input tokens, 16k of them cached, 1k written to the cache, 500 out; the last 10 trials report none.
  const used = { input: 20_000, cached: 16_000, cacheWrite: 1_000, output: 500 };
  const outcomes = run.results.outcomes.map((o, i) => (i < 50 ? { ...o, usage: used } : o));
  const withTokens = (o: typeof outcomes, over: Partial<typeof run.results.run> = {}) => ({
    ...input,
    results: { ...run.results, outcomes: o, run: { ...run.results.run, tokens: tokenTotals(o), ...over } },
  });
  const terminal = (i: typeof input) => stripVTControlCharacters(REPORTERS.terminal({ colour: false }).render(i)).replace(/\s*\n\s*/g, ' ');
  const markdown = (i: typeof input) => REPORTERS.markdown({ colour: false }).render(i);

  it("sums the trials' usage over those that reported it; none reported, none summed", () => {
    expect(tokenTotals(outcomes)).toEqual({ input: 1_000_000, cached: 800_000, cacheWrite: 50_000, output: 25_000, trials: 50 });
    expect(tokenTotals(outcomes.map(({ usage: _u, ...o }) => o))).toBeUndefined();
    const noWrites = outcomes.map((o) => (o.usage ? { ...o, usage: { input: 10, cached: 5, output: 1 } } : o));
    expect(tokenTotals(noWrites)).not.toHaveProperty('cacheWrite');
  });

  it('the terminal prints it beside the COST line, and markdown under its header, naming no price', () => {
    const line =
      'CACHE · 80% of 1M input tokens in the 50 of 60 trials that reported usage came from the prompt cache ' +
      "(800k cached, 200k not, 50k of them written to the cache) · the CLI's cost already counts cached input at the provider's lower cache price";
    expect(terminal(withTokens(outcomes))).toContain(`30 s of trial time ${line} verdict`);
    expect(markdown(withTokens(outcomes)).split('\n')[4]).toBe(line);
    expect(terminal(input)).not.toContain('CACHE');
    expect(markdown(input)).not.toContain('CACHE');
  });

  it('without a reported cost (Codex, Gemini) the line stands alone and says the CLI reports none; simulated, it says so', () => {
    const free = outcomes.map(({ costUsd: _c, ...o }) => o);
    const all = free.map((o) => ({ ...o, usage: { input: 1_000, cached: 250, output: 10 } }));
    const text = terminal(withTokens(all, { simulated: true, costUsd: undefined }));
    expect(text).not.toContain('COST');
    expect(text).toContain(
      "CACHE · 25% of 60k input tokens came from the simulator's prompt cache (15k cached, 45k not) · the CLI reports no cost: " +
        'providers bill cached input at a fraction of the input price, per model (`prices` in the config prices it)',
    );
  });

  it('with `prices` for the model it says what the tokens cost and what the cache saved, priced exactly', () => {
    // 50 trials: 1M input (800k cached, 50k written, 150k fresh), 25k out; $3 in, $0.30 cached, $3.75 written, $15 out a million.
    const price = { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 };
    const totals = tokenTotals(outcomes)!;
    expect(tokenCost(totals, price)).toEqual({
      paidUsd: expect.closeTo(0.45 + 0.24 + 0.1875 + 0.375, 10),
      uncachedUsd: expect.closeTo(3.375, 10),
    });
    // Without a cache-write price, writes cost the input price.
    expect(tokenCost(totals, { ...price, cacheWrite: undefined }).paidUsd).toBeCloseTo(0.45 + 0.24 + 0.15 + 0.375, 10);
    const text = terminal(withTokens(outcomes, { tokenPrice: { ...price, model: 'sonnet' }, costUsd: undefined }));
    expect(text).toContain('at the configured prices for sonnet: $1.25 for these tokens; $3.38 without the cache (the cache saved $2.12)');
  });

  it('the HTML cost section shows it, with the cost tables or alone when the CLI reports no cost', () => {
    const page = (i: typeof input) => REPORTERS.html({ colour: false }).render(i).replace(/\s+/g, ' ');
    const costed = page(withTokens(outcomes));
    expect(costed).toMatch(/<section class="card" id="cost"[^]*<p class="cache-line">CACHE · 80% of 1M input tokens[^]*<table>/);
    const free = outcomes.map(({ costUsd: _c, ...o }) => o);
    const alone = page(withTokens(free, { costUsd: undefined }));
    expect(alone).toMatch(/id="cost"[^]*The CLI reported no cost\.[^]*<p class="cache-line">CACHE · 80%/);
    expect(alone).not.toMatch(/id="cost"[^]*<table>[^]*id="trials"/);
    expect(page(input)).not.toContain('CACHE');
  });

  it('counts tokens in a few characters', () => {
    expect([950, 9_500, 10_000, 970_400, 1_234_567, 12_345_678].map(tokenCount)).toEqual(['950', '9.5k', '10k', '970k', '1.2M', '12M']);
  });
});

describe('usage in the run folder', () => {
  it('results.json keeps each trial’s usage and the run’s sum; results written before it read without them', async () => {
    const { resultsSchema } = await import('../src/run/schema.js');
    const outcomes = run.results.outcomes.map((o) => ({ ...o, usage: { input: 100, cached: 80, output: 5 } }));
    const stored = JSON.parse(JSON.stringify({ ...run.results, outcomes, run: { ...run.results.run, tokens: tokenTotals(outcomes) } }));
    const read = resultsSchema.parse(stored);
    expect(read.outcomes[0]!.usage).toEqual({ input: 100, cached: 80, output: 5 });
    expect(read.run.tokens).toEqual({ input: 6000, cached: 4800, output: 300, trials: 60 });
    const old = resultsSchema.parse(JSON.parse(JSON.stringify(run.results)));
    expect(old.run.tokens).toBeUndefined();
    expect(old.outcomes.every((o) => o.usage === undefined)).toBe(true);
  });
});
