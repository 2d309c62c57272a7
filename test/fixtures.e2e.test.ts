import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeCode } from '../src/agents/claude-code/adapter.js';
import { codex } from '../src/agents/codex/adapter.js';
import type { AgentAdapter } from '../src/agents/types.js';
import { trialStatus } from '../src/grade/status.js';
import { parseProfile } from '../src/sim/profile.js';
import { startSimulator } from '../src/sim/server.js';
import type { Arm } from '../src/run/config-schema.js';
import { baseProject, cleanup, loadedSuite, makeProject, testEnv } from './helpers.js';
import { runTrials } from './trial-runner.js';

/** Bytes no text decoding keeps whole (invalid UTF-8 among them): what the real Read tool must hand back as they are. */
const PDF = Buffer.concat([Buffer.from('%PDF-1.4 FIXTURE-MARKER-7\n'), Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x0a])]);
const INSTRUCTIONS = 'INSTRUCTION-MARKER-3: the team answers in French.';

/** What Claude Code's Read tool returned for a PDF, from the raw stream: the bytes it read, base64 in its `tool_use_result`. */
function pdfReadBack(raw: string): Buffer[] {
  return raw
    .split('\n')
    .filter((l) => l.includes('"tool_use_result"'))
    .map((l) => JSON.parse(l) as { tool_use_result?: { type?: string; file?: { base64?: string } } })
    .filter((e) => e.tool_use_result?.type === 'pdf')
    .map((e) => Buffer.from(e.tool_use_result!.file!.base64!, 'base64'));
}

/** A project whose suite holds report.pdf and an instruction file, and one trial per arm of its case through `adapter`'s CLI. */
async function trialsWithFixtures(adapter: AgentAdapter, model: string) {
  const project = makeProject({
    ...baseProject(),
    'skillprobe.config.yaml': `workspace: fixtures\ninstructions: { text: "${INSTRUCTIONS}" }\n`,
    'cases/main.yaml': '- id: pdf\n  prompt: "summarise report.pdf for me"\n  expect: { skill: none }\n',
    'fixtures/report.pdf': '',
  });
  writeFileSync(join(project, 'fixtures/report.pdf'), PDF);
  const profile = parseProfile({ seed: 1, rules: [{ case: 'pdf', do: [{ read: { file: 'report.pdf' } }] }] });
  const sim = await startSimulator(profile, { record: true });
  const cases = (await loadedSuite(project)).suite.cases;
  const plan: [string, Arm][] = [
    ['pdf', 'skill'],
    ['pdf', 'ablation'],
  ];
  const { records, workdir } = await runTrials(adapter, project, sim.url, testEnv(), plan, {
    model,
    deadlineSeconds: 60,
    cases,
  });
  return { project, sim, records, workdir };
}

/** Runs `trialsWithFixtures` once before the enclosing block's tests and cleans up after them; the getter gives its trials. */
function trialsOfThisBlock(adapter: AgentAdapter, model: string): () => Awaited<ReturnType<typeof trialsWithFixtures>> {
  let run: Awaited<ReturnType<typeof trialsWithFixtures>>;
  beforeAll(async () => {
    run = await trialsWithFixtures(adapter, model);
  }, 120_000);
  afterAll(async () => {
    await run.sim.stop();
    cleanup(run.project, run.workdir);
  });
  return () => run;
}

describe("the user's files through Claude Code: a prompt naming report.pdf finds it, and the instruction file reaches the model", () => {
  const trials = trialsOfThisBlock(claudeCode, 'sonnet');

  it.each([
    ['skill', 0],
    ['ablation', 1],
  ] as const)("%s arm: the real Read tool read report.pdf's bytes out of the workspace, byte for byte", (arm, i) => {
    const call = trials().records[i]!.transcript.events.find((e) => e.kind === 'tool_call');
    expect(call).toMatchObject({ name: 'Read', input: { file_path: 'report.pdf' } });
    const result = trials().records[i]!.transcript.events.find((e) => e.kind === 'tool_result');
    expect(result).toMatchObject({ isError: false, text: expect.stringMatching(/^PDF file read: .*\/report\.pdf \(31 bytes\)$/) });
    const raw = readFileSync(join(trials().project, 'runs', 'run', 'trials', 'pdf', arm, '1.jsonl'), 'utf8');
    expect(pdfReadBack(raw)).toEqual([PDF]);
  });

  it('the instruction file was written as CLAUDE.md and Claude Code put it before the model, in both arms', () => {
    for (const trial of ['pdf/skill/1', 'pdf/ablation/1']) {
      const bodies = trials()
        .sim.received.filter((r) => r.trial === trial)
        .map((r) => JSON.stringify(r.body));
      expect(bodies.length, trial).toBeGreaterThanOrEqual(2);
      for (const body of bodies) expect(body, trial).toMatch(new RegExp(`CLAUDE\\.md[^"]*?${INSTRUCTIONS}`));
    }
  });
});

describe("the user's files through Codex: its session record shows the declared AGENTS.md, which is no leak", () => {
  const trials = trialsOfThisBlock(codex, 'sim-model');

  it.each([0, 1])('trial %i: the shell read report.pdf out of the workspace, AGENTS.md reached the model, and the trial is clean', (i) => {
    const { transcript, meta } = trials().records[i]!;
    const result = transcript.events.find((e) => e.kind === 'tool_result');
    expect(result).toMatchObject({ isError: false, text: expect.stringContaining('%PDF-1.4 FIXTURE-MARKER-7') });
    const shown = meta.evidence?.shown;
    expect(shown?.contextFiles).toEqual([`AGENTS.md (${shown?.cwd})`]);
    const arm = trials().records[i]!.ref.arm;
    expect(
      trialStatus(transcript, meta, {
        arm,
        family: ['alpha', 'alpha-beta'],
        instructions: true,
        isolationProblem: codex.grading.isolationProblem,
      }),
    ).toEqual({ status: 'ok' });
    // The same trial without the declaration: the instruction file is a leak.
    expect(
      trialStatus(transcript, meta, { arm, family: ['alpha', 'alpha-beta'], isolationProblem: codex.grading.isolationProblem }),
    ).toMatchObject({
      status: 'isolation_error',
      detail: expect.stringMatching(/^instruction files reached the model: AGENTS\.md \(/),
    });
    const bodies = trials()
      .sim.received.filter((r) => r.trial === `pdf/${arm}/1`)
      .map((r) => JSON.stringify(r.body));
    expect(bodies.some((b) => b.includes(INSTRUCTIONS))).toBe(true);
  });
});
