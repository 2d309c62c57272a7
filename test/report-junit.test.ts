import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import { junitReporter } from '../src/report/junit.js';
import { SIMULATED_NOTE } from '../src/report/wording.js';
import type { ReportInput } from '../src/report/reporter.js';
import {
  adjustedText,
  COMPARISON,
  CONFIRMS,
  designedInput,
  designFacts,
  EXPECTED_VERDICTS,
  HOSTILE,
  judgedInput,
  NAMES_PROJECT,
  OUTCOMES,
  reportInput,
  withoutEstimates,
} from './report-inputs.js';

const XSD = readFileSync(join(import.meta.dirname, 'fixtures/junit/junit-10.xsd'), 'utf8');

async function xsdErrors(xml: string): Promise<string[]> {
  const result = await validateXML({ xml: [{ fileName: 'report.xml', contents: xml }], schema: [XSD] });
  return result.valid ? [] : result.errors.map((e) => e.rawMessage);
}

const ENTITIES: Record<string, string> = {
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#9;': '\t',
  '&#10;': '\n',
  '&#13;': '\r',
  '&amp;': '&',
};
const decode = (s: string) => s.replace(/&(lt|gt|quot|amp|#9|#10|#13);/g, (e) => ENTITIES[e]!);
const attributesOf = (tag: string) => Object.fromEntries([...tag.matchAll(/ ([\w-]+)="([^"]*)"/g)].map((m) => [m[1]!, decode(m[2]!)]));

// Markup characters inside text and attributes are always escaped, so tags can be found with patterns.
interface Child {
  kind: string;
  message?: string;
  text: string;
}
interface TestCase {
  attributes: Record<string, string>;
  children: Child[];
}
interface Suite {
  attributes: Record<string, string>;
  properties: Record<string, string>;
  cases: TestCase[];
}

function parse(xml: string): { root: Record<string, string>; suites: Suite[] } {
  const root = attributesOf(/<testsuites\b[^>]*>/.exec(xml)![0]);
  const suites = [...xml.matchAll(/<testsuite\b([^>]*)>([\s\S]*?)<\/testsuite>/g)].map((m) => ({
    attributes: attributesOf(m[1]!),
    properties: Object.fromEntries(
      [...m[2]!.matchAll(/<property\b([^>]*)\/>/g)].map((p) => attributesOf(p[1]!)).map((a) => [a.name!, a.value!]),
    ),
    cases: [...m[2]!.matchAll(/<testcase\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g)].map((t) => ({
      attributes: attributesOf(t[1]!),
      children: [...(t[2] ?? '').matchAll(/<(failure|skipped|error|system-out)\b([^>]*)>([\s\S]*?)<\/\1>/g)].map((c) => ({
        kind: c[1]!,
        message: attributesOf(c[2]!).message,
        text: decode(c[3]!),
      })),
    })),
  }));
  return { root, suites };
}

const kinds = (t: TestCase) => t.children.map((c) => c.kind).filter((k) => k !== 'system-out');
const only = <T>(items: T[]): T => {
  expect(items).toHaveLength(1);
  return items[0]!;
};

describe('junit reporter: one run', () => {
  const input = reportInput();
  const xml = junitReporter.render(input);
  const { root, suites } = parse(xml);
  const suite = (name: string) => only(suites.filter((s) => s.attributes.name === name));
  const testCase = (name: string) => only(suites.flatMap((s) => s.cases).filter((t) => t.attributes.name === name));

  it('the fixture decides every verdict it is built for', () => {
    expect(Object.fromEntries(input.results.verdicts.map((v) => [v.caseId, v.verdict]))).toEqual(EXPECTED_VERDICTS);
  });

  it("is valid against Jenkins' junit-10.xsd", async () => {
    expect(await xsdErrors(xml)).toEqual([]);
  });

  it('the schema check bites: the same report without a required count, or with a count the root may not have, is refused', async () => {
    expect(await xsdErrors(xml.replace(/(<testsuite\b[^>]*?) failures="\d+"/, '$1'))).toEqual([
      expect.stringContaining("attribute 'failures' is required"),
    ]);
    expect(await xsdErrors(xml.replace('<testsuites name="skillprobe"', '<testsuites name="skillprobe" skipped="1"'))).toEqual([
      expect.stringContaining("attribute 'skipped' is not allowed"),
    ]);
  });

  it('has one suite per case and arm, and one test per trial plus one for the verdict in the skill arm', () => {
    expect(suites.map((s) => s.attributes.name)).toEqual([
      'jira-create [skill]',
      'jira-create [ablation]',
      'neg-weather [skill]',
      'vague-sprint [skill]',
      'rate-limited [skill]',
    ]);
    for (const s of suites) {
      const [caseId, arm] = s.attributes.name!.replace(/[[\]]/g, '').split(' ') as [string, string];
      const trials = OUTCOMES.filter((o) => o.caseId === caseId && o.arm === arm).map((o) => `${caseId} [${arm}] #${o.n}`);
      expect(s.cases.map((t) => t.attributes.name)).toEqual(arm === 'skill' ? [...trials, `${caseId} verdict`] : trials);
      expect(s.cases.every((t) => t.attributes.classname === `skillprobe.${caseId}`)).toBe(true);
    }
  });

  it('counts exactly what it holds, in every suite and at the root', () => {
    for (const s of suites) {
      expect(Number(s.attributes.tests)).toBe(s.cases.length);
      expect(Number(s.attributes.failures)).toBe(s.cases.filter((t) => kinds(t).includes('failure')).length);
      expect(Number(s.attributes.skipped)).toBe(s.cases.filter((t) => kinds(t).includes('skipped')).length);
      expect(Number(s.attributes.errors)).toBe(s.cases.filter((t) => kinds(t).includes('error')).length);
      expect(s.attributes.time).toBe((s.cases.reduce((a, t) => a + Number(t.attributes.time ?? 0) * 1000, 0) / 1000).toFixed(3));
      expect(s.cases.every((t) => kinds(t).length <= 1)).toBe(true);
    }
    const sum = (k: string) => suites.reduce((a, s) => a + Number(s.attributes[k]), 0);
    expect(root).toEqual({ name: 'skillprobe', tests: '17', failures: '4', errors: '0', time: sum('time').toFixed(3) });
    expect([sum('tests'), sum('failures'), sum('skipped')]).toEqual([17, 4, 8]);
  });

  it('fails a trial only in the skill arm of a FAIL case: elsewhere a failed trial is skipped with its evidence, so CI agrees with the gate', () => {
    const failing = suites.flatMap((s) => s.cases.filter((t) => kinds(t).includes('failure')).map((t) => t.attributes.name));
    expect(failing.every((name) => name!.startsWith('jira-create '))).toBe(true);
    const notGating = suites
      .flatMap((s) => s.cases)
      .filter((t) => t.children.some((c) => c.kind === 'skipped' && c.message?.startsWith('failed, not a failure of the gate')));
    expect(notGating.map((t) => t.attributes.name)).toHaveLength(2);
    for (const t of notGating) expect(t.children[0]!.text).toMatch(/transcript: /);
  });

  it('times a trial by its wall clock, and leaves the time out when it is unknown', () => {
    expect(testCase('jira-create [skill] #1').attributes.time).toBe('1.250');
    expect(testCase('jira-create [skill] #5').attributes).not.toHaveProperty('time');
  });

  it('a failed trial where a sibling fired says what fired and where its transcript is', () => {
    const failure = only(testCase('jira-create [skill] #2').children.filter((c) => c.kind === 'failure'));
    expect(failure.message).toBe('fail: sibling fired: atl-confluence');
    expect(failure.text.split('\n')).toEqual(
      expect.arrayContaining([
        'fired: sibling (column atl-confluence)',
        'skill calls: atl-confluence via the skill tool, loaded',
        'transcript: transcripts/r1/trials/jira-create/skill/2.jsonl',
      ]),
    );
  });

  it('a failed trial whose plan was wrong names the check, why it failed, and the planned call', () => {
    const failure = only(testCase('jira-create [skill] #3').children.filter((c) => c.kind === 'failure'));
    const shown = HOSTILE.replace(/[\u0000\u001b\ud800]/g, '\uFFFD');
    expect(failure.message).toBe(`fail: plan: verb create-issue: ${shown}`);
    expect(failure.text).toContain(
      `plan check failed: verb create-issue: ${shown}\nplanned: atl jira create --project OPS\ntranscript: transcripts/r1/trials/jira-create/skill/3.jsonl`,
    );
  });

  it('a trial without evidence, or with nothing to score in its arm, is skipped with the reason', () => {
    const infra = only(testCase('jira-create [skill] #5').children);
    expect(infra).toMatchObject({ kind: 'skipped', message: 'not scored: infra_error (API Error: 429 rate limited)' });
    expect(infra.text).toContain(
      'status: infra_error: API Error: 429 rate limited\nleft out because: infra_error\ntranscript: transcripts/r1/trials/jira-create/skill/5.jsonl',
    );
    expect(only(testCase('rate-limited [skill] #2').children).message).toBe(
      'not scored: isolation_error (skill arm: atl-confluence not loaded by the agent)',
    );
    expect(only(testCase('jira-create [ablation] #1').children)).toMatchObject({
      kind: 'skipped',
      message: 'not scored: nothing to score without the skill',
    });
  });

  it('a passed trial passes, its transcript named in its output', () => {
    const t = testCase('neg-weather [skill] #1');
    expect(kinds(t)).toEqual([]);
    expect(only(t.children).text).toContain('transcript: transcripts/r1/trials/neg-weather/skill/1.jsonl');
  });

  it('the verdict test fails only a FAIL case; INCONCLUSIVE and ERROR are skipped, neither pass nor fail', () => {
    expect(Object.fromEntries(Object.keys(EXPECTED_VERDICTS).map((id) => [id, kinds(testCase(`${id} verdict`))]))).toEqual({
      'jira-create': ['failure'],
      'neg-weather': [],
      'vague-sprint': ['skipped'],
      'rate-limited': ['skipped'],
    });
    expect(suite('jira-create [ablation]').cases.some((t) => t.attributes.name!.endsWith('verdict'))).toBe(false);
  });

  it('the verdict test explains the case the way the terminal does: reason, facts, what to change, an example trial', () => {
    const failure = only(testCase('jira-create verdict').children);
    expect(failure.message).toBe(`FAIL: ${input.results.verdicts[0]!.reason}`);
    expect(failure.text).toContain('sibling: atl-confluence fired in 2 of 4');
    expect(failure.text).toContain('→ atl-confluence took this from atl-jira');
    expect(failure.text).toContain('example: transcripts/r1/trials/jira-create/skill/2.jsonl');
    expect(only(testCase('rate-limited verdict').children).text).toContain(
      'passed 0 of 0; 2 trials left out (1 infra error, 1 isolation error)',
    );
  });

  it("puts the case's verdict, reason and the arm's rate in every suite's properties", () => {
    expect(suite('vague-sprint [skill]').properties).toMatchObject({
      verdict: 'INCONCLUSIVE',
      expect: 'atl-jira',
      arm: 'skill',
      rate: '0.50 [0.09, 0.91] (1/2)',
    });
    expect(suite('vague-sprint [skill]').properties.reason).toMatch(/^undecided after 2 trials/);
    expect(suite('jira-create [ablation]').properties).toMatchObject({
      verdict: 'FAIL',
      arm: 'ablation',
      rate: '0.00 [0.00, 0.79] (0/1)',
      'left out': '1',
    });
    expect(suite('rate-limited [skill]').properties).toMatchObject({ verdict: 'ERROR', rate: 'no scored trials' });
  });

  it('escapes markup, keeps line breaks in attributes, and replaces characters XML 1.0 forbids', () => {
    expect(xml).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/);
    expect(xml).not.toMatch(/[\uD800-\uDFFF]/u);
    expect(xml).not.toContain('<create>');
    expect(xml).toContain(
      'message="fail: plan: verb create-issue: used &lt;create&gt; &amp; &quot;quoted&quot; | piped \uFFFD\uFFFD[31m\uFFFD *starred*&#10;&#9;second line"',
    );
  });
});

describe('junit reporter: the model judge', () => {
  const testCase = (xml: string, name: string) =>
    only(
      parse(xml)
        .suites.flatMap((s) => s.cases)
        .filter((t) => t.attributes.name === name),
    );
  const calibrated = junitReporter.render(judgedInput('calibrated'));

  it("is valid against Jenkins' junit-10.xsd", async () => {
    expect(await xsdErrors(calibrated)).toEqual([]);
  });

  it('a trial failed by the judge names the item in its failure message, and every judged item with its samples in its text', () => {
    const failure = only(testCase(calibrated, 'files-bug [skill] #1').children);
    expect(failure).toMatchObject({ kind: 'failure', message: `fail: the judge said no to "${CONFIRMS}"` });
    expect(failure.text).toContain(
      `judge: "${NAMES_PROJECT}" → yes (samples: yes, yes, yes)\njudge: "${CONFIRMS}" → no (samples: no, no, no)\ntranscript: `,
    );
    const verdict = only(testCase(calibrated, 'files-bug verdict').children);
    expect(verdict.kind).toBe('failure');
    expect(verdict.text.split('\n')).toContain(`the judge said no to "${CONFIRMS}" in 5 of 5`);
  });

  it('a trial the judge gave no verdict on is skipped, saying why', () => {
    const skipped = only(testCase(calibrated, 'files-bug [skill] #6').children);
    expect(skipped).toMatchObject({
      kind: 'skipped',
      message: 'not scored: judge_error (the judge gave no verdict on 1 item(s) (a tie or unreadable replies))',
    });
    expect(skipped.text).toContain(`judge: "${CONFIRMS}" → judge_error (samples: no, yes, error)`);
  });

  it("an uncalibrated judge's no fails nothing: the trial passes, its output shows the verdict as not scored", () => {
    const t = testCase(junitReporter.render(judgedInput('uncalibrated')), 'files-bug [skill] #1');
    expect(kinds(t)).toEqual([]);
    expect(only(t.children).text).toContain(
      `judge (shown, not scored: the judge is uncalibrated): "${CONFIRMS}" → no (samples: no, no, no)`,
    );
  });
});

describe('junit reporter: the rate a verdict stands on, adjusted for stopping early where the design gives it', () => {
  const NOTE = "† adjusted for stopping early: median-unbiased estimate and exact 95% interval under the sequential design's stopping rule";
  const MEANING = NOTE.slice(2);
  const table: [string, ReportInput, boolean][] = [
    ['a run with stored designs', designedInput(), true],
    ["a run from before designs were stored, regraded under Wald's design", reportInput(), true],
    ['results without designs or adjusted rates', withoutEstimates(reportInput()), false],
  ];
  it.each(table)('%s', async (_, input, adjusted) => {
    const xml = junitReporter.render(input);
    expect(await xsdErrors(xml)).toEqual([]);
    const { suites } = parse(xml);
    const suite = (name: string) => only(suites.filter((s) => s.attributes.name === name));
    const v = input.results.verdicts.find((x) => x.caseId === 'jira-create')!;
    const text = only(
      only(suite('jira-create [skill]').cases.filter((t) => t.attributes.name === 'jira-create verdict')).children,
    ).text.split('\n');
    const rateLine = text.find((l) => l.startsWith('expects '))!;
    if (adjusted) {
      // The adjusted rate with its mark and counts, its meaning on the next line, then the design.
      expect(rateLine).toMatch(new RegExp(` · pass rate ${adjustedText(v).replace(/[[\].]/g, '\\$&')}† \\(1/4\\)$`));
      expect(text[text.indexOf(rateLine) + 1]).toBe(NOTE);
      expect(text).toContain(`design: ${designFacts(v)}`);
      expect(suite('jira-create [skill]').properties).toMatchObject({
        'adjusted rate': `${adjustedText(v)} (${MEANING})`,
        design: designFacts(v),
        rate: '0.25 [0.05, 0.70] (1/4)',
      });
    } else {
      expect(rateLine).toMatch(/ · pass rate 0\.25 \[0\.05, 0\.70\] \(1\/4\)$/);
      expect(text.some((l) => l.includes('†') || l.startsWith('design: '))).toBe(false);
      expect(suite('jira-create [skill]').properties).not.toHaveProperty('adjusted rate');
      expect(suite('jira-create [skill]').properties).not.toHaveProperty('design');
    }
    // The ablation arm takes no verdict: neither an adjusted rate nor a design; an unstopped case has no adjusted rate.
    expect(Object.keys(suite('jira-create [ablation]').properties)).not.toContain('adjusted rate');
    expect(Object.keys(suite('jira-create [ablation]').properties)).not.toContain('design');
    expect(Object.keys(suite('vague-sprint [skill]').properties)).not.toContain('adjusted rate');
  });
});

describe('junit reporter: a comparison', () => {
  const xml = junitReporter.renderComparison(COMPARISON);
  const { root, suites } = parse(xml);
  const compare = only(suites);
  const testCase = (name: string) => only(compare.cases.filter((t) => t.attributes.name === name));

  it("is valid against Jenkins' junit-10.xsd", async () => {
    expect(await xsdErrors(xml)).toEqual([]);
  });

  it('is one suite with the suite-level verdict first, then one test per case and arm compared, counted exactly', () => {
    expect(compare.attributes).toMatchObject({ name: 'skillprobe compare', tests: '5', failures: '2', errors: '0', skipped: '1' });
    expect(root).toMatchObject({ tests: '5', failures: '2', errors: '0' });
    expect(compare.cases.map((t) => [t.attributes.name, kinds(t)])).toEqual([
      ['suite', ['failure']],
      ['jira-create [skill]', ['failure']],
      ['neg-weather [skill]', []],
      ['jira-create [ablation]', []],
      ['vague-sprint [skill]', ['skipped']],
    ]);
  });

  it.each<[string, string, string, string[]]>([
    [
      'a regression fails with both rates, the difference and its interval, p and adjusted p, and the reason',
      'jira-create [skill]',
      'REGRESSED: dropped from 0.90 to 0.45: adjusted p 0.0084 ≤ 0.05',
      [
        'base r1: 0.90 [0.70, 0.97] (18/20)',
        'candidate r2: 0.45 [0.26, 0.66] (9/20)',
        'difference (candidate − base): -0.45 [-0.66, -0.18]',
        "p 0.002 (Boschloo's exact test) · adjusted p 0.008 (Benjamini–Hochberg, α 0.05)",
      ],
    ],
    [
      'the suite-level regression fails with every rate of the suite, the cases that moved most, and how it was tested',
      'suite',
      'REGRESSED: pass rates dropped in the suite (in one case or more): combined p 0.0040 ≤ 0.05 over 3 cases',
      [
        'pass rate · -0.10 [-0.30, -0.02] · 3 cases',
        'trigger recall · -0.20 [-0.41, -0.05] · 2 cases',
        'false triggers · -0.40 [-0.60, -0.10] · 1 case',
        'sibling confusion · +0.45 [0.18, 0.66] · 2 cases',
        'moved most: jira-create -0.45 (REGRESSED), neg-weather +0.40 (IMPROVED)',
        "one-sided toward a drop: REGRESSED on a case's regression or on the truncated product (p ≤ 0.2) of every case's exact test against its exact null (skill arm); UNCHANGED only when every case rules out a drop of the margin; rates: the mean of the cases' changes, descriptive",
      ],
    ],
  ])('%s', (_, name, message, lines) => {
    const failure = only(testCase(name).children);
    expect(failure.message).toBe(message);
    expect(failure.text.split('\n').slice(1)).toEqual(lines);
  });

  it('an undecided change is skipped, saying how many trials would decide it', () => {
    const skipped = only(testCase('vague-sprint [skill]').children);
    expect(skipped.kind).toBe('skipped');
    expect(skipped.message).toMatch(/^UNDECIDED: not significant/);
    expect(skipped.text).toContain('trials to decide: 120 in each run');
  });

  it('an improvement or no change passes, its numbers in its output', () => {
    expect(only(testCase('neg-weather [skill]').children).text).toContain(
      'candidate r2: 1.00 [0.84, 1.00] (20/20)\ndifference (candidate − base): +0.40 [0.17, 0.61]',
    );
    expect(only(testCase('jira-create [ablation]').children).text).toMatch(/^UNCHANGED: /);
  });

  it('names both runs and the drift: properties and the suite output', () => {
    expect(compare.properties).toMatchObject({
      'base run': 'r1 (transcripts/r1)',
      'candidate model': 'claude|<next>',
      'different models': 'true',
      'different agents': 'false',
    });
    expect(xml).toContain(
      '<system-out>model: claude-sonnet-4-5 → claude|&lt;next&gt;\nCLI version: 2.1.197 (same)\nskills: atl-jira changed',
    );
    expect(xml).toContain('only in base (not compared): retired-case');
  });
});

describe('junit reporter: a simulated run says so where a CI tool shows it', () => {
  const simulator = { profile: 'sim/demo.profile.yaml', name: 'demo-imperfect-model', seed: 7 };
  const input = reportInput({ simulator });
  const xml = junitReporter.render(input);
  const { root, suites } = parse(xml);
  const SAYS = `SIMULATED: skillprobe's model simulator answered, profile "demo-imperfect-model" (sim/demo.profile.yaml, seed 7). ${SIMULATED_NOTE}`;

  it("is still valid against Jenkins' junit-10.xsd", async () => {
    expect(await xsdErrors(xml)).toEqual([]);
  });

  it('in the names CI lists: the root, and every suite', () => {
    expect(root.name).toBe('skillprobe (SIMULATED)');
    const names = ['jira-create [skill]', 'jira-create [ablation]', 'neg-weather [skill]', 'vague-sprint [skill]', 'rate-limited [skill]'];
    expect(suites.map((s) => s.attributes.name)).toEqual(names.map((n) => `SIMULATED · ${n}`));
  });

  it("in every suite's properties and output, and in each verdict's text", () => {
    for (const s of suites) expect(s.properties).toMatchObject({ simulated: 'true', simulator: SAYS.replace(/^SIMULATED: /, '') });
    expect(xml.match(/<system-out>SIMULATED: [^<]*<\/system-out>\n\s*<\/testsuite>/g)).toHaveLength(suites.length);
    const verdicts = suites.flatMap((s) => s.cases).filter((t) => t.attributes.name!.endsWith(' verdict'));
    expect(verdicts).toHaveLength(4);
    for (const t of verdicts) expect(t.children[0]!.text.split('\n').at(-1)).toBe(SAYS);
  });

  it('and a real run says nothing of the kind', () => {
    const real = junitReporter.render(reportInput());
    expect(real).not.toMatch(/SIMULATED|name="simulated"/);
  });

  it('a comparison with a simulated run: its suite name and output say which', () => {
    const cmp = junitReporter.renderComparison({ ...COMPARISON, candidate: { ...COMPARISON.candidate, simulated: true } });
    const {
      suites: [suite],
    } = parse(cmp);
    expect(suite!.attributes.name).toBe('skillprobe compare · SIMULATED (candidate)');
    expect(cmp).toMatch(/<system-out>SIMULATED: the candidate run was answered by skillprobe's model simulator/);
  });
});
