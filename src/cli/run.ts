import { planSuite } from '../verdict/suite-plan.js';
import { capWarnings } from '../report/plan.js';
import {
  chooseReporters,
  humanStream,
  refuseReportersWithout,
  reportAgents,
  reportContexts,
  reportRun,
  type ReporterChoice,
} from '../runner/reports.js';
import { configContexts, loadContextSuites, loadSuites, type LoadedSuite } from '../runner/load-suite.js';
import { join } from 'node:path';
import { describeRunDir } from '../util/paths.js';
import { agentsToResume, contextsToResume, readAgentsRecord, runAgents } from '../runner/agents-run.js';
import { runPipeline } from '../runner/pipeline.js';
import { holdsCanary } from '../runner/resume.js';
import { InputError } from '../util/input-error.js';
import { decisionMode } from '../stats/decision-modes/registry.js';
import { gradableCase } from '../trials/stored-case.js';
import { plural } from '../util/text.js';
import { EXIT } from '../run/exit-codes.js';
import type { AgentRuns } from '../run/schema.js';
import { COMPARE_DEFAULTS } from '../verdict/compare-defaults.js';
import { defineCommand, type CliIo, type ExitCode } from './command.js';
import { exitCodeFor, reportDamaged } from './exit.js';
import { REPORTERS_HELP } from './flags.js';
import { RUN_FLAGS } from './run-flags.js';
import { asCanaryResume, checkContexts, runOptionsFrom, type RunCommandOptions } from './run-options.js';
import { nothingToRun } from './suite-flags.js';
import { resumeCommand } from './resume-command.js';

/** Before anything is spent: each case whose maxTrials cuts its design short, and what that costs. */
function warnCaps(loaded: LoadedSuite, io: CliIo): void {
  if (!decisionMode(loaded.config.decision.mode).sequential) return;
  const plan = planSuite(
    loaded.config,
    loaded.suite.cases.map((c) => gradableCase(c, loaded.config)),
  );
  for (const w of capWarnings(plan)) io.stderr.write(`warning: ${w}\n`);
}

/** Before anything is spent: what an imported eval file holds that its cases do not carry, each at its line. */
function warnUncarried(loaded: LoadedSuite, io: CliIo): void {
  for (const n of loaded.suite.uncarried ?? []) io.stderr.write(`warning: ${n.file}:${n.line}:${n.col}: ${n.what}\n`);
}

const simulatorNotice = (loaded: LoadedSuite, io: CliIo, drawSeed: number | undefined) => {
  if (loaded.profile)
    io.stderr.write(
      `skillprobe model SIMULATOR, profile "${loaded.profile.name}": no real model answers${drawSeed !== undefined ? `; draws seeded ${drawSeed} (--draw-seed: runs given the same seed share their draws trial for trial)` : ''}\n`,
    );
};

/** A shard no case falls to: nothing to run, said, and a clean exit. */
function emptyShard(shard: NonNullable<LoadedSuite['shard']>, say: (text: string) => void, io: CliIo): ExitCode {
  say(
    `shard ${shard.index}/${shard.total}: no case falls to this share (${plural(shard.suiteCases.length, 'case')} over ${shard.total} shards); nothing to run\n`,
  );
  return exitCodeFor({ verdicts: [EXIT.pass] }, io);
}

/**
 * The suite once per agent (or a run of several agents resumed), or one agent's suite once per context
 * (`--context lab,field`), into one folder that names each run; reported together.
 */
