import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Results, TrialMeta } from '../src/run/schema.js';
import type { Transcript, TranscriptEvent } from '../src/transcript/types.js';
import { testBinaryArgs } from './agent-binaries.js';
import { baseProject, cleanup, makeProject, processesUnder, runCli } from './helpers.js';

/** The scenarios every agent's end-to-end test runs, one case each, all in one run against the simulator. */
export const SCENARIO_IDS = ['fires', 'quiet', 'sibling', 'reads', 'limited', 'loops'];

/**
 * The conversation scenarios, for an agent that takes them: `history` starts from two earlier turns and its skill
 * fires only on the request's user turn 2 (so it fires only if the history reached the model); `asks` asks first,
 * gets its follow-up, and fires on turn 2.
 */
const CONVERSATION_SCENARIOS = {
  history: {
    cases: [
      '- id: history',
      '  prompt: "scenario history: now create it"',
      '  history:',
      '    - user: "I keep alpha records for the demo project."',
      '    - assistant: "Understood: alpha records for the demo project."',
      '  expect: { skill: alpha, by: 1 }',
      '',
    ],
    rule: '  - { case: history, do: [{ skill: alpha, args: "create --name demo", onTurn: 2 }] }',
  },
  followUps: {
    cases: [
      '- id: asks',
      '  prompt: "scenario asks: please handle an alpha record"',
      '  followUps: ["the demo one, please"]',
      '  expect: { skill: alpha, by: 2 }',
      '',
    ],
    rule: '  - { case: asks, do: [{ skill: alpha, args: "create --name demo", onTurn: 2, ask: "Which alpha record do you mean?" }] }',
  },
};
/** Which conversation scenarios a run holds: those its agent takes. */
export type ConversationParts = readonly (keyof typeof CONVERSATION_SCENARIOS)[];

export function scenarioProfile(name: string, conversation: ConversationParts = []): string {
  return `
name: ${name}
seed: 7
rules:${conversation.map((part) => `\n${CONVERSATION_SCENARIOS[part].rule}`).join('')}
  - { case: fires, do: [{ skill: alpha, args: "create --name demo" }] }
  - { case: quiet, do: [{ answer: "Just an answer." }] }
  - { case: sibling, do: [{ sibling: alpha, args: "beta-thing" }] }
  - { case: reads, do: [{ read: alpha, args: "list" }] }
  - { case: limited, do: [{ http: 429, retryAfter: 0 }] }
  - { case: loops, do: [{ loop: true }] }
`;
}

export const casesFor = (ids: string[]) =>
  ids.map((id) => `- id: ${id}\n  prompt: "scenario ${id}: please handle an alpha record"\n  expect: { skill: alpha }\n`).join('');

export const of = <K extends TranscriptEvent['kind']>(t: Transcript, kind: K) =>
  t.events.filter((e): e is Extract<TranscriptEvent, { kind: K }> => e.kind === kind);
export const resultsOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as Results;
export const onlyRun = (project: string) => join(project, 'runs', readdirSync(join(project, 'runs'))[0]!);

/** Each agent's results in the one run of several agents under `transcripts`, by agent id. */
export function resultsByAgent(transcripts: string, agents: readonly string[]): Record<string, Results> {
  const run = join(transcripts, readdirSync(transcripts)[0]!);
  const runOf = (id: string) =>
    join(
      run,
      readdirSync(run).find((d) => d.endsWith(`-${id}`))!,
    );
  return Object.fromEntries(agents.map((id) => [id, resultsOf(runOf(id))]));
}

/**
 * Two cases whose model stream stalls, with one attempt each (a stall is missing data and would otherwise be re-run),
 * run at `deadlineS` by `agent` (the knob's binary where one is set): `stalls` before the model acts, `stalls-after`
 * once the expected skill loaded. The project, the workspace folder and the run folder, for the caller to check and
 * remove.
 */
export async function stalledRun(
  agent: string,
  config: string,
  deadlineS: number,
): Promise<{ project: string; workdir: string; dir: string; exitCode: number | undefined }> {
  const project = makeProject({
    ...baseProject(),
    'cases/main.yaml': casesFor(['stalls', 'stalls-after']),
    'sim.yaml': [
      'name: stall',
      'seed: 1',
      'rules:',
      '  - { case: stalls, do: [{ stall: true }] }',
      '  - { case: stalls-after, do: [{ skill: alpha, args: "create --name demo" }], plan: { stall: 1 } }',
      '',
    ].join('\n'),
    'skillprobe.config.yaml': `${config}retries:\n  infra: 0\n`,
  });
  const workdir = mkdtempSync(join(tmpdir(), 'sp-work-'));
  const r = await runCli(
    [
      'run',
      '--sim',
      'sim.yaml',
      '--trials',
      '1',
      '--arms',
      'skill',
      '--timeout',
      String(deadlineS),
      '--transcripts',
      'runs',
      '--workdir',
      workdir,
      // A stall after the firing is the point here: the trial must run on past its settled outcome.
      '--no-settle',
      ...testBinaryArgs(agent),
    ],
    { cwd: project, timeoutMs: 120_000 },
  );
  return { project, workdir, dir: onlyRun(project), exitCode: r.exitCode };
}

export type StalledRun = Awaited<ReturnType<typeof stalledRun>>;

