import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseClaudeStream } from '../src/agents/claude-code/parse.js';
import { claudeCode } from '../src/agents/claude-code/adapter.js';
import { buildResults } from '../src/verdict/results.js';
import { agentNotes } from '../src/runner/reports.js';
import { gradeTrial, type GradeOptions } from '../src/grade/outcome.js';
import { advice } from '../src/report/advice.js';
import { jsonReporter } from '../src/report/json.js';
import { terminalReporter } from '../src/report/terminal.js';
import { failureBreakdown } from '../src/stats/summary.js';
import { ClaudeStream } from './claude-stream.js';
import { ATL_FAMILY, handMadeManifest } from './run-fixtures.js';
import { resultsSchema, type GradableCase, type Results, type RunManifest, type TrialMeta, type TrialOutcome } from '../src/run/schema.js';
import { CONFIRMS, judgedInput, NAMES_PROJECT, type JudgeKind } from './report-inputs.js';

const FIXTURES = join(import.meta.dirname, 'fixtures/report');
const NOW = new Date('2026-12-01T00:00:00.000Z');
const META: TrialMeta = {
  exitCode: 0,
  signal: null,
  wallMs: 400,
  timedOut: false,
  interrupted: false,
  stderrTail: '',
  attempt: 1,
  startedAt: '2026-11-30T00:00:00.000Z',
};
const DECISION = { threshold: 0.9, delta: 0.1, alpha: 0.05, beta: 0.2, minTrials: 1, maxTrials: 50 };
const FAMILY = ATL_FAMILY;

const render = (manifest: RunManifest, results: Results) =>
  terminalReporter(true).render({ manifest, results, runDir: 'runs/r1', agentNotes: agentNotes(manifest) });
const plain = (text: string) => stripVTControlCharacters(text);
const widest = (text: string) =>
  Math.max(
    ...plain(text)
      .split('\n')
      .map((l) => l.length),
  );

function demo(): { manifest: RunManifest; results: Results; report: string } {
  const manifest = JSON.parse(readFileSync(join(FIXTURES, 'demo/run.json'), 'utf8')) as RunManifest;
  const outcomes = JSON.parse(readFileSync(join(FIXTURES, 'demo/outcomes.json'), 'utf8')) as TrialOutcome[];
  const results = buildResults(manifest, outcomes, [], NOW);
  return { manifest, results, report: render(manifest, results) };
}

/** A hand-made run: its manifest, and outcomes graded from hand-built transcripts. */
function run(defs: GradableCase[], trials: [string, ClaudeStream, Partial<TrialMeta>?][], over: Partial<RunManifest> = {}) {
  const family = over.family ?? FAMILY;
  const manifest = handMadeManifest(defs, trials.length, { reportedModel: 'claude-test', ...over, family });
  const opts: GradeOptions = {
    family,
    skillsFolder: claudeCode.skillsFolder,
    readCountsAsFiring: true,
    budgetStopsFail: true,
    conventions: claudeCode.grading,
  };
  const seen = new Map<string, number>();
  const outcomes = trials.map(([caseId, stream, meta]) => {
    const n = (seen.get(caseId) ?? 0) + 1;
    seen.set(caseId, n);
    return gradeTrial(
      parseClaudeStream(stream.raw()),
      { ...META, ...meta },
      defs.find((d) => d.id === caseId)!,
      'skill',
      n,
      opts,
    );
  });
  const results = buildResults(manifest, outcomes, [], NOW);
  return { manifest, results, outcomes, report: render(manifest, results) };
}

const s = () => new ClaudeStream();
const jiraCreate: GradableCase = {
  id: 'jira-create',
  expect: 'atl-jira',
  exclusive: true,
  tags: [],
  command: 'atl jira',
  plan: { matches: [], mustNot: [], verb: 'create-issue' },
  decision: DECISION,
};
const negative: GradableCase = { id: 'neg', expect: 'none', exclusive: false, tags: [], decision: DECISION };