async function runSeveral(suites: LoadedSuite[], o: RunCommandOptions, reporters: ReporterChoice[], io: CliIo): Promise<ExitCode> {
  const say = (text: string) => humanStream(reporters, io).write(text);
  const { shard } = suites[0]!;
  if (shard && suites[0]!.suite.cases.length === 0) return emptyShard(shard, say, io);
  simulatorNotice(suites[0]!, io, o.run.drawSeed);
  const { contexts } = o;
  const canaryCommand = () => import('../commands/run-baseline.js');
  // A lab,field canary: each context's canary against the same context's run of the base.
  const canaries =
    contexts && o.baseline
      ? await (await canaryCommand()).prepareContextCanaries(suites, contexts, o.baseline, (text) => io.stderr.write(text), o.run)
      : undefined;
  const { dir, runs, missing } = await runAgents(suites, o.run, say, contexts && { contexts, ...(canaries ? { canaries } : {}) });
  // Its runs remember their bases: a resumed one reports against them as an uninterrupted one would.
  const againstBases = contexts && runs.length > 0 && runs.every((r) => r.manifest.canary);
  const { failed, exitCode } = againstBases
    ? await (await canaryCommand()).reportContextCanaries(runs, missing, reporters, io)
    : { ...(await (contexts ? reportContexts : reportAgents)(dir, runs, missing, reporters, io)), exitCode: undefined };
  for (const r of runs) reportDamaged(r.results, io);
  const folder = describeRunDir({ dir }, io.cwd);
  say(
    contexts
      ? `run in ${contexts.join(' and ')}: ${runs.map((r, i) => `${contexts[i]} ${r.manifest.status}`).join(', ')}\nrun folder: ${folder} (agents.json names each context's run folder)\n`
      : `run of ${plural(suites.length, 'agent')} ${runs.map((r) => `${r.manifest.agent.id} ${r.manifest.status}`).join(', ')}\nrun folder: ${folder} (agents.json names each agent's run folder)\n`,
  );
  if (runs.some((r) => r.manifest.status === 'interrupted'))
    say(`interrupted: \`${resumeCommand(io.argv ?? ['run'], folder)}\` resumes the stopped run and runs the ones never started\n`);
  // Every run's verdicts gate: the worst of them (a FAIL anywhere is a FAIL).
  return exitCodeFor(
    {
      verdicts: exitCode === undefined ? runs.map((r) => r.results.exitCode) : [exitCode],
      statuses: runs.map((r) => r.manifest.status),
      failedReporters: failed,
      ...(o.gate ? {} : { gateOff: { say, whose: exitCode === undefined ? "verdicts'" : "comparisons'" } }),
    },
    io,
  );
}

