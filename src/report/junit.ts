import { join } from 'node:path';
import { explainOutcome } from './explain.js';
import { advice } from './advice.js';
import { fmt } from './format.js';
import type { MissingAgent, RefusalFixes, ReportInput, Reporter } from './reporter.js';
import { pValueText } from '../util/text.js';
import { transcriptPath, type CaseArmSummary, type CaseVerdict, type Firing, type GradableCase, type TrialOutcome } from '../run/schema.js';
import { expectLabel } from '../run/expectation.js';
import type { CaseChange, Comparison, ComparedRun } from '../verdict/comparison.js';
import {
  ADJUSTED_MARK,
  adjustedMeaning,
  adjustedNote,
  caseFacts,
  designText,
  estimateText,
  exclusionText,
  JUDGE_SHOWN,
  METHOD_NAME,
  movedText,
  SUITE_METHOD,
  suiteRateRows,
  missingAgentText,
  passBelowThreshold,
  rateText,
  REFUSED_AS,
  signedDifference,
  SIMULATED_NOTE,
  AUTH_TEXT,
  simulatedRuns,
  simulatedRunsText,
  simulatorText,
  trialsUsed,
  untrustedJudge,
  verdictWithJudge,
} from './wording.js';

/*
 * How a run maps onto JUnit, for CI tools that know nothing of verdicts:
 * - <testsuites name="skillprobe">: the run; its counts are the sums of its suites' (junit-10.xsd allows no
 *   `skipped` count on the root, so that one is per suite only).
 * - one <testsuite> per case and arm, "<case> [<arm>]", whose <properties> carry the case's verdict, its reason and
 *   the arm's rate; the skill arm's also its design and, when the design stopped the case, the rate adjusted for
 *   stopping early;
 * - one <testcase> per trial, "<case> [<arm>] #n": passed → plain; failed, in the skill arm of a FAIL case →
 *   <failure> with what fired, the plan check that failed and the transcript; failed anywhere else (a PASS case's
 *   expected few, an undecided case's, the ablation arm's) → <skipped> with the same evidence, so a CI tool that
 *   fails on any failure agrees with the gate; no evidence, or nothing scored in that arm → <skipped> saying why;
 * - the skill-arm suite also holds "<case> verdict", the decision the gate takes: PASS plain, FAIL <failure>,
 *   INCONCLUSIVE and ERROR <skipped> (not decided either way, so CI shows them as neither). Verdicts are taken on the
 *   skill arm, so the ablation suite has none.
 * - <error> is never written: a trial that says nothing about the skill is skipped, never an error of the test.
 * - a simulated run says so where CI tools show it: the root's and every suite's name, each suite's properties and
 *   output, and each verdict's text.
 * A comparison is one suite, "skillprobe compare": REGRESSED → <failure>, UNDECIDED → <skipped>, IMPROVED and
 * UNCHANGED pass, each with its numbers.
 */

type Attributes = Record<string, string | number | undefined>;

interface XmlElement {
  name: string;
  attributes?: Attributes;
  children?: XmlElement[];
  text?: string;
}

// Characters XML 1.0 forbids even as references (C0 controls but tab, CR, LF; lone surrogates; U+FFFE, U+FFFF):
// model text can hold any of them, and one would make the whole report unreadable to a CI tool.
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const ENTITY: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};

