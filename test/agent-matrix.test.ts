import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateXML } from 'xmllint-wasm';
import { describe, expect, it } from 'vitest';
import { REPORTER_NAMES, REPORTERS } from '../src/report/registry.js';
import type { AgentsReportInput } from '../src/report/reporter.js';
import type { TrialOutcome } from '../src/run/schema.js';
import { agentMatrix } from '../src/verdict/agent-matrix.js';
import { OUTCOMES, reportInput } from './report-inputs.js';

/** The same suite as a second agent that routes the trap right and stays quiet where the first did too. */
const SECOND: TrialOutcome[] = OUTCOMES.map((o) =>
  o.caseId === 'jira-create' && o.arm === 'skill' && o.fired === 'sibling'
    ? {
        ...o,
        passed: true,
        fired: 'expected',
        firedColumn: 'atl-jira',
        firings: [{ ...o.firings[0]!, skill: 'atl-jira', requested: 'atl-jira' }],
      }
    : o,
);

function agentsInput(): AgentsReportInput {
  const claude = reportInput();
  const codex = reportInput({ agent: { id: 'codex', binary: '/bin/codex', cliVersion: '0.169.0' } }, SECOND);
  codex.results.run.agent = { id: 'codex', cliVersion: '0.169.0' };
  const runs = [claude, { ...codex, runDir: 'transcripts/r1/r1-codex' }];
  return { runDir: 'transcripts/r1', runs, matrix: agentMatrix(runs.map((r) => r.results)), missing: [] };
}

describe('the agents × cases matrix', () => {
  const { matrix } = agentsInput();
  const row = (id: string) => matrix.rows.find((r) => r.caseId === id)!;

  it('has one column per agent, in run order, and one row per case', () => {
    expect(matrix.agents.map((a) => a.id)).toEqual(['claude-code', 'codex']);
    expect(matrix.rows.map((r) => r.caseId)).toEqual(['jira-create', 'neg-weather', 'vague-sprint', 'rate-limited']);
  });

  it('gives each cell its verdict, passes and trigger rate from that agent’s trials with evidence', () => {
    // Claude: 4 trials with evidence, the expected skill fired in 2 (2 siblings).
    expect(row('jira-create').cells[0]).toMatchObject({ verdict: 'FAIL', passes: 1, scored: 4, triggerRate: 0.5 });
    expect(row('jira-create').cells[1]).toMatchObject({ passes: 3, scored: 4, triggerRate: 1 });
  });

  it('a negative case’s rate is its false triggers; a case without evidence has none', () => {
    expect(row('neg-weather').cells[0]).toMatchObject({ verdict: 'PASS', triggerRate: 0 });
    expect(row('rate-limited').cells[0]).toMatchObject({ verdict: 'ERROR', scored: 0 });
    expect(row('rate-limited').cells[0]!.triggerRate).toBeUndefined();
  });

  it('marks where the agents disagree, and only there', () => {
    expect(row('jira-create').cells.map((c) => c?.verdict)).toEqual(['FAIL', 'INCONCLUSIVE']);
    expect(matrix.rows.filter((r) => r.divergent).map((r) => r.caseId)).toEqual(['jira-create']);
    expect(row('neg-weather').divergent).toBe(false);
  });
});

describe('every reporter renders a run of several agents', () => {
  const input = agentsInput();

  it.each(REPORTER_NAMES)('%s names every agent and every case', (name) => {
    const text = REPORTERS[name]({ colour: false }).renderAgents(input);
    for (const id of ['claude-code', 'codex', 'jira-create', 'neg-weather']) expect(text).toContain(id);
  });

  it('json holds each agent’s results and the matrix', () => {
    const doc = JSON.parse(REPORTERS.json({ colour: false }).renderAgents(input));
    expect(doc.agents.map((r: { run: { agent: { id: string } } }) => r.run.agent.id)).toEqual(['claude-code', 'codex']);
    expect(doc.matrix.rows).toHaveLength(4);
  });

  it('junit prefixes each suite with its agent, so the two runs never merge in a CI test view', () => {
    const xml = REPORTERS.junit({ colour: false }).renderAgents(input);
    expect(xml.match(/<testsuite name="claude-code · /g)).toHaveLength(input.runs[0]!.results.summary.cases.length);
    expect(xml.match(/<testsuite name="codex · /g)).toHaveLength(input.runs[1]!.results.summary.cases.length);
    expect(xml).toContain('classname="skillprobe.codex.jira-create"');
    expect(xml).toContain('classname="skillprobe.claude-code.jira-create"');
  });

  it.each(REPORTER_NAMES)('%s names an agent the run was for that has nothing to report, and how to run it', async (name) => {
    const text = REPORTERS[name]({ colour: false }).renderAgents({
      ...input,
      missing: [{ id: 'gemini', why: 'not started: the run stopped before it' }],
    });
    expect(text).toContain('gemini');
    expect(text).toContain('not started: the run stopped before it');
    if (name !== 'json') expect(text.replace(/\s+/g, ' ')).toContain('skillprobe run --resume transcripts/r1');
    if (name === 'junit') {
      expect(text).toMatch(/<testsuite name="gemini · no run to report"[^>]*skipped="1"/);
      const result = await validateXML({
        xml: [{ fileName: 'agents.xml', contents: text }],
        schema: [readFileSync(join(import.meta.dirname, 'fixtures/junit/junit-10.xsd'), 'utf8')],
      });
      expect(result.errors.map((e) => e.rawMessage)).toEqual([]);
    }
  });

  it("html lists each agent's run as history and the view list runs: who ran it, its verdicts, trials and cost", () => {
    const page = REPORTERS.html({ colour: false }).renderAgents(input);
    const rows = [...page.matchAll(/<tr data-run="([^"]+)">(.*?)<\/tr>/g)].map((m) => [m[1], m[2]!.replace(/<[^>]+>/g, '|')]);
    expect(rows.map((r) => r[0])).toEqual(input.runs.map((r) => r.runDir));
    expect(rows[1]![1]).toMatch(
      /codex 0\.169\.0 · [^|]+\|+lab\|+completed, several agents\|+1 PASS · 2 INCONCLUSIVE · 1 ERROR\|+13\|+\$0\.130/,
    );
  });

  it('terminal and markdown show the matrix with its legend', () => {
    for (const name of ['terminal', 'markdown'] as const) {
      const text = REPORTERS[name]({ colour: false }).renderAgents(input);
      expect(text).toMatch(/FAIL 1\/4 · fires 50%/);
      expect(text).toContain('false triggers 0%');
    }
  });
});
