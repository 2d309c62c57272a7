import { EXIT } from '../run/exit-codes.js';
import { CONTEXTS } from '../run/config-schema.js';
import { choice, toggle, valued, type FlagValues, type SUITE_FLAGS } from './flags.js';
import { concurrency, int, positive, text } from './parsers.js';

/**
 * How trials are started, the same flags on every command that starts them (`run`, `tune`, `rejudge`): where they run
 * (the simulator, the workspaces' folder), how many at once, how long each may take, and what they may spend.
 */
export const TRIAL_FLAGS = {
  sim: valued(
    '--sim <profile>',
    'run the trials against the built-in model SIMULATOR with this profile (no credentials needed; a simulated run is resumed and rejudged with it)',
    text('--sim'),
  ),
  drawSeed: valued(
    '--draw-seed <n>',
    "with --sim: seed the simulator's draws (default: a fresh seed, kept in the run or tune folder); given the same seed, trials share their draws",
    int('--draw-seed', 0),
  ),
  concurrency: valued(
    '-j, --concurrency <n|auto>',
    'trials running at once, or auto: adaptive to the provider (default against a real model)',
    concurrency,
  ),
  context: choice(
    '--context <lab|field>',
    "lab: the CLI's read tools and skill tool only; field: its default tools, every acting call refused before it runs (default: the config's, else lab)",
    CONTEXTS,
  ),
  timeout: valued('--timeout <seconds>', 'harness deadline per trial', positive('--timeout')),
  workdir: valued('--workdir <dir>', 'where sealed workspaces are created (default: the system temp folder)', text('--workdir')),
  login: toggle(
    '--login',
    "use the agent CLI's own subscription login (only its credential file is copied into each trial) instead of an API key; the same as `auth: login`",
  ),
  maxCost: valued(
    '--max-cost <usd>',
    `stop scheduling once the trials' reported costs reach this many USD (what ran is kept, a partial run: exit ${EXIT.costCapped})`,
    positive('--max-cost'),
  ),
};

/**
 * The config overrides of a command that starts nested runs (`tune`, `mutate`): the same trial and suite flags mean
 * the same settings in both, `--login` among them.
 */
export function nestedRunOverrides(
  o: FlagValues<typeof TRIAL_FLAGS & typeof SUITE_FLAGS> & { agent?: string; model?: string; transcripts?: string },
) {
  return {
    agent: o.agent,
    model: o.model,
    skillsDir: o.skills,
    cases: o.cases,
    transcriptsDir: o.transcripts,
    concurrency: o.concurrency,
    context: o.context,
    auth: o.login ? ('login' as const) : undefined,
    ...(o.timeout !== undefined ? { timeouts: { trialSeconds: o.timeout } } : {}),
  };
}
