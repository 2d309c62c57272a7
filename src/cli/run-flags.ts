import { AGENT_IDS } from '../agents/registry.js';
import { ARMS, DECISION_MODES } from '../run/config-schema.js';
import { COMPARE_DEFAULTS } from '../verdict/compare-defaults.js';
import { choice, CONFIG_FLAGS, reporterFlags, SELECTION_FLAGS, SUITE_FLAGS, toggle, valued } from './flags.js';
import { agentList, armList, contextList, fraction, int, positive, probability, shard, text } from './parsers.js';
import { TRIAL_FLAGS } from './trial-flags.js';

/**
 * The most trials `--add-trials` adds per case: nearly three times what `plan --compare` prescribes for a base at a
 * margin of 0.1 (364 per case on 11 cases); a larger number is a typo, not a plan.
 */
export const MAX_ADD_TRIALS = 1000;

/** Every flag of `skillprobe run`, in the order its help lists them. */
export const RUN_FLAGS = {
  ...SELECTION_FLAGS,
  ...reporterFlags('print the results as JSON instead of the terminal report (--reporter json)'),
  ...CONFIG_FLAGS,
  ...TRIAL_FLAGS,
  context: valued(
    '--context <lab|field|lab,field>',
    "lab: the CLI's read tools and skill tool only; field: its default tools, every acting call refused before it runs; lab,field: one run in each, reported side by side with each case's lab→field difference (default: the config's, else lab)",
    contextList,
  ),
  trials: valued('-n, --trials <n>', 'a fixed number of trials per case and arm (implies --mode fixed)', int('--trials', 1)),
  model: valued('-m, --model <model>', 'model passed to the agent CLI', text('--model')),
  ...SUITE_FLAGS,
  transcripts: valued('--transcripts <dir>', 'where run folders are written', text('--transcripts')),
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
  keepWorkspaces: toggle('--keep-workspaces', 'leave workspaces on disk for inspection'),
  waitForReset: toggle(
    '--wait-for-reset',
    "at a subscription's usage limit (--login), sleep until it resets (at most 6 h) and go on, instead of stopping the run to resume later",
  ),
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
  settle: toggle(
    '--no-settle',
    "run every trial to the end of its turn (default: a trigger-only trial stops once its outcome is settled: the skill's call and its load status)",
  ),
  resume: valued(
    '--resume <run>',
    'finish an interrupted run folder: replay its stored trials, run only the missing ones (same inputs required)',
    text('--resume'),
  ),
  force: toggle('--force', 'with --resume: go on although skills, cases, config or agent changed (recorded in run.json)'),
  shard: valued('--shard <i/n>', 'run only share I of N of the cases (for a CI matrix; join the shards with `skillprobe merge`)', shard),
  baseline: valued(
    '--baseline <run>',
    'run as a canary against this stored run: each case samples until its drop is shown or ruled out, then the two are compared (exit 1 on a regression)',
    text('--baseline'),
  ),
  forBaseline: toggle(
    '--for-baseline',
    `a run meant as the base of \`run --baseline\`: every case the fixed number of trials \`plan --compare\` prescribes to see a drop of --margin from --threshold`,
  ),
  margin: valued(
    '--margin <d>',
    `with --baseline or --for-baseline: the drop worth catching; UNCHANGED rules it out (default ${COMPARE_DEFAULTS.margin})`,
    fraction('--margin'),
  ),
  alpha: valued(
    '--alpha <a>',
    `with --baseline or --for-baseline: the false-alarm rate across cases (default ${COMPARE_DEFAULTS.alpha})`,
    fraction('--alpha'),
  ),
  topUpBaseline: toggle(
    '--top-up-baseline',
    'with --baseline: a base too small for the canary to rule out a drop of --margin in some case is first topped up to the size --for-baseline gives (its own suite, the same agent, CLI and model only; priced first, counted in --max-cost)',
  ),
  stopAtFirstRegression: toggle(
    '--stop-at-first-regression',
    'with --baseline: stop every case at the first regression (fewer trials; the cases cut short stay undecided) instead of running each to its end',
  ),
  keepGoing: toggle(
    '--keep-going',
    'with --baseline: run every case to its end; the default now, still accepted so scripts that pass it keep running',
  ),
  addTrials: valued(
    '--add-trials <n>',
    `with --resume: top a finished run up by this many trials per case (at most ${MAX_ADD_TRIALS}), after each case's design stopped it; priced first, refused past --max-cost`,
    int('--add-trials', 1, MAX_ADD_TRIALS),
  ),
};
