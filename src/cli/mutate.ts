import { chooseReporters, humanStream, refuseReportersWithout } from '../runner/reports.js';
import { planMutate, prepareMutate, reportMutate, runMutate, type MutateOptions } from '../commands/mutate.js';
import { renderMutatePlan } from '../report/mutate/plan.js';
import { EXIT } from '../run/exit-codes.js';
import { AGENT_IDS } from '../agents/registry.js';
import { OPERATOR_NAMES } from '../mutate/registry.js';
import { defineCommand } from './command.js';
import { exitCodeFor } from './exit.js';
import { unstartedServersNote } from './unstarted-servers.js';
import { CONFIG_FLAGS, reporterFlags, SUITE_FLAGS, toggle, valued } from './flags.js';
import { positive, text } from './parsers.js';
import { nestedRunOverrides, TRIAL_FLAGS } from './trial-flags.js';

const MUTATE_FLAGS = {
  ...CONFIG_FLAGS,
  ...SUITE_FLAGS,
  ...reporterFlags('print the mutate record as JSON (--reporter json)'),
  ...TRIAL_FLAGS,
  agent: valued('--agent <id>', `the agent CLI that runs the trials: ${AGENT_IDS.join(', ')}`, text('--agent')),
  model: valued('-m, --model <model>', 'model passed to the agent CLI', text('--model')),
  operator: valued(
    '--operator <names>',
    `the mutation operators to apply, comma-separated (default: all): ${OPERATOR_NAMES.join(', ')}`,
    (v: string) => v.split(',').map((s) => s.trim()),
  ),
  base: valued(
    '--base <run>',
    'a stored run of the unmutated family (its skill arm, the whole suite) to compare each mutant with, instead of running one',
    text('--base'),
  ),
  pricePerTrial: valued(
    '--price-per-trial <usd>',
    'what one trial costs, for --plan and the --max-cost check',
    positive('--price-per-trial'),
  ),
  plan: toggle('--plan', "print each mutant's power and the expected and worst-case trials and cost, and run nothing"),
  resume: valued('--resume <folder>', 'finish an interrupted mutate: its finished runs are read back, the rest run', text('--resume')),
  transcripts: valued('--transcripts <dir>', 'where the mutate folder is written', text('--transcripts')),
};

export const mutateCommand = defineCommand({
  name: 'mutate',
  description: 'break each skill on purpose, one realistic defect at a time, and count how often the suite notices',
  args: [
    [
      '[skills...]',
      'the skills to mutate (folder or frontmatter name; default: every skill a case expects); read from the folder with --resume',
    ],
  ],
  flags: MUTATE_FLAGS,
  optionsFrom: (o) => ({
    mutate: {
      config: o.config,
      sim: o.sim,
      overrides: nestedRunOverrides(o),
      operators: o.operator,
      drawSeed: o.drawSeed,
      base: o.base,
      maxCostUsd: o.maxCost,
      pricePerTrial: o.pricePerTrial,
      resume: o.resume,
      workdir: o.workdir,
    },
    plan: o.plan === true,
    reporter: o.reporter,
    json: o.json,
  }),
  async run(args, o, io) {
    const opts: MutateOptions = { ...o.mutate, skills: [...args], cwd: io.cwd, callerEnv: io.env, stderr: io.stderr };
    if (o.plan) {
      const p = await prepareMutate(opts, { run: false });
      io.stdout.write(
        renderMutatePlan(p.record, planMutate(p), opts.pricePerTrial, opts.maxCostUsd) + unstartedServersNote(p.loaded.suite.cases),
      );
      return exitCodeFor({ verdicts: [EXIT.pass] }, io);
    }
    const reporters = chooseReporters(o, io);
    refuseReportersWithout(reporters, 'renderMutate', 'mutate');
    const prepared = await prepareMutate(opts);
    if (prepared.loaded.profile)
      io.stderr.write(`skillprobe model SIMULATOR, profile "${prepared.loaded.profile.name}": no real model answers\n`);
    const say = (t: string) => humanStream(reporters, io).write(t);
    const { dir, record } = await runMutate(prepared, opts, say);
    const { failed } = await reportMutate(dir, record, reporters, io);
    return exitCodeFor({ verdicts: [EXIT.pass], statuses: [record.status], failedReporters: failed }, io);
  },
});
