import { AGENT_IDS } from '../agents/registry.js';
import type { RunOptions } from '../commands/run.js';
import type { BaselineFlags } from '../commands/run-baseline.js';
import { InputError } from '../load/input-error.js';
import { ARMS, DECISION_MODES } from '../run/config-schema.js';
import { COMPARE_DEFAULTS } from '../verdict/compare-defaults.js';
import { EXIT } from '../run/exit-codes.js';
import { caseSelection } from './suite-flags.js';
import {
  agentList,
  armList,
  choice,
  CONFIG_FLAGS,
  fraction,
  int,
  positive,
  probability,
  reporterFlags,
  SELECTION_FLAGS,
  shard,
  SUITE_FLAGS,
  text,
  toggle,
  valued,
  type FlagValues,
} from './flags.js';

export const RUN_FLAGS = {
  ...SELECTION_FLAGS,
  ...reporterFlags('print the results as JSON instead of the terminal report (--reporter json)'),
  ...CONFIG_FLAGS,
  sim: valued('--sim <profile>', 'run against the built-in model SIMULATOR with this profile (no credentials needed)', text('--sim')),
  trials: valued('-n, --trials <n>', 'a fixed number of trials per case and arm (implies --mode fixed)', int('--trials', 1)),
  concurrency: valued('-j, --concurrency <n>', 'trials running at once', int('--concurrency', 1)),
  model: valued('-m, --model <model>', 'model passed to the agent CLI', text('--model')),
  ...SUITE_FLAGS,
  transcripts: valued('--transcripts <dir>', 'where run folders are written', text('--transcripts')),
  timeout: valued('--timeout <seconds>', 'harness deadline per trial', positive('--timeout')),
  maxTurns: valued('--max-turns <n>', 'agent max turns', int('--max-turns', 1)),
  maxOutputMb: valued(
    '--max-output-mb <n>',
    'stop a trial that prints more than this many MB (stored up to the cap, not scored)',
    positive('--max-output-mb'),
  ),
  arms: valued('--arms <list>', `arms to run (${ARMS.join(',')})`, armList),
  ablation: choice('--ablation <mode>', 'scored: the ablation arm only where it scores plan checks; always', ['scored', 'always']),
  agent: valued(
    '--agent <ids>',
    `the agent CLI, or several (comma-separated: the suite runs once per agent): ${AGENT_IDS.join(', ')}`,
    agentList,
  ),
  agentBinary: valued('--agent-binary <path>', 'agent CLI binary (default: the pinned one)', text('--agent-binary')),
  workdir: valued('--workdir <dir>', 'where sealed workspaces are created (default: the system temp folder)', text('--workdir')),
  keepWorkspaces: toggle('--keep-workspaces', 'leave workspaces on disk for inspection'),
  mode: choice(
    '--mode <mode>',
    "sequential: stop each case as soon as it is decided, every case decided by the design's maximum; sprt: Wald's test; fixed: --trials per case",
    DECISION_MODES,
  ),
  threshold: valued('--threshold <p0>', 'pass rate every case must reach (default 0.9)', probability('--threshold')),
  minTrials: valued('--min-trials <n>', 'sequential mode: fewest trials before a decision', int('--min-trials', 1)),
  maxTrials: valued(
    '--max-trials <n>',
    "sequential modes: a cap on trials per case (default: the design's maximum); undecided there → INCONCLUSIVE",
    int('--max-trials', 1),
  ),
  correction: choice('--correction <method>', 'fixed mode: multiple-testing correction across cases', ['bh', 'bonferroni', 'none']),
  inconclusive: choice('--inconclusive <policy>', 'what INCONCLUSIVE does to the exit code', ['fail', 'warn', 'pass']),
  gate: toggle('--no-gate', 'report the verdicts but exit 0 (exploring, not gating CI); input errors still exit 2'),
  resume: valued(
    '--resume <run>',
    'finish an interrupted run folder: replay its stored trials, run only the missing ones (same inputs required)',
    text('--resume'),
  ),
  force: toggle('--force', 'with --resume: go on although skills, cases, config or agent changed (recorded in run.json)'),
  shard: valued('--shard <i/n>', 'run only share I of N of the cases (for a CI matrix; join the shards with `skillprobe merge`)', shard),
  maxCost: valued(
    '--max-cost <usd>',
    `stop scheduling once the trials' reported costs reach this many USD (a partial run: exit ${EXIT.costCapped})`,
    positive('--max-cost'),
  ),
  baseline: valued(
    '--baseline <run>',
    'run as a canary against this stored run: each case samples until its drop is shown or ruled out, then the two are compared (exit 1 on a regression)',
    text('--baseline'),
  ),
  margin: valued(
    '--margin <d>',
    `with --baseline: the drop worth catching; UNCHANGED rules it out (default ${COMPARE_DEFAULTS.margin})`,
    fraction('--margin'),
  ),
  alpha: valued(
    '--alpha <a>',
    `with --baseline: the false-alarm rate across cases (default ${COMPARE_DEFAULTS.alpha})`,
    fraction('--alpha'),
  ),
  keepGoing: toggle('--keep-going', "with --baseline: run every case to its canary's end instead of stopping at the first regression"),
  addTrials: valued(
    '--add-trials <n>',
    "with --resume: top a finished run up by this many trials per case, after each case's design stopped it",
    int('--add-trials', 1),
  ),
};