const xmlChars = (s: string) => s.replace(NOT_XML, '\uFFFD');
const escapeText = (s: string) => xmlChars(s).replace(/[&<>\r]/g, (ch) => ENTITY[ch]!);
// Tabs and line breaks as references: a parser turns literal ones in an attribute into spaces.
const escapeAttribute = (s: string) => xmlChars(s).replace(/[&<>"\t\n\r]/g, (ch) => ENTITY[ch]!);

function serialize(e: XmlElement, indent = ''): string {
  const attributes = Object.entries(e.attributes ?? {})
    .filter((a): a is [string, string | number] => a[1] !== undefined)
    .map(([k, v]) => ` ${k}="${escapeAttribute(String(v))}"`)
    .join('');
  const open = `${indent}<${e.name}${attributes}`;
  if (e.text !== undefined) return `${open}>${escapeText(e.text)}</${e.name}>`;
  if (!e.children?.length) return `${open}/>`;
  return [`${open}>`, ...e.children.map((c) => serialize(c, `${indent}  `)), `${indent}</${e.name}>`].join('\n');
}

type Result = 'passed' | 'failure' | 'skipped';

/** A <testcase> with what the suite counts: its result and, when the trial was timed, its wall time. */
interface TestCase {
  result: Result;
  ms?: number;
  element: XmlElement;
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

function testCase(name: string, caseId: string, result: Result, body: { message: string; text: string }, ms?: number): TestCase {
  const child: XmlElement =
    result === 'passed'
      ? { name: 'system-out', text: body.text }
      : { name: result, attributes: { message: body.message }, text: body.text };
  return {
    result,
    ms,
    element: {
      name: 'testcase',
      attributes: { name, classname: `skillprobe.${caseId}`, time: ms === undefined ? undefined : seconds(ms) },
      children: [child],
    },
  };
}

interface Counts {
  tests: number;
  failures: number;
  skipped: number;
  ms: number;
}

function countsOf(cases: TestCase[]): Counts {
  return {
    tests: cases.length,
    failures: cases.filter((c) => c.result === 'failure').length,
    skipped: cases.filter((c) => c.result === 'skipped').length,
    ms: cases.reduce((a, c) => a + (c.ms ?? 0), 0),
  };
}

function testSuite(
  name: string,
  properties: Attributes,
  cases: TestCase[],
  extra: { timestamp: string; systemOut?: string },
): { counts: Counts; element: XmlElement } {
  const counts = countsOf(cases);
  const props = Object.entries(properties)
    .filter((p): p is [string, string | number] => p[1] !== undefined)
    .map(([k, v]) => ({ name: 'property', attributes: { name: k, value: v } }));
  return {
    counts,
    element: {
      name: 'testsuite',
      attributes: {
        name,
        tests: counts.tests,
        failures: counts.failures,
        errors: 0,
        skipped: counts.skipped,
        time: seconds(counts.ms),
        timestamp: extra.timestamp,
      },
      children: [
        { name: 'properties', children: props },
        ...cases.map((c) => c.element),
        ...(extra.systemOut ? [{ name: 'system-out', text: extra.systemOut }] : []),
      ],
    },
  };
}

function document(suites: { counts: Counts; element: XmlElement }[], simulated = false): string {
  const sum = (k: keyof Counts) => suites.reduce((a, s) => a + s.counts[k], 0);
  const root: XmlElement = {
    name: 'testsuites',
    attributes: {
      name: simulated ? 'skillprobe (SIMULATED)' : 'skillprobe',
      tests: sum('tests'),
      failures: sum('failures'),
      errors: 0,
      time: seconds(sum('ms')),
    },
    children: suites.map((s) => s.element),
  };
  return `<?xml version="1.0" encoding="UTF-8"?>\n${serialize(root)}\n`;
}

function firingText(f: Firing): string {
  const who =
    f.skill === undefined ? `${f.requested} (outside the family)` : f.skill === f.requested ? f.skill : `${f.requested} (${f.skill})`;
  const how = f.via === 'invoke' ? 'the skill tool' : 'reading SKILL.md';
  const load = f.status === undefined ? '' : `, ${f.status === 'loaded' ? 'loaded' : REFUSED_AS[f.status]}`;
  return `${who} via ${how}${load}`;
}

/** The evidence of one trial: what fired, which plan checks failed and why, how it ended, and where its transcript is. */
function trialEvidence(o: TrialOutcome, explanation: string, runDir: string): string {
  const failedChecks = o.plan?.checks.filter((k) => !k.pass) ?? [];
  return [
    explanation,
    `fired: ${o.fired} (column ${o.firedColumn})`,
    `skill calls: ${o.firings.length ? o.firings.map(firingText).join('; ') : 'none'}`,
    ...failedChecks.map((k) => `plan check failed: ${k.check}${k.detail ? `: ${k.detail}` : ''}`),
    ...(failedChecks.length ? (o.plan?.plans ?? []).map((p) => `planned: ${p}`) : []),
    ...(o.judge?.items ?? []).map(
      (i) => `judge${o.judge!.scored ? '' : ` (${JUDGE_SHOWN})`}: "${i.item}" → ${i.verdict} (samples: ${i.samples.join(', ') || 'none'})`,
    ),
    ...(o.status === 'ok' ? [] : [`status: ${o.status}${o.statusDetail ? `: ${o.statusDetail}` : ''}`]),
    ...(o.excludedBecause ? [`left out because: ${exclusionText(o.excludedBecause)}`] : []),
    `transcript: ${join(runDir, transcriptPath(o))}`,
  ].join('\n');
}

function trialCase(o: TrialOutcome, def: GradableCase, verdict: CaseVerdict['verdict'], runDir: string): TestCase {
  const explanation = explainOutcome(o, def);
  const gates = o.arm === 'skill' && verdict === 'FAIL';
  const result: Result = o.passed === true ? 'passed' : o.passed === false && gates ? 'failure' : 'skipped';
  const context = o.arm === 'ablation' ? 'the ablation arm is context, not the gate' : `the case's verdict is ${verdict}`;
  const message = o.passed === false && !gates ? `failed, not a failure of the gate (${context}): ${explanation}` : explanation;
  return testCase(`${o.caseId} [${o.arm}] #${o.n}`, o.caseId, result, { message, text: trialEvidence(o, explanation, runDir) }, o.wallMs);
}

const VERDICT_RESULT: Record<CaseVerdict['verdict'], Result> = {
  PASS: 'passed',
  FAIL: 'failure',
  INCONCLUSIVE: 'skipped',
  ERROR: 'skipped',
};

/** The case's decision as a test: its reason, the skill arm's numbers, and what the terminal report would say to change. */
function verdictCase(v: CaseVerdict, s: CaseArmSummary, runDir: string, fixes: RefusalFixes, simulated?: string): TestCase {
  const fix = advice(s, v, fixes, simulated !== undefined);
  // Stopped by its design: the rate adjusted for stopping early, beside the counts it comes from.
  const rate = v.estimate ? `${estimateText(v.estimate)}${ADJUSTED_MARK} (${s.rate.successes}/${s.rate.n})` : rateText(s.rate);
  const design = designText(v);
  const text = [
    `${verdictWithJudge(v)}: ${v.reason}`,
    `expects ${expectLabel(s)} · threshold ${fmt(v.params.threshold)} · trials used ${trialsUsed(v)} · pass rate ${rate}`,
    ...[passBelowThreshold(v, s)].filter((note) => note !== undefined),
    ...(v.estimate ? [adjustedNote([v.estimate.level])] : []),
    ...(design ? [`design: ${design}`] : []),
    ...caseFacts(s).map((f) => f.text),
    `→ ${fix.text}`,
    ...(fix.example !== undefined ? [`example: ${join(runDir, transcriptPath({ caseId: s.caseId, arm: s.arm, n: fix.example }))}`] : []),
    ...(simulated ? [simulated] : []),
  ].join('\n');
  return testCase(`${v.caseId} verdict`, v.caseId, VERDICT_RESULT[v.verdict], { message: `${verdictWithJudge(v)}: ${v.reason}`, text });
}

/**
 * A suite per case and arm; with several agents, each suite's name starts with its agent's and each test's class
 * names the agent, so CI views that key tests by class and name never merge two agents' trials.
 */
function suitesOf({ manifest, results, runDir, agentNotes }: ReportInput, agent?: string): { counts: Counts; element: XmlElement }[] {
  const defs = new Map(manifest.cases.defs.map((d) => [d.id, d]));
  const verdicts = new Map(results.verdicts.map((v) => [v.caseId, v]));
  const timestamp = results.run.startedAt;
  const sim = results.run.simulator;
  const simulated = sim ? `${simulatorText(sim)} ${SIMULATED_NOTE}` : undefined;
  return results.summary.cases.map((s) => {
    // Summary rows are built from the manifest's cases, and every case has a verdict.
    const def = defs.get(s.caseId)!;
    const v = verdicts.get(s.caseId)!;
    const trials = results.outcomes
      .filter((o) => o.caseId === s.caseId && o.arm === s.arm)
      .map((o) => trialCase(o, def, v.verdict, runDir));
    const verdictTest = () => verdictCase(v, s, runDir, agentNotes.refusalFixes, simulated && `SIMULATED: ${simulated}`);
    const cases = s.arm === 'skill' ? [...trials, verdictTest()] : trials;
    if (agent !== undefined)
      for (const c of cases) c.element.attributes = { ...c.element.attributes, classname: `skillprobe.${agent}.${s.caseId}` };
    // The verdict is taken on the skill arm: its suite also carries the design and the rate adjusted for stopping early.
    const verdictArm = s.arm === 'skill';
    const adjusted = verdictArm && v.estimate ? `${estimateText(v.estimate)} (${adjustedMeaning([v.estimate.level])})` : undefined;
    const properties = {
      verdict: v.verdict,
      'judged items': untrustedJudge(v)?.note,
      reason: v.reason,
      expect: expectLabel(s),
      arm: s.arm,
      rate: rateText(s.rate),
      'adjusted rate': adjusted,
      design: verdictArm ? designText(v) : undefined,
      threshold: v.params.threshold,
      'left out': s.excluded,
      auth: results.run.auth && AUTH_TEXT[results.run.auth],
      ...(simulated ? { simulated: 'true', simulator: simulated } : {}),
    };
    // A CI view lists suites by name: a simulated run's say so there, and in the output it shows beside them.
    const name = `${simulated ? 'SIMULATED · ' : ''}${agent === undefined ? '' : `${agent} · `}${s.caseId} [${s.arm}]`;
    return testSuite(name, properties, cases, { timestamp, ...(simulated ? { systemOut: `SIMULATED: ${simulated}` } : {}) });
  });
}

/** An agent of the run with nothing to report: one skipped test, neither pass nor fail (the exit code gates on it). */
function missingAgentSuite(m: MissingAgent, runDir: string): { counts: Counts; element: XmlElement } {
  const text = missingAgentText(m, runDir);
  return testSuite(
    `${m.id} · no run to report`,
    { agent: m.id, missing: m.why },
    [testCase(`${m.id} run`, m.id, 'skipped', { message: text, text })],
    { timestamp: new Date(0).toISOString() },
  );
}

function runProperties(label: string, r: ComparedRun): Attributes {
  return {
    [`${label} run`]: `${r.runId} (${r.dir})`,
    [`${label} agent`]: `${r.agent.id} ${r.agent.cliVersion ?? '?'}`,
    [`${label} model`]: r.model.reported ?? r.model.requested,
    [`${label} simulated`]: String(r.simulated),
  };
}

function changeCase(c: CaseChange, cmp: Comparison): TestCase {
  const text = [
    `${c.change}: ${c.reason}`,
    `base ${cmp.base.runId}: ${rateText(c.base)}`,
    `candidate ${cmp.candidate.runId}: ${rateText(c.candidate)}`,
    `difference (candidate − base): ${signedDifference(c.difference)}`,
    `p ${pValueText(c.pValue)} (${METHOD_NAME[c.method]}) · adjusted p ${pValueText(c.pAdjusted)} (Benjamini–Hochberg, α ${cmp.alpha})`,
    ...(c.trialsToDecide === undefined ? [] : [`trials to decide: ${c.trialsToDecide} in each run`]),
  ].join('\n');
  const result: Result = c.change === 'REGRESSED' ? 'failure' : c.change === 'UNDECIDED' ? 'skipped' : 'passed';
  return testCase(`${c.caseId} [${c.arm}]`, c.caseId, result, { message: `${c.change}: ${c.reason}`, text });
}

/** The suite-level verdict as its own test: it fails on REGRESSED as a case does. */
function suiteCase(cmp: Comparison): TestCase {
  const s = cmp.suite;
  const text = [`${s.change}: ${s.reason}`, ...suiteRateRows(s).map((row) => row.join(' · ')), movedText(s), SUITE_METHOD].join('\n');
  const result: Result = s.change === 'REGRESSED' ? 'failure' : s.change === 'UNDECIDED' ? 'skipped' : 'passed';
  return testCase('suite', 'suite', result, { message: `${s.change}: ${s.reason}`, text });
}

function driftText(cmp: Comparison): string {
  const changedSkills = cmp.drift.skills.filter((s) => s.state !== 'same');
  return [
    ...cmp.drift.facts.map((f) => `${f.name}: ${f.base}${f.differs ? ` → ${f.candidate}` : ' (same)'}`),
    `skills: ${changedSkills.length ? changedSkills.map((s) => `${s.name} ${s.state}`).join(', ') : 'all the same'}`,
    ...cmp.routing.map(
      (r) =>
        `routing ${r.caseId} (expects ${r.expect}) fired ${r.column}: ${rateText(r.base)} → ${rateText(r.candidate)}, adjusted p ${pValueText(r.pAdjusted)}`,
    ),
    ...(cmp.onlyIn.base.length ? [`only in base (not compared): ${cmp.onlyIn.base.join(', ')}`] : []),
    ...(cmp.onlyIn.candidate.length ? [`only in candidate (not compared): ${cmp.onlyIn.candidate.join(', ')}`] : []),
  ].join('\n');
}

function renderComparison(cmp: Comparison): string {
  const properties: Attributes = {
    ...runProperties('base', cmp.base),
    ...runProperties('candidate', cmp.candidate),
    'different agents': String(cmp.crossAgent),
    'different models': String(cmp.crossModel),
    alpha: cmp.alpha,
    margin: cmp.margin,
  };
  const cases = [suiteCase(cmp), ...cmp.cases.map((c) => changeCase(c, cmp))];
  const simulated = simulatedRunsText(cmp);
  const name = simulated ? `skillprobe compare · SIMULATED (${simulatedRuns(cmp)})` : 'skillprobe compare';
  const systemOut = [...(simulated ? [`SIMULATED: ${simulated}`] : []), driftText(cmp)].join('\n');
  return document([testSuite(name, properties, cases, { timestamp: cmp.candidate.startedAt, systemOut })], simulated !== undefined);
}

/** JUnit XML for CI test views (mapping above), valid against the junit-10.xsd schema CI tools validate with. */
export const junitReporter: Reporter = {
  name: 'junit',
  description: 'JUnit XML for CI test views: a suite per case and arm, a test per trial, one more for the verdict',
  render: (input) => document(suitesOf(input), input.results.run.simulated),
  renderComparison,
  renderAgents: ({ runs, missing, runDir }) =>
    document(
      [...runs.flatMap((r) => suitesOf(r, r.results.run.agent.id)), ...missing.map((m) => missingAgentSuite(m, runDir))],
      runs.some((r) => r.results.run.simulated),
    ),
};
