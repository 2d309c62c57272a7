import { chooseReporters, humanStream, refuseReportersWithout, type ReporterChoice } from '../runner/reports.js';
import { holdoutPlanText, renderTunePlan } from '../report/tune/plan.js';
import { planTune, prepareTune, reportTune, runTune } from '../commands/tune.js';
import { TUNE_DEFAULTS } from '../tune/options.js';
import { stepConfigs, writeResult, type TuneOptions } from '../runner/tune-driver.js';
import { writeTuneRecord } from '../run/tune-store.js';
import { EXIT } from '../run/exit-codes.js';
import { AGENT_IDS } from '../agents/registry.js';
import { HOLDOUT_DESIGN_DEFAULTS } from '../tune/holdout-design.js';
import { defineCommand } from './command.js';
import { exitCodeFor } from './exit.js';
import { unstartedServersNote } from './unstarted-servers.js';
import { CONFIG_FLAGS, reporterFlags, SUITE_FLAGS, toggle, valued } from './flags.js';
import { fraction, int, positive, text } from './parsers.js';
import { nestedRunOverrides, TRIAL_FLAGS } from './trial-flags.js';

const TUNE_FLAGS = {
  ...CONFIG_FLAGS,
  ...SUITE_FLAGS,
  ...reporterFlags('print the tune record as JSON (--reporter json)'),
  ...TRIAL_FLAGS,
  agent: valued('--agent <id>', `the agent CLI that runs the trials and proposes rewrites: ${AGENT_IDS.join(', ')}`, text('--agent')),
  model: valued('-m, --model <model>', 'model passed to the agent CLI', text('--model')),
  proposerModel: valued(
    '--proposer-model <model>',
    'a different model for the proposer (default: the trials’ model)',
    text('--proposer-model'),
  ),
  iterations: valued('--iterations <n>', `rewrites to try (default ${TUNE_DEFAULTS.iterations})`, int('--iterations', 1, 50)),
  holdoutTrials: valued(
    '--holdout-trials <n>',
    `the most trials per holdout case for the original and the winner (default: ${TUNE_DEFAULTS.holdoutCapPerTrial} × the config’s trials); the holdout stops sooner once decided, and --resume with more goes on`,
    int('--holdout-trials', 1),
  ),
  gain: valued(
    '--gain <d>',
    `the recall gain the holdout sets out to prove, or rule out (default ${HOLDOUT_DESIGN_DEFAULTS.gain}); --plan states the power for it`,
    fraction('--gain'),
  ),
  seed: valued('--seed <n>', `seed of the tune/select/holdout split (default ${TUNE_DEFAULTS.seed})`, int('--seed', 0)),
  alpha: valued(
    '--alpha <a>',
    `false IMPROVED rate of the holdout's sequential test, and level of its WORSE tests (default ${TUNE_DEFAULTS.alpha})`,
    fraction('--alpha'),
  ),
  pricePerTrial: valued(
    '--price-per-trial <usd>',
    'what one trial costs, for --plan and the --max-cost check',
    positive('--price-per-trial'),
  ),
  plan: toggle('--plan', 'print the expected and worst-case trials and cost, and run nothing'),
  write: toggle(
    '--write',
    'write the winning description into SKILL.md when it is significantly better (the rest of the file kept byte for byte)',
  ),
  resume: valued(
    '--resume <folder>',
    'finish an interrupted tune (its finished runs are read back, the rest run), or with a higher --holdout-trials sample an undecided holdout further',
    text('--resume'),
  ),
  transcripts: valued('--transcripts <dir>', 'where the tune folder is written', text('--transcripts')),
};

interface TuneCommandOptions {
  tune: Omit<TuneOptions, 'skill' | 'cwd' | 'callerEnv' | 'stderr'>;
  plan: boolean;
  write: boolean;
  reporter?: ReporterChoice[];
  json?: boolean;
}

export const tuneCommand = defineCommand({
  name: 'tune',
  description: "rewrite a skill's description until it triggers, and prove the gain on holdout cases no step saw",
  args: [['[skill]', 'the skill to tune (folder or frontmatter name); read from the tune folder with --resume']],
  flags: TUNE_FLAGS,
  optionsFrom: (o): TuneCommandOptions => ({
    tune: {
      config: o.config,
      sim: o.sim,
      overrides: nestedRunOverrides(o),
      proposerModel: o.proposerModel,
      iterations: o.iterations,
      holdoutTrials: o.holdoutTrials,
      seed: o.seed,
      drawSeed: o.drawSeed,
      alpha: o.alpha,
      gain: o.gain,
      maxCostUsd: o.maxCost,
      pricePerTrial: o.pricePerTrial,
      resume: o.resume,
      workdir: o.workdir,
    },
    plan: o.plan === true,
    write: o.write === true,
    reporter: o.reporter,
    json: o.json,
  }),
  async run(args, o, io) {
    const opts: TuneOptions = { ...o.tune, skill: args[0], cwd: io.cwd, callerEnv: io.env, stderr: io.stderr };
    if (o.plan) {
      const p = await prepareTune(opts, { run: false });
      io.stdout.write(
        renderTunePlan(
          planTune(p, stepConfigs(p.loaded.config, opts, p.options.holdoutTrials).evaluate),
          opts.pricePerTrial,
          p.options.maxCostUsd,
        ) +
          holdoutPlanText(p) +
          unstartedServersNote(p.loaded.suite.cases),
      );
      return exitCodeFor({ verdicts: [EXIT.pass] }, io);
    }
    const reporters = chooseReporters(o, io);
    refuseReportersWithout(reporters, 'renderTune', 'tune');
    const say = (t: string) => humanStream(reporters, io).write(t);
    const prepared = await prepareTune(opts);
    if (prepared.loaded.profile)
      io.stderr.write(
        `skillprobe model SIMULATOR, profile "${prepared.loaded.profile.name}": no real model answers${opts.drawSeed !== undefined ? `; draws seeded ${opts.drawSeed} (--draw-seed: a tune given the same seed draws the same trials)` : ''}\n`,
      );
    const { dir, record } = await runTune(prepared, opts, (t) => io.stderr.write(t));
    if (o.write && record.status === 'completed') {
      record.written = await writeResult(record);
      await writeTuneRecord(dir, record);
      if (!record.written) say('--write: nothing written, the original description stays\n');
    }
    const { failed } = await reportTune(dir, record, reporters, io);
    return exitCodeFor({ verdicts: [EXIT.pass], statuses: [record.status], failedReporters: failed }, io);
  },
});
