import { planSuite } from '../verdict/suite-plan.js';
import { renderPlan } from '../report/plan.js';
import { loadSuite, type LoadedSuite } from '../runner/load-suite.js';
import { InputError } from '../util/input-error.js';
import { decisionMode } from '../stats/decision-modes/registry.js';
import { gradableCase } from '../trials/stored-case.js';
import { COMPARE_DEFAULTS } from '../verdict/compare-defaults.js';
import { EXIT } from '../run/exit-codes.js';
import { defineCommand, type CliIo } from './command.js';
import { exitCodeFor } from './exit.js';
import { CONFIG_FLAGS, SELECTION_FLAGS, SUITE_FLAGS, toggle, valued } from './flags.js';
import { fraction, positive, probability } from './parsers.js';
import { TRIAL_FLAGS } from './trial-flags.js';
import { caseSelection, nothingToRun } from './suite-flags.js';
import { unstartedServersNote } from './unstarted-servers.js';

interface CanaryToPlan {
  from: number;
  to: number;
  alpha: number;
  power: number;
}

/** The trials per case and run a model-update canary needs, fixed-N beside the baseline and suite-level ones. */
async function planCanary(loaded: LoadedSuite, drop: CanaryToPlan, pricePerTrial: number | undefined, io: CliIo): Promise<void> {
  if (drop.to >= drop.from) {
    throw new InputError({
      file: '--to',
      what: `a drop must end below where it starts (--from ${drop.from}, --to ${drop.to})`,
      todo: 'give --to a rate below --from',
    });
  }
  const defs = loaded.suite.cases.map((c) => gradableCase(c, loaded.config));
  const arms = planSuite(loaded.config, defs).cases.map((c) => c.arms);
  const { planComparison, renderComparisonPlan } = await import('../report/plan-compare.js');
  const { caseDesign } = await import('../stats/case-design.js');
  const designs = !decisionMode(loaded.config.decision.mode).sequential
    ? undefined
    : defs.map((c, i) => ({ design: caseDesign(c), arms: arms[i]! }));
  const caseArms = arms.reduce((sum, a) => sum + a, 0);
  const suite = {
    cases: loaded.suite.cases.length,
    caseArms,
    minTrials: loaded.config.decision.minTrials,
    ...(designs ? { designs } : {}),
  };
  io.stdout.write(renderComparisonPlan(planComparison(drop.from, drop.to, drop.alpha, drop.power, suite), pricePerTrial));
}

const COMPARE_ONLY = ['from', 'to', 'power', 'alpha'] as const;

export const planCommand = defineCommand({
  name: 'plan',
  description: "before spending anything: per case the sequential design's maximum, exact expected trials and α/β, fixed N, and the cost",
  flags: {
    ...SELECTION_FLAGS,
    ...CONFIG_FLAGS,
    cases: SUITE_FLAGS.cases,
    skills: SUITE_FLAGS.skills,
    pricePerTrial: valued('--price-per-trial <usd>', 'what one trial costs, in USD', positive('--price-per-trial')),
    login: TRIAL_FLAGS.login,
    compare: toggle('--compare', 'plan a model-update canary instead: trials per case to catch a drop --from → --to'),
    from: valued('--from <p>', 'with --compare: the pass rate before (default 0.9)', probability('--from')),
    to: valued('--to <p>', 'with --compare: the pass rate a regression drops to (default 0.75)', probability('--to')),
    power: valued('--power <p>', `with --compare: the chance to catch it (default ${COMPARE_DEFAULTS.power})`, fraction('--power')),
    alpha: valued('--alpha <a>', `with --compare: the false-alarm rate (default ${COMPARE_DEFAULTS.alpha})`, fraction('--alpha')),
  },
  optionsFrom(o) {
    const onlyWithCompare = COMPARE_ONLY.filter((k) => o[k] !== undefined && !o.compare);
    if (onlyWithCompare.length)
      throw new InputError({
        file: `--${onlyWithCompare[0]}`,
        what: 'only means something with --compare',
        todo: 'add --compare, or drop it',
      });
    const canary = o.compare
      ? { from: o.from ?? 0.9, to: o.to ?? 0.75, alpha: o.alpha ?? COMPARE_DEFAULTS.alpha, power: o.power ?? COMPARE_DEFAULTS.power }
      : undefined;
    return {
      suite: {
        config: o.config,
        overrides: { cases: o.cases, skillsDir: o.skills, auth: o.login ? 'login' : undefined },
        select: caseSelection(o),
      },
      pricePerTrial: o.pricePerTrial,
      canary,
    };
  },
  async run(_args, o, io) {
    // The environment for the PATH a real MCP server's command is found on (no credentials are checked: nothing runs).
    const loaded = loadSuite({ ...o.suite, cwd: io.cwd, callerEnv: io.env }, { run: false });
    if (nothingToRun(loaded, io)) return exitCodeFor({ verdicts: [EXIT.pass] }, io);
    if (o.canary) await planCanary(loaded, o.canary, o.pricePerTrial, io);
    else
      io.stdout.write(
        renderPlan(
          planSuite(
            loaded.config,
            loaded.suite.cases.map((c) => gradableCase(c, loaded.config)),
          ),
          o.pricePerTrial,
          loaded.config.auth,
        ),
      );
    io.stdout.write(unstartedServersNote(loaded.suite.cases));
    return exitCodeFor({ verdicts: [EXIT.pass] }, io);
  },
});