/** What a run left in its workspace folder: live processes working there, and files. Both must be empty. */
export const leftBehind = (workdir: string) => ({ processes: processesUnder(workdir), files: readdirSync(workdir) });

/**
 * The stalled-stream scenario for one agent, on the run `started` gives (begun by the caller, so that its wait for the
 * deadline can overlap other such waits). A CLI with no stream timeout of its own is killed at the harness
 * deadline (`ends: 'deadline'`); one whose idle timeout is set to fit every retry inside the deadline gives up first
 * with its own error (`ends: 'cli'`). Either way the partial transcript is kept (what it holds is the agent's own:
 * `partial` checks it), it is scored as missing data, and nothing is left behind.
 */
export function describeStalledTrial(
  agent: string,
  started: () => Promise<StalledRun>,
  deadlineS: number,
  ends: 'deadline' | 'cli',
  parse: (raw: string, meta: TrialMeta) => Transcript,
  partial: (t: Transcript) => void,
): void {
  describe(`end to end: a stalled ${agent} trial ends by the harness deadline`, () => {
    let run: StalledRun;
    beforeAll(async () => {
      run = await started();
    }, 150_000);
    afterAll(() => cleanup(run.project, run.workdir));

    it(
      ends === 'deadline'
        ? 'kills it at the deadline and keeps the partial transcript'
        : 'the CLI gives up before the deadline, with an error of its own',
      () => {
        const base = join(run.dir, 'trials', 'stalls', 'skill', '1');
        const meta = JSON.parse(readFileSync(`${base}.meta.json`, 'utf8')) as TrialMeta;
        expect(meta.timedOut).toBe(ends === 'deadline');
        if (ends === 'deadline') expect(meta.wallMs).toBeGreaterThanOrEqual(deadlineS * 1000);
        expect(meta.wallMs).toBeLessThan((deadlineS + 15) * 1000); // SIGTERM, then SIGKILL after a 2 s grace
        const t = parse(readFileSync(`${base}.jsonl`, 'utf8'), meta);
        expect(of(t, 'init')).toHaveLength(1);
        expect(of(t, 'result').map((r) => r.status)).toEqual(ends === 'deadline' ? [] : ['api_error']);
        partial(t);
      },
    );

    it('scores it as missing data, never a "did not trigger" FAIL: the model never acted', () => {
      expect(run.exitCode).toBe(4);
      expect(resultsOf(run.dir).outcomes.filter((o) => o.caseId === 'stalls')).toEqual([
        expect.objectContaining({ status: 'infra_error', passed: null }),
      ]);
    });

    it('a stall once the expected skill loaded is missing data too, never a miss (the skill fired, the service then failed)', () => {
      expect(resultsOf(run.dir).outcomes.filter((o) => o.caseId === 'stalls-after')).toEqual([
        expect.objectContaining({ status: 'infra_error', fired: 'expected', passed: null }),
      ]);
    });

    it('leaves no process and no workspace behind', () => {
      expect(leftBehind(run.workdir)).toEqual({ processes: [], files: [] });
    });
  });
}

/**
 * Every scenario in one run of `agent` (one trial each, skill arm, concurrency 3, max turns 3; the knob's binary where
 * one is set) with `config` (none: the defaults), and the conversation scenarios `conversation` names: the project,
 * the workspace folder and the run folder for the caller to check and remove, and what the run printed.
 */
export async function scenarioRun(agent: string, config: string | undefined, deadlineS: number, conversation: ConversationParts = []) {
  const name = `e2e-${agent}`;
  const project = makeProject({
    ...baseProject(),
    'cases/main.yaml': casesFor(SCENARIO_IDS) + conversation.map((part) => CONVERSATION_SCENARIOS[part].cases.join('\n')).join(''),
    'sim.yaml': scenarioProfile(name, conversation),
    ...(config === undefined ? {} : { 'skillprobe.config.yaml': config }),
  });
  const workdir = mkdtempSync(join(tmpdir(), 'sp-work-'));
  const args = [
    'run',
    '--sim',
    'sim.yaml',
    '--trials',
    '1',
    '--arms',
    'skill',
    '--timeout',
    String(deadlineS),
    '--max-turns',
    '3',
    '--concurrency',
    '3',
    '--transcripts',
    'runs',
    '--workdir',
    workdir,
    // The scenarios check what the model does after a firing (its plan): each trial runs to the end of its turn.
    '--no-settle',
    ...testBinaryArgs(agent),
  ];
  const r = await runCli(args, { cwd: project, timeoutMs: 240_000 });
  return { project, workdir, runDir: onlyRun(project), exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

/** A stored trial read back as a regrade would: its meta, and its transcript parsed with that meta. */
export function storedTrial(
  parse: (raw: string, meta: TrialMeta) => Transcript,
  dir: string,
  caseId: string,
  arm = 'skill',
  n = 1,
  suffix = '',
): { t: Transcript; meta: TrialMeta } {
  const base = join(dir, 'trials', caseId, arm, `${n}${suffix}`);
  const meta = JSON.parse(readFileSync(`${base}.meta.json`, 'utf8')) as TrialMeta;
  return { meta, t: parse(readFileSync(`${base}.jsonl`, 'utf8'), meta) };
}