type RunFlagValues = FlagValues<typeof RUN_FLAGS>;

const refuse = (file: string, what: string, todo: string): never => {
  throw new InputError({ file, what, todo });
};

/** `--baseline` and `--add-trials` and the flags that only mean something beside them. */
function checkBaselineFlags(o: RunFlagValues): void {
  const alone = { margin: '--margin', alpha: '--alpha', keepGoing: '--keep-going' } as const;
  for (const [key, flag] of Object.entries(alone)) {
    if (o[key as keyof typeof alone] !== undefined && o.baseline === undefined)
      refuse(flag, 'only means something with --baseline', 'add --baseline <run folder>, or drop it');
  }
  if (o.addTrials !== undefined && o.resume === undefined)
    refuse('--add-trials', 'tops up a stored run, and names none', 'add --resume <run folder>');
  if (o.baseline === undefined) return;
  const excluded = [
    ['resume', '--resume', 'a resumed canary keeps the canary it started with', 'drop --baseline (the run folder remembers its base)'],
    [
      'trials',
      '--trials',
      'a canary samples each case until it is decided, not a fixed number of times',
      'drop --trials (cap a case with --max-trials)',
    ],
    ['shard', '--shard', "a canary's false-alarm rate is shared across all the suite's cases", 'run the canary unsharded'],
  ] as const;
  for (const [key, file, what, todo] of excluded) if (o[key] !== undefined) refuse(file, what, todo);
  if (o.mode === 'fixed')
    refuse('--mode', 'a canary samples each case until it is decided, not a fixed number of times', 'drop --mode fixed');
  if (o.agent && o.agent.length > 1) refuse('--agent', 'a canary runs one agent against its base', 'run one canary per agent (--agent ID)');
}

export interface RunCommandOptions {
  run: RunOptions;
  /** The agents named by --agent, before a resumed run of several agents adds its own. */
  agents?: string[];
  reporter?: FlagValues<typeof RUN_FLAGS>['reporter'];
  json?: boolean;
  gate: boolean;
  baseline?: BaselineFlags;
}

/** The run's options from its flags, refusing combinations that mean nothing before anything is loaded. */
export function runOptionsFrom(o: RunFlagValues): RunCommandOptions {
  if (o.force === true && o.resume === undefined)
    refuse('--force', 'only means something with --resume', 'add --resume <run folder>, or drop --force');
  checkBaselineFlags(o);
  if (o.trials !== undefined && o.mode !== undefined && o.mode !== 'fixed') {
    refuse(
      '--trials',
      'a fixed number of trials and a sequential test exclude each other',
      `drop --trials (${o.mode} uses --min-trials/--max-trials) or use --mode fixed`,
    );
  }
  const baseline =
    o.baseline === undefined
      ? undefined
      : { baseline: o.baseline, margin: o.margin, alpha: o.alpha, maxTrials: o.maxTrials, keepGoing: o.keepGoing === true };
  const run: RunOptions = {
    config: o.config,
    sim: o.sim,
    keepWorkspaces: o.keepWorkspaces === true,
    workdir: o.workdir,
    resume: o.resume,
    force: o.force === true,
    select: caseSelection(o),
    shard: o.shard,
    addTrials: o.addTrials,
    overrides: {
      trials: o.trials,
      concurrency: o.concurrency,
      model: o.model,
      skillsDir: o.skills,
      cases: o.cases,
      transcriptsDir: o.transcripts,
      maxTurns: o.maxTurns,
      maxOutputMB: o.maxOutputMb,
      arms: o.arms,
      ablation: o.ablation,
      agents: o.agent,
      agentBinary: o.agentBinary,
      maxCostUsd: o.maxCost,
      ...(o.timeout !== undefined ? { timeouts: { trialSeconds: o.timeout } } : {}),
      decision: {
        // `--trials N` asks for exactly N trials: a fixed design, whatever the config file's mode.
        mode: o.mode ?? (o.trials !== undefined ? 'fixed' : undefined),
        threshold: o.threshold,
        minTrials: o.minTrials,
        // With --baseline it caps the canary, not the cases' own designs.
        maxTrials: baseline === undefined ? o.maxTrials : undefined,
        correction: o.correction,
        inconclusive: o.inconclusive,
      },
    },
  };
  return { run, agents: o.agent, reporter: o.reporter, json: o.json, gate: o.gate !== false, ...(baseline ? { baseline } : {}) };
}