/** One agent's run, or a canary against its base: trials, grading, reports, and what to do next. */
async function runOne(loaded: LoadedSuite, o: RunCommandOptions, reporters: ReporterChoice[], io: CliIo): Promise<ExitCode> {
  const human = humanStream(reporters, io);
  const say = (text: string) => human.write(text);
  if (nothingToRun(loaded, io, human !== io.stdout)) return exitCodeFor({ verdicts: [EXIT.pass] }, io);
  if (loaded.shard && loaded.suite.cases.length === 0) return emptyShard(loaded.shard, say, io);
  simulatorNotice(loaded, io, o.run.drawSeed);
  // Loaded only for a canary: the exact tests it needs are no part of an ordinary run's start.
  const canaryCommand = () => import('../commands/run-baseline.js');
  const against = o.baseline
    ? await (await canaryCommand()).prepareCanary(loaded, o.baseline, (text) => io.stderr.write(text), o.run)
    : undefined;
  const opts = against ? { ...o.run, canary: against.canary } : o.run;
  const { store, manifest, results } = await runPipeline(loaded, opts, {
    onPrepared: (target) => {
      if (opts.resume !== undefined) {
        io.stderr.write(
          `resuming run ${target.manifest.runId}: ${plural(target.stored.length, 'stored trial')} replayed in trial order; only missing trials run\n`,
        );
      }
      if (target.topUp)
        io.stderr.write(
          `topping up: ${plural(target.topUp.trials, 'trial')} more${target.topUp.costUsd === undefined ? '' : `, about $${target.topUp.costUsd.toFixed(2)} at the run's mean cost per trial`}\n`,
        );
      for (const kept of target.setAside ?? [])
        io.stderr.write(`a transcript without its meta.json, kept as ${kept}: its trial runs again\n`);
    },
  });
  const candidate = { dir: describeRunDir(store, io.cwd), manifest, results };
  // A canary resumed reports the comparison, as it would have uninterrupted: the run folder remembers its base.
  const resumed = !against && manifest.canary ? await (await canaryCommand()).resumedCanary(manifest.canary, io.cwd) : undefined;
  const versus = against ? { base: against.base, flags: o.baseline! } : resumed;
  const { failed, exitCode } = versus
    ? await (await canaryCommand()).reportAgainstBase(versus.base, candidate, versus.flags, reporters, io)
    : { ...(await reportRun(reporters, { ...candidate, runDir: candidate.dir }, store, io)), exitCode: results.exitCode };
  reportDamaged(results, io);
  // With a document (JSON, markdown, …) on stdout, stdout holds exactly it; the human lines go to stderr.
  say(
    `run ${manifest.runId} ${manifest.status}: ${manifest.trials.finished} trials` +
      (manifest.trials.notStarted ? `, ${manifest.trials.notStarted} not started` : '') +
      `\nrun folder: ${candidate.dir}\n` +
      (opts.keepWorkspaces ? "workspaces kept: each trial's <n>.meta.json names its workspace\n" : ''),
  );
  // The command line the user typed, to go on with: it finds the same suite (--sim, --grep, …) in the same folder.
  const goOn = (replace?: Map<string, string>) => resumeCommand(io.argv ?? ['run'], candidate.dir, replace);
  if (manifest.status === 'cost_capped')
    say(
      `stopped at --max-cost ${manifest.config.maxCostUsd} USD: a partial run; \`${goOn(new Map([['--max-cost', '<more>']]))}\` goes on\n`,
    );
  if (manifest.status === 'isolation_stopped')
    say(
      `stopped early: the run's first trials all failed the isolation check (${manifest.stoppedBecause}), and every later one would too, so none was started; fix what it names (\`skillprobe lint\` checks the family), then run again\n`,
    );
  if (manifest.status === 'interrupted') say(`interrupted: \`${goOn()}\` runs the missing trials\n`);
  return exitCodeFor(
    {
      verdicts: [exitCode],
      statuses: [manifest.status],
      failedReporters: failed,
      ...(o.gate ? {} : { gateOff: { say, whose: versus ? "comparison's" : "verdicts'" } }),
    },
    io,
  );
}

/**
 * `--for-baseline`: the suite at the fixed number of trials per case `plan --compare` prescribes for a base that
 * lets `run --baseline` see a drop of the margin from the threshold among the selected cases.
 */
export async function sizedForBaseline(o: RunCommandOptions, io: CliIo): Promise<LoadedSuite[]> {
  const { baseTrialsFor } = await import('../report/plan-compare.js');
  const [first] = loadSuites(o.run);
  const { threshold } = first!.config.decision;
  const { margin = COMPARE_DEFAULTS.margin, alpha = COMPARE_DEFAULTS.alpha } = o.forBaseline!;
  const from = Math.min(Math.max(threshold, margin + 0.01), 0.99);
  const cases = first!.suite.cases.length;
  const trials = baseTrialsFor(cases, from, from - margin, alpha, COMPARE_DEFAULTS.power);
  io.stderr.write(
    `a base for \`run --baseline\`: ${trials} trials per case, what \`plan --compare --from ${from} --to ${(from - margin).toFixed(2)}\` prescribes across ${plural(cases, 'case')} (α ${alpha}, power ${COMPARE_DEFAULTS.power}): enough to see a drop of ${margin} in a case, and to rule it out in every case when nothing changed, whatever their rates\n`,
  );
  o.run.overrides.trials = trials;
  o.run.overrides.decision = { ...(o.run.overrides.decision as object), mode: 'fixed' };
  // A lab,field base: each context's run at that size, each a base for the same context's canary.
  return o.contexts ? loadContextSuites(o.run, o.contexts, o.contextsFrom) : loadSuites(o.run);
}

