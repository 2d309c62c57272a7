import type { RunOptions } from '../runner/load-suite.js';
import type { BaselineFlags } from '../commands/run-baseline.js';
import { InputError } from '../util/input-error.js';
import type { Context } from '../run/config-schema.js';
import type { FlagValues } from './flags.js';
import type { RUN_FLAGS } from './run-flags.js';
import { caseSelection } from './suite-flags.js';

type RunFlagValues = FlagValues<typeof RUN_FLAGS>;

const refuse = (file: string, what: string, todo: string): never => {
  throw new InputError({ file, what, todo });
};

/** `--baseline`, `--for-baseline` and `--add-trials` and the flags that only mean something beside them. */
function checkBaselineFlags(o: RunFlagValues): void {
  if (o.stopAtFirstRegression !== undefined && o.baseline === undefined)
    refuse('--stop-at-first-regression', 'only means something with --baseline', 'add --baseline <run folder>, or drop it');
  if (o.keepGoing !== undefined && o.stopAtFirstRegression !== undefined)
    refuse('--keep-going', 'runs every case to its end, which --stop-at-first-regression cuts short', 'drop one of the two');
  if (o.topUpBaseline !== undefined && o.baseline === undefined)
    refuse('--top-up-baseline', 'only means something with --baseline', 'add --baseline <run folder>, or drop it');
  if (o.keepGoing !== undefined && o.baseline === undefined)
    refuse('--keep-going', 'only means something with --baseline', 'add --baseline <run folder>, or drop it');
  for (const [key, flag] of [
    ['margin', '--margin'],
    ['alpha', '--alpha'],
  ] as const) {
    if (o[key] !== undefined && o.baseline === undefined && o.forBaseline === undefined)
      refuse(flag, 'only means something with --baseline or --for-baseline', 'add --baseline <run folder> or --for-baseline, or drop it');
  }
  if (o.forBaseline !== undefined) {
    for (const [key, flag, what] of [
      ['baseline', '--baseline', 'a base is the run a canary is drawn against, not a canary'],
      ['trials', '--trials', '--for-baseline sets the trials per case'],
      ['mode', '--mode', '--for-baseline runs a fixed number of trials'],
      ['resume', '--resume', 'a resumed run keeps the trials it started with'],
    ] as const)
      if (o[key] !== undefined) refuse(flag, `${what}`, `drop ${flag}, or --for-baseline`);
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
  /** `--for-baseline`: the drop the base must let a canary see. */
  forBaseline?: { margin?: number; alpha?: number };
  /** `--context lab,field`: one run per context, side by side. */
  contexts?: Context[];
  /** Where both contexts were asked for, when not by `--context lab,field`: the config's `context: [lab, field]`. */
  contextsFrom?: string;
}

/** The run's options as its flags give them: where it runs from and the caller's environment come with the command's io. */
export type RunFlagOptions = Omit<RunCommandOptions, 'run'> & { run: Omit<RunOptions, 'cwd' | 'callerEnv'> };

/**
 * Both contexts side by side are one agent's whole suite in each: what that cannot be combined with, refused. `from`
 * names where both were asked for (`--context lab,field`, or the config's `context: [lab, field]`).
 */
export function checkContexts(o: RunFlagOptions, from: string): void {
  const both = (flag: string, what: string, todo: string) => refuse(flag, `${what}, and ${from} runs two`, todo);
  if (o.run.select?.lastFailed)
    both('--last-failed', "reads one run's failures", 'rerun the failures of each context on its own (--context lab --last-failed)');
  if (o.agents && o.agents.length > 1) both('--agent', 'several agents are one run each', 'run lab,field once per agent (--agent ID)');
}

/** The run's options from its flags, refusing combinations that mean nothing before anything is loaded. */
export function runOptionsFrom(o: RunFlagValues): RunFlagOptions {
  if (o.force === true && o.resume === undefined)
    refuse('--force', 'only means something with --resume', 'add --resume <run folder>, or drop --force');
  checkBaselineFlags(o);
  if (o.drawSeed !== undefined && o.sim === undefined)
    refuse('--draw-seed', "seeds the model simulator's draws, and this run has no simulator", 'add --sim <profile>, or drop --draw-seed');
  if (o.trials !== undefined && o.mode !== undefined && o.mode !== 'fixed') {
    refuse(
      '--trials',
      'a fixed number of trials and a sequential test exclude each other',
      `drop --trials (${o.mode} uses --min-trials/--max-trials) or use --mode fixed`,
    );
  }
  const contexts = Array.isArray(o.context) ? o.context : undefined;
  const baseline =
    o.baseline === undefined
      ? undefined
      : {
          baseline: o.baseline,
          margin: o.margin,
          alpha: o.alpha,
          maxTrials: o.maxTrials,
          stopAtFirstRegression: o.stopAtFirstRegression === true,
          topUpBaseline: o.topUpBaseline === true,
        };
  const run: RunFlagOptions['run'] = {
    config: o.config,
    sim: o.sim,
    drawSeed: o.drawSeed,
    keepWorkspaces: o.keepWorkspaces === true,
    waitForReset: o.waitForReset === true,
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
      auth: o.login ? 'login' : undefined,
      settle: o.settle === false ? false : undefined,
      context: contexts ? undefined : o.context,
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
  const options: RunFlagOptions = {
    run,
    agents: o.agent,
    reporter: o.reporter,
    json: o.json,
    gate: o.gate !== false,
    ...(baseline ? { baseline } : {}),
    ...(o.forBaseline ? { forBaseline: { margin: o.margin, alpha: o.alpha } } : {}),
    ...(contexts ? { contexts } : {}),
  };
  if (contexts) checkContexts(options, '--context lab,field');
  return options;
}

/**
 * A canary resumed (`--resume` of a `--baseline` run): `--max-trials` caps the canary, as it did beside `--baseline`,
 * and is checked against that cap; the cases' own designs keep the config's.
 */
export function asCanaryResume<R extends RunFlagOptions['run']>(run: R): R {
  const { maxTrials, ...decision } = run.overrides.decision as { maxTrials?: number };
  return { ...run, canaryMaxTrials: maxTrials, overrides: { ...run.overrides, decision } };
}