describe('terminal report on the demo run', () => {
  const { results, report } = demo();
  const text = plain(report);

  it('is the same whatever order the trials finished in: a regrade reproduces the run (example trials included)', () => {
    const manifest = JSON.parse(readFileSync(join(FIXTURES, 'demo/run.json'), 'utf8')) as RunManifest;
    const outcomes = JSON.parse(readFileSync(join(FIXTURES, 'demo/outcomes.json'), 'utf8')) as TrialOutcome[];
    const reversed = buildResults(manifest, [...outcomes].reverse(), [], NOW);
    const interleaved = buildResults(manifest, [...outcomes.filter((_, i) => i % 2), ...outcomes.filter((_, i) => i % 2 === 0)], [], NOW);
    expect(reversed).toEqual(buildResults(manifest, outcomes, [], NOW));
    expect(interleaved).toEqual(reversed);
  });

  it('puts the VERDICTS table right after the header', () => {
    const sections = text.split('\n\n');
    expect(sections[1]).toMatch(
      /^VERDICTS · sequential \(Wald SPRT per case\) · 7 PASS · 2 FAIL · 2 INCONCLUSIVE · exit code 1\ncase\s+expect\s+verdict/,
    );
  });

  it('fits every line in 100 columns, colour codes excluded', () => {
    expect(report).toMatch(/\u001b\[/);
    expect(widest(report)).toBeLessThanOrEqual(100);
  });

  it('says plainly that the numbers are simulated and echo the profile', () => {
    expect(text).toMatch(
      /SIMULATED · skillprobe's model simulator answered, profile "demo-imperfect-model"\s+\(sim\/demo\.profile\.yaml, seed 20261130\)/,
    );
    expect(text.replace(/\s+/g, ' ')).toContain(
      "These numbers only echo the simulator profile: they test skillprobe and the suite's wiring, not the skill.",
    );
  });

  it('shows pass@k / pass^k at k = 1, 3, 5, 10 only; results.json keeps every k', () => {
    expect(text).toMatch(/pass@k \/ pass\^k · skill arm · k = 1, 3, 5, 10\ncase\s+n\s+k=1\s+k=3\s+k=5\s+k=10\n/);
    expect(text).toMatch(/jira-create-bug\s+30\s+\.77\s+\.99 \/ \.44\s+1\.00 \/ \.24\s+1\.00 \/ \.04/);
    expect(text).not.toMatch(/k=2\b/);
    expect(results.summary.cases.find((c) => c.caseId === 'jira-create-bug' && c.arm === 'skill')!.passK.map((p) => p.k)).toEqual(
      Array.from({ length: 30 }, (_, i) => i + 1),
    );
  });

  it.each([
    [
      'trap-comment-on-ticket-about-page',
      ['sibling: atl-confluence fired in 5 of 30', 'fired, but the plan was wrong in 3 of 30: verb add-comment failed in 3 (used add)'],
    ],
    ['jira-create-bug', ['fired, but the plan was wrong in 7 of 30: verb create-issue failed in 7 (used create)']],
    ['vague-sprint', ['did not fire in 7 of 7: the model asked a clarifying question in 4, answered without a skill in 3']],
  ])('the %s block says what fired, what failed, and what to change', (caseId, lines) => {
    const block = text
      .split('\n\n')
      .find((b) => b.startsWith(`${caseId} · `))!
      .replace(/\n\s+/g, ' ');
    for (const line of lines) expect(block).toContain(line);
    const example = /example: trials\/([^/]+)\/skill\/(\d+)\.jsonl/.exec(block)!;
    expect(example[1]).toBe(caseId);
    expect(results.outcomes.find((o) => o.caseId === caseId && o.arm === 'skill' && o.n === Number(example[2]))!.passed).toBe(false);
  });

  it('says advice several cases share once, after their blocks, naming the cases (a simulated run: the profile decided)', () => {
    const section = text.split('\n\nCASES · ')[0]!;
    const shared = section.split('\n\n').filter((b) => b.startsWith('→ '));
    expect(shared.map((b) => b.replace(/\n\s*/g, ' '))).toEqual([
      "→ jira-create-bug, vague-sprint, vague-docs, trap-comment-on-ticket-about-page: the simulator's profile decided what the model did here, not a model: change the profile's rule for the case (or give the profile a router) to play it otherwise, and run a real model to judge the skill",
    ]);
    expect(section.replace(/\n\s*/g, ' ').match(/the simulator's profile decided/g)).toHaveLength(1);
  });

  it('gives FAIL and INCONCLUSIVE cases a block, and PASS cases none', () => {
    const blocks = text.split('\n\n').filter((b) => / · (PASS|FAIL|INCONCLUSIVE) · expects /.test(b.split('\n')[0]!));
    expect(blocks.map((b) => b.split(' · ')[0]).sort()).toEqual([
      'jira-create-bug',
      'trap-comment-on-ticket-about-page',
      'vague-docs',
      'vague-sprint',
    ]);
  });

  it('counts "did not fire", "plan wrong", "sibling" and "false trigger" in their own columns', () => {
    expect(text).toMatch(/did not\s+plan\s+sibling\s+false\s+refused\s+budget\s+left\n\s+fire\s+wrong\s+fired\s+trigger\s+stops\s+out\n/);
    expect(text).toMatch(/\ntrap-comment-on-ticket-about-page\s+30\s+22\s+0\s+3\s+5\s+·\s+0\s+0\s+0\n/);
    expect(text).toMatch(/\nvague-sprint\s+7\s+0\s+7\s+0\s+0\s+·\s+0\s+0\s+0\n/);
    expect(text).toMatch(/\nneg-jira-history\s+15\s+14\s+·\s+·\s+·\s+1\s+0\s+0\s+0\n/);
  });
});

describe('statistics: why scored trials failed', () => {
  const planned = 'Plan:\n```bash\natl jira create-issue --project OPS\n```';
  it.each<[string, GradableCase, ClaudeStream, Partial<Record<'didNotFire' | 'planWrong' | 'sibling' | 'falseTrigger', number>>]>([
    ['nothing fired: "did not fire", not a plan failure', jiraCreate, s().text('Which project?').result(), { didNotFire: 1, planWrong: 0 }],
    [
      'fired with the wrong verb: plan wrong',
      jiraCreate,
      s().skill('atl-jira').text('`atl jira create --project OPS`').result(),
      { didNotFire: 0, planWrong: 1 },
    ],
    [
      'fired with the right plan: nothing wrong',
      jiraCreate,
      s().skill('atl-jira').text(planned).result(),
      { didNotFire: 0, planWrong: 0, sibling: 0 },
    ],
    [
      'a sibling instead: sibling, not "did not fire"',
      jiraCreate,
      s().skill('atl-confluence').text('ok').result(),
      { sibling: 1, didNotFire: 0, planWrong: 0 },
    ],
    [
      'a family skill on a negative case: a false trigger, not a sibling',
      negative,
      s().skill('atl-jira').text('ok').result(),
      { falseTrigger: 1, sibling: 0 },
    ],
    [
      'a sibling beside the expected skill in a passing trial (not exclusive): no failure to fix',
      { ...jiraCreate, exclusive: false },
      s().skill('atl-confluence').skill('atl-jira', 'create-issue --project OPS').text(planned).result(),
      { sibling: 0, planWrong: 0 },
    ],
  ])('%s', (_name, c, stream, want) => {
    const { outcomes } = run([c], [[c.id, stream]]);
    const f = failureBreakdown(c, 'skill', outcomes, true, 0.95);
    for (const [k, v] of Object.entries(want)) expect(f[k as keyof typeof want].trials, k).toBe(v);
  });

  it('groups failed plan checks with their details, and what the model did when nothing fired', () => {
    const { results } = run(
      [jiraCreate],
      [
        ['jira-create', s().skill('atl-jira').text('`atl jira create --project OPS`').result()],
        ['jira-create', s().skill('atl-jira').text('`atl jira new --project OPS`').result()],
        ['jira-create', s().text('Which project?').result()],
        ['jira-create', s().text('Use the web form.').result()],
      ],
    );
    const f = results.summary.cases[0]!.failures;
    expect(f.planChecks).toEqual([
      {
        check: 'verb create-issue',
        failed: 2,
        details: [
          { detail: 'used create', trials: 1 },
          { detail: 'used new', trials: 1 },
        ],
      },
    ]);
    expect(f.whenSilent).toEqual({ clarifying: 1, answered: 1, empty: 0 });
  });

  it("counts the judge's no's per item among the scored trials, and its missing verdicts among all; older results read with none", () => {
    const failures = (kind: JudgeKind) => judgedInput(kind).results.summary.cases.find((c) => c.caseId === 'files-bug')!.failures;
    const calibrated = failures('calibrated');
    // Trial 6, the judge's tie, is left out of n: counted as a missing verdict, never as a no.
    expect(calibrated.judgeNo).toEqual({ trials: 5, example: 1 });
    expect(calibrated.judged).toEqual([
      { item: NAMES_PROJECT, no: 0, noVerdict: 0, scored: true },
      { item: CONFIRMS, no: 5, noVerdict: 1, scored: true },
    ]);
    expect(failures('uncalibrated').judged).toEqual([
      { item: NAMES_PROJECT, no: 0, noVerdict: 0, scored: false },
      { item: CONFIRMS, no: 5, noVerdict: 1, scored: false },
    ]);
    const stored = JSON.parse(JSON.stringify(judgedInput('calibrated').results)) as Results;
    const cases = stored.summary.cases.map(({ failures: { judgeNo: _no, judged: _judged, ...failures }, ...c }) => ({ ...c, failures }));
    const before = { ...stored, summary: { ...stored.summary, cases } };
    expect(resultsSchema.parse(before).summary.cases.map((c) => [c.failures.judgeNo, c.failures.judged])).toEqual([
      [{ trials: 0 }, []],
      [{ trials: 0 }, []],
    ]);
  });
});

describe('skill calls the agent refused', () => {
  const fixture = (name: string) => parseClaudeStream(readFileSync(join(FIXTURES, name), 'utf8'));

  it.each([
    ['skill-denied.jsonl', 'denied'],
    ['skill-unknown.jsonl', 'unknown'],
    ['skill-not-invocable.jsonl', 'invalid'],
  ])('%s loads as %s', (file, status) => {
    const loads = fixture(file).events.filter((e) => e.kind === 'skill_load');
    expect(loads.map((l) => (l.kind === 'skill_load' ? l.status : ''))).toEqual([status]);
  });

  const trigger: GradableCase = {
    id: 'jira',
    expect: 'atl-jira',
    exclusive: false,
    tags: [],
    decision: { ...DECISION, threshold: 0.5, delta: 0.4 },
  };
  const fromFixture = (file: string) => ({ raw: () => readFileSync(join(FIXTURES, file), 'utf8') }) as ClaudeStream;

  it('a refused call still counts as the model choosing the skill, but the report never shows a clean pass', () => {
    const { results, report } = run(
      [trigger],
      [
        ['jira', s().skill('atl-jira').text('ok').result()],
        ['jira', fromFixture('skill-denied.jsonl')],
        ['jira', s().skill('atl-jira').text('ok').result()],
      ],
    );
    expect(results.verdicts[0]!.verdict).toBe('PASS');
    expect(results.outcomes.map((o) => o.passed)).toEqual([true, true, true]);
    expect(results.summary.cases[0]!.failures.refused).toEqual({
      trials: 1,
      example: 2,
      calls: [{ status: 'denied', requested: 'atl-jira', trials: 1 }],
    });
    const text = plain(report).replace(/\n\s+/g, ' ');
    expect(text).toMatch(/jira\s+atl-jira\s+PASS ↓\s/);
    expect(text).toContain(
      "refused by the agent in 1 of 3: atl-jira denied in 1 (graded as the model's choice, but the skill never loaded)",
    );
    expect(text).toContain('example: trials/jira/skill/2.jsonl');
    expect(text).toContain('→ the agent denied loading atl-jira');
  });

  it.each([
    ['skill-unknown.jsonl', 'jira unknown skill in 1', '→ the model asked for a skill named "jira", which does not exist'],
    [
      'skill-not-invocable.jsonl',
      'atl-jira not model-invocable in 1',
      '→ the model may not call atl-jira: remove disable-model-invocation',
    ],
  ])('%s is named for what it is in the case block', (file, named, fix) => {
    const text = plain(run([trigger], [['jira', fromFixture(file)]]).report).replace(/\n\s+/g, ' ');
    expect(text).toContain(named);
    expect(text).toContain(fix);
  });

  it("a refusal's fix is the agent's own where its adapter names a cause, and generic otherwise", () => {
    const { results } = run([trigger], [['jira', fromFixture('skill-not-invocable.jsonl')]]);
    const [summary, verdict] = [results.summary.cases[0]!, results.verdicts[0]!];
    expect(advice(summary, verdict, claudeCode.refusalFixes).text).toBe(
      'the model may not call atl-jira: remove disable-model-invocation from its SKILL.md frontmatter',
    );
    expect(advice(summary, verdict).text).toBe(
      'the agent will not let the model call atl-jira: remove what in its SKILL.md frontmatter reserves it for the user',
    );
  });
});

describe('layout and empty sections', () => {
  it('fits 100 columns with long case ids and many siblings', () => {
    const family = Array.from({ length: 12 }, (_, i) => `the-skill-family-member-${String(i + 1).padStart(2, '0')}`).map((dir) => ({
      dir,
      name: dir,
    }));
    const id = 'a-rather-long-case-identifier-that-keeps-going-well-past-any-column';
    const c: GradableCase = {
      id,
      expect: family[0]!.dir,
      exclusive: true,
      tags: [],
      command: 'tool',
      plan: { matches: ['--flag-that-is-long'], mustNot: [], verb: 'create' },
      decision: DECISION,
    };
    const stream = (skill: string) =>
      new ClaudeStream(
        '/ws',
        family.map((m) => m.dir),
      )
        .skill(skill, 'create')
        .text('done')
        .result();
    const { report } = run(
      [c],
      family.map((m) => [id, stream(m.dir)] as [string, ClaudeStream]),
      { family },
    );
    expect(widest(report)).toBeLessThanOrEqual(100);
    const text = plain(report);
    expect(text.replace(/\n\s+/g, ' ')).toContain('the-skill-family-member-12 fired in 1 of 12');
    // Every sibling is still in the confusion matrix, split over several groups of columns.
    for (const m of family) expect(text).toContain(m.dir);
  });

  it('breaks a case id longer than a line in its block and example path, rather than outgrowing 100 columns', () => {
    const id = `trap-${'a-very-long-skill-name'.repeat(3)}-not-${'another-very-long-skill-name'.repeat(2)}`;
    const c: GradableCase = { ...jiraCreate, id };
    const { report } = run(
      [c],
      [
        [id, s().text('Which project?').result()],
        [id, s().text('Which one?').result()],
      ],
    );
    expect(plain(report)).toContain('WHAT TO CHANGE');
    expect(widest(report)).toBeLessThanOrEqual(100);
  });

  const quiet: GradableCase = { ...negative, decision: { ...DECISION, threshold: 0.5, delta: 0.4 } };
  const silence = () => s().text('Jira came out in 2002.').result();

  it('leaves out sections with nothing in them', () => {
    const { results, report } = run(
      [quiet],
      [
        ['neg', silence()],
        ['neg', silence()],
      ],
    );
    expect(results.verdicts[0]!.verdict).toBe('PASS');
    const text = plain(report);
    for (const heading of ['ABLATION', 'CONFUSION', 'WHAT TO CHANGE', 'left out of n', 'trigger recall', 'precision', 'F1', 'k=3'])
      expect(text).not.toContain(heading);
    expect(text).toMatch(/false-trigger rate \(negatives\)\s+0\.00/);
  });

  it('counts in the singular when it is one', () => {
    const { report } = run(
      [quiet],
      [['neg', s().retry(429).apiError(429).result({ is_error: true, api_error_status: 429, result: 'API Error' }), { exitCode: 1 }]],
    );
    const text = plain(report);
    expect(text).toContain('95% Wilson intervals · 1 trial run');
    expect(text).toContain('1 trial left out of n');
  });

  it('counts timeouts and max-turns stops per case, in the row and the block', () => {
    const { report } = run(
      [jiraCreate],
      [
        ['jira-create', s().text('Let me check.'), { exitCode: null, signal: 'SIGTERM', timedOut: true }],
        [
          'jira-create',
          s()
            .skill('atl-jira')
            .result({ subtype: 'error_max_turns', is_error: true, errors: ['Reached maximum number of turns (8)'] }),
          { exitCode: 1 },
        ],
        [
          'jira-create',
          s()
            .skill('atl-jira')
            .result({ subtype: 'error_max_turns', is_error: true, errors: ['Reached maximum number of turns (8)'] }),
          { exitCode: 1 },
        ],
      ],
    );
    const text = plain(report);
    // The timeout came before anything fired: a budget stop, never "did not fire" (the model did not answer).
    expect(text).toMatch(/\njira-create\s+3\s+0\s+0\s+2\s+0\s+·\s+0\s+3\s+0\n/);
    expect(text.replace(/\n\s+/g, ' ')).toContain('stopped by the budget: 1 timeout, 2 max-turns stops');
    expect(text).not.toMatch(/answered without a skill|did not fire in/);
  });

  it("a budget stop before any skill fired gets the budget's advice, not a description to change", () => {
    const timeout = (): [string, ClaudeStream, Partial<TrialMeta>] => [
      'jira-create',
      s().text('Let me search first.'),
      { exitCode: null, signal: 'SIGTERM', timedOut: true },
    ];
    const { report } = run([{ ...jiraCreate, plan: undefined }], [timeout(), timeout(), timeout()]);
    const text = plain(report).replace(/\n\s+/g, ' ');
    expect(text).toContain('trials ran out of budget: raise the trial timeout or maxTurns');
    expect(text).not.toMatch(/answered without a skill|name this request/);
  });
});

describe('results.json carries the run essentials', () => {
  it('says the numbers are simulated, with the profile, agent, model and decision settings', () => {
    const { results } = demo();
    const json = JSON.parse(
      jsonReporter.render({ manifest: {} as RunManifest, results, runDir: 'runs/r1', agentNotes: { refusalFixes: {} } }),
    ) as Results;
    expect(json.run).toMatchObject({
      agent: { id: 'claude-code', cliVersion: '2.1.197' },
      model: { requested: 'claude-sonnet-4-5', reported: 'claude-sonnet-4-5' },
      simulated: true,
      simulator: { name: 'demo-imperfect-model', seed: 20261130, profile: 'sim/demo.profile.yaml' },
      decision: { mode: 'sprt', threshold: 0.85, delta: 0.15, alpha: 0.05, beta: 0.2, minTrials: 5, maxTrials: 30, inconclusive: 'warn' },
    });
  });

  it('says so when a real model answered, and the header names both models', () => {
    const { results, report } = run([negative], [['neg', s().text('no').result()]]);
    expect(results.run).toMatchObject({
      simulated: false,
      simulator: null,
      model: { requested: 'claude-sonnet-4-5', reported: 'claude-test' },
    });
    expect(plain(report)).not.toContain('SIMULATED');
    expect(plain(report)).toContain('model claude-sonnet-4-5 (the agent reported claude-test)');
  });
});