/**
 * `--resume` of a folder of several runs resumes them as one: the agents or contexts it was for come from its
 * agents.json, and a lab,field canary's base from its first run (`--max-trials` then caps the canaries, as beside
 * `--baseline`). Returns the record, undefined when the folder resumed holds one run (or none is resumed).
 */
async function resumedSeveral(o: RunCommandOptions): Promise<AgentRuns | undefined> {
  const outer = o.run.resume === undefined ? undefined : await readAgentsRecord(o.run.resume, o.run.cwd);
  if (outer?.by === 'context') {
    o.contexts = contextsToResume(outer, { contexts: o.contexts, context: o.run.overrides.context });
    o.run.overrides.context = undefined;
    const first = outer.agents[0] && join(o.run.resume!, outer.agents[0].dir);
    if (first && (await holdsCanary(first, o.run.cwd))) {
      o.run = asCanaryResume(o.run);
      const { resumedContextBaseline } = await import('../commands/run-baseline.js');
      o.baseline = await resumedContextBaseline(first, o.run.canaryMaxTrials, o.run.cwd);
    }
  } else if (o.contexts && o.run.resume !== undefined)
    throw new InputError({
      file: '--resume',
      what: `${o.run.resume} is not a lab,field run folder (its agents.json does not name one run per context)`,
      todo: 'leave --context lab,field out to resume it as it ran, or name the folder `run --context lab,field` printed',
    });
  else if (outer) o.run.overrides.agents = agentsToResume(outer, o.agents);
  return outer;
}

export const runCommand = defineCommand({
  name: 'run',
  description: 'run the suite: every case × arm × trial through the real agent CLI in sealed workspaces',
  flags: RUN_FLAGS,
  helpAfter: REPORTERS_HELP,
  optionsFrom: runOptionsFrom,
  async run(_args, flags, io) {
    const o: RunCommandOptions = { ...flags, run: { ...flags.run, cwd: io.cwd, callerEnv: io.env, stderr: io.stderr } };
    // The config's `context: [lab, field]` is `--context lab,field`, refused beside what that is refused beside. A
    // resumed run goes on as it ran: a lab,field folder says so itself (its agents.json).
    const fromConfig = o.contexts || o.run.resume !== undefined ? undefined : configContexts(o.run);
    if (fromConfig) {
      o.contexts = fromConfig.contexts;
      o.contextsFrom = fromConfig.from;
      checkContexts(o, fromConfig.from);
    }
    const reporters = chooseReporters(o, io);
    const outer = await resumedSeveral(o);
    if (o.contexts)
      refuseReportersWithout(
        reporters,
        o.baseline ? 'renderContextComparisons' : 'renderContexts',
        o.baseline ? 'lab,field comparison' : 'lab,field',
      );
    // The run folder, not a flag, says a resumed run is a canary; then --max-trials is the canary's cap.
    if (!outer && o.run.resume !== undefined && (await holdsCanary(o.run.resume, io.cwd))) o.run = asCanaryResume(o.run);
    const suites = o.forBaseline
      ? await sizedForBaseline(o, io)
      : o.contexts
        ? loadContextSuites(o.run, o.contexts, o.contextsFrom)
        : loadSuites(o.run);
    if (suites.length > 1 && o.baseline !== undefined && !o.contexts) {
      throw new InputError({
        file: 'agents',
        what: 'a canary runs one agent against its base, and the config names several',
        todo: 'run one canary per agent (--agent ID)',
      });
    }
    warnCaps(suites[0]!, io);
    warnUncarried(suites[0]!, io);
    return suites.length > 1 || outer || o.contexts ? runSeveral(suites, o, reporters, io) : runOne(suites[0]!, o, reporters, io);
  },
});
