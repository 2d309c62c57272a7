#!/usr/bin/env node
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { join } from 'node:path';
import { gradeRun, loadResults } from './commands/grade.js';
import { initProject } from './commands/init.js';
import { lintProject, type LintOptions } from './commands/lint.js';
import { capWarnings, planSuite, renderPlan } from './commands/plan.js';
import { describeRunDir, loadSuite, loadSuites, type LoadedSuite, type RunOptions } from './commands/run.js';
import { agentsToResume, readAgentsRecord, reportStoredAgents, runAgents, runAndGrade } from './commands/run-agents.js';
import { HARNESS_VERSION } from './runner/execute.js';
import { gradableCase } from './trials/stored-case.js';
import { ARMS, DECISION_MODES } from './run/config-schema.js';
import type { CaseSelection } from './load/select.js';
import { InputError, ProblemList } from './load/input-error.js';
import { collectConfig } from './load/config.js';
import { unwritableFolder, wrongEntry } from './load/paths.js';
import { COMPARE_DEFAULTS } from './verdict/compare-defaults.js';
import type { Shard } from './trials/shard.js';
import { chooseReporters, humanStream, NO_STDOUT, reporterFlag, reportRun, type ReporterChoice, type ReportIo } from './commands/reports.js';
import { REPORTER_NAMES, REPORTERS } from './report/registry.js';
import { adapterFor, AGENT_IDS } from './agents/registry.js';
import { loadProfile } from './sim/profile.js';
import { startSimulator } from './sim/server.js';
import { RunFolderError, StoreWriteError } from './run/store.js';
import { EXIT } from './run/exit-codes.js';
import type { Results, RunStatus } from './run/schema.js';
import { nearestName, plural } from './util/text.js';
import { worstExitCode } from './verdict/verdict.js';
import { WorkspaceRootError } from './workspace/sealed.js';

function int(name: string, min: number, max?: number) {
  const range = max === undefined ? `≥ ${min}` : `from ${min} to ${max}`;
  return (v: string) => {
    // Digits only: Number() would also take "1e3", "0x10" and "".
    const n = Number(v);
    if (!/^\s*\d+\s*$/.test(v) || n < min || (max !== undefined && n > max)) throw new InvalidArgumentError(`${name} must be a whole number ${range}, got "${v}"`);
    return n;
  };
}

/** A flag's text: an empty one is a mistake (usually an unset shell variable), never a request for "nothing". */
function text(name: string) {
  return (v: string) => {
    if (v.trim() === '') throw new InvalidArgumentError(`${name} is empty — give a value, or leave ${name} out`);
    return v;
  };
}

function positive(name: string) {
  return (v: string) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${name} must be a positive number, got "${v}"`);
    return n;
  };
}

function probability(name: string) {
  return (v: string) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0 || n > 1) throw new InvalidArgumentError(`${name} must be a number in (0, 1], got "${v}"`);
    return n;
  };
}

/** `--shard I/N`: a share of the suite, 1 ≤ I ≤ N. */
function shardFlag(v: string): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(v);
  const [index, total] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
  if (!m || total < 1 || index < 1 || index > total) throw new InvalidArgumentError(`--shard must be I/N with 1 ≤ I ≤ N (e.g. 2/3), got "${v}"`);
  return { index, total };
}

/** A share strictly between 0 and 1: a significance level, a power, a margin. */
function fraction(name: string) {
  return (v: string) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0 || n >= 1) throw new InvalidArgumentError(`${name} must be a number strictly between 0 and 1, got "${v}"`);
    return n;
  };
}

/** Paths given as flags must exist as the kind of entry they name: a usage mistake (exit 2), never a finding. */
function checkFlagPaths(paths: readonly [flag: string, path: string | undefined, kind: 'file' | 'folder'][]): void {
  const problems = new ProblemList();
  for (const [flag, path, kind] of paths) {
    const wrong = path === undefined ? undefined : wrongEntry(path, kind);
    if (wrong) problems.add({ file: flag, what: wrong, todo: `check the ${flag} path` });
  }
  problems.throwIfAny();
}

/** A port the simulator cannot listen on is the user's to fix (exit 2), not a harness fault. */
function listenProblem(e: unknown, port: number | undefined): unknown {
  const code = (e as NodeJS.ErrnoException).code;
  if (port === undefined || (code !== 'EADDRINUSE' && code !== 'EACCES')) return e;
  return new InputError({
    file: '--port',
    what: code === 'EADDRINUSE' ? `port ${port} is already in use` : `port ${port} needs privileges this process lacks`,
    todo: 'pick another port, or leave --port out for a free one',
  });
}

/** `-c, --config`, the same on every command that reads the config. */
const CONFIG_FLAG = ['-c, --config <file>', 'config file (default: skillprobe.config.yaml if present)'] as const;

/** `--grep`, `--tag` (repeatable) and `--last-failed`, on every command that takes a suite. */
function withCaseSelection(cmd: Command): Command {
  return cmd
    .option('--grep <regex>', 'only cases whose id or prompt matches', text('--grep'))
    .option('--tag <tag>', 'only cases with this tag (repeatable: any of them)', (v: string, prev: string[] = []) => [...prev, text('--tag')(v)])
    .option('--last-failed', 'only the cases that failed, were inconclusive or errored in the newest run of the transcripts folder');
}

const caseSelection = (o: Record<string, unknown>): CaseSelection => ({ grep: o.grep as string | undefined, tags: o.tag as string[] | undefined, lastFailed: o.lastFailed === true });

/** With --last-failed and nothing failed last time: say so (on stderr under --json), run nothing, exit 0. */
function nothingToRun(loaded: LoadedSuite, json = false): boolean {
  if (loaded.nothingFailedIn === undefined) return false;
  (json ? process.stderr : process.stdout).write(`--last-failed: every case passed in run ${loaded.nothingFailedIn}; nothing to run\n`);
  process.exitCode = EXIT.pass;
  return true;
}

/** `--agent a,b`: the agents to run, each once (unknown ids are the config check's, which names the flag). */
function agentList(v: string): string[] {
  const list = v.split(',').map((s) => s.trim());
  if (list.some((a) => a === '')) throw new InvalidArgumentError(`--agent takes agent ids separated by commas (${AGENT_IDS.join(', ')}), got "${v}"`);
  return list;
}

function arms(v: string) {
  const list = v.split(',').map((s) => s.trim());
  // A repeated arm is left to the config check, which reports it for the file's `arms` too.
  const bad = list.filter((a) => !(ARMS as readonly string[]).includes(a));
  if (bad.length || list.length === 0) throw new InvalidArgumentError(`arms are ${ARMS.join(', ')} (comma-separated), got "${v}"`);
  return list;
}

/** A run that stopped short exits as such, never with verdicts that look final. */
const STOPPED_EXIT: Partial<Record<RunStatus, number>> = { interrupted: EXIT.interrupted, cost_capped: EXIT.costCapped, failed: EXIT.internal };

/** `--transcripts`, else the config file's `transcriptsDir` (skillprobe.config.yaml when present), else the default. */
function transcriptsFolder(o: { transcripts?: string; config?: string }): string {
  const problems = new ProblemList();
  const loaded = collectConfig(o.config, { transcriptsDir: o.transcripts }, problems);
  problems.throwIfAny();
  return loaded!.config.transcriptsDir;
}

const IO: ReportIo = { stdout: process.stdout, stderr: process.stderr, env: process.env };

/** `--reporter NAME[=FILE]` (repeatable) on every command that reports. */
function withReporters(cmd: Command): Command {
  const list = REPORTER_NAMES.map((name) => `  ${name.padEnd(9)} ${REPORTERS[name]({ colour: false }).description}`).join('\n');
  return cmd
    .option(
      '--reporter <name[=file]>',
      `${REPORTER_NAMES.join(', ')}; to stdout, or to FILE (repeatable; the terminal report prints unless another takes stdout, or ${NO_STDOUT})`,
      reporterFlag,
    )
    .addHelpText('after', `\nReporters (--reporter NAME or NAME=FILE; at most one prints to stdout, ${NO_STDOUT} nothing):\n${list}\n`);
}

/** A reporter that failed turns a clean exit into a harness fault: CI must not go green on a missing report. */
function exitWithReports(code: number, failed: readonly string[]): number {
  if (failed.length === 0 || code !== EXIT.pass) return code;
  process.stderr.write(`skillprobe: ${failed.join(', ')} failed; the verdicts' exit code would be ${code}\n`);
  return EXIT.internal;
}

/** `--baseline` and `--add-trials` and the flags that only mean something beside them. */
function checkBaselineFlags(o: Record<string, unknown>): void {
  const refuse = (file: string, what: string, todo: string) => {
    throw new InputError({ file, what, todo });
  };
  for (const flag of ['margin', 'alpha', 'keepGoing'] as const) {
    if (o[flag] !== undefined && o.baseline === undefined) refuse(`--${flag === 'keepGoing' ? 'keep-going' : flag}`, 'only means something with --baseline', 'add --baseline <run folder>, or drop it');
  }
  if (o.addTrials !== undefined && o.resume === undefined) refuse('--add-trials', 'tops up a stored run, and names none', 'add --resume <run folder>');
  if (o.baseline === undefined) return;
  const excluded = [
    ['resume', '--resume', 'a resumed canary keeps the canary it started with', 'drop --baseline (the run folder remembers its base)'],
    ['trials', '--trials', 'a canary samples each case until it is decided, not a fixed number of times', 'drop --trials (cap a case with --max-trials)'],
    ['shard', '--shard', "a canary's false-alarm rate is shared across all the suite's cases", 'run the canary unsharded'],
  ] as const;
  for (const [key, file, what, todo] of excluded) if (o[key] !== undefined) refuse(file, what, todo);
  if (o.mode === 'fixed') refuse('--mode', 'a canary samples each case until it is decided, not a fixed number of times', 'drop --mode fixed');
  if (Array.isArray(o.agent) && o.agent.length > 1) refuse('--agent', 'a canary runs one agent against its base', 'run one canary per agent (--agent ID)');
}

/** Before anything is spent: each case whose maxTrials cuts its design short, and what that costs. */
function warnCaps(loaded: LoadedSuite): void {
  if (loaded.config.decision.mode === 'fixed') return;
  const plan = planSuite(loaded.config, loaded.suite.cases.map((c) => gradableCase(c, loaded.config)));
  for (const w of capWarnings(plan)) process.stderr.write(`warning: ${w}\n`);
}

/** Trials the store could not read: named on stderr, one line each, and counted as missing data in the exit code. */
function reportDamaged(results: Results): void {
  if (!results.damaged.length) return;
  process.stderr.write(`${plural(results.damaged.length, 'damaged trial file')} left out of grading (exit code at least ${EXIT.error}):\n`);
  for (const d of results.damaged) process.stderr.write(`  ${d.path}: ${d.problem}\n`);
}

function buildProgram(): Command {
  const program = new Command()
    .name('skillprobe')
    .description('Does an Agent Skill fire when it should, stay quiet when it should not, and plan a call that runs?')
    .version(HARNESS_VERSION)
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });

  withReporters(withCaseSelection(program.command('run')))
    .description('run the suite: every case × arm × trial through the real agent CLI in sealed workspaces')
    .option(...CONFIG_FLAG, text('--config'))
    .option('--sim <profile>', 'run against the built-in model SIMULATOR with this profile (no credentials needed)', text('--sim'))
    .option('-n, --trials <n>', 'a fixed number of trials per case and arm (implies --mode fixed)', int('--trials', 1))
    .option('-j, --concurrency <n>', 'trials running at once', int('--concurrency', 1))
    .option('-m, --model <model>', 'model passed to the agent CLI', text('--model'))
    .option('--skills <dir>', 'skills folder', text('--skills'))
    .option('--cases <glob>', 'case files (glob)', text('--cases'))
    .option('--transcripts <dir>', 'where run folders are written', text('--transcripts'))
    .option('--timeout <seconds>', 'harness deadline per trial', positive('--timeout'))
    .option('--max-turns <n>', 'agent max turns', int('--max-turns', 1))
    .option('--max-output-mb <n>', 'stop a trial that prints more than this many MB (stored up to the cap, not scored)', positive('--max-output-mb'))
    .option('--arms <list>', `arms to run (${ARMS.join(',')})`, arms)
    .addOption(new Option('--ablation <mode>', 'scored: the ablation arm only where it scores plan checks; always').choices(['scored', 'always']))
    .option('--agent <ids>', `the agent CLI, or several (comma-separated: the suite runs once per agent): ${AGENT_IDS.join(', ')}`, agentList)
    .option('--agent-binary <path>', 'agent CLI binary (default: the pinned one)', text('--agent-binary'))
    .option('--workdir <dir>', 'where sealed workspaces are created (default: the system temp folder)', text('--workdir'))
    .option('--keep-workspaces', 'leave workspaces on disk for inspection')
    .option('--json', 'print the results as JSON instead of the terminal report (--reporter json)')
    .addOption(new Option('--mode <mode>', "sequential: stop each case as soon as it is decided, every case decided by the design's maximum; sprt: Wald's test; fixed: --trials per case").choices([...DECISION_MODES]))
    .option('--threshold <p0>', 'pass rate every case must reach (default 0.9)', probability('--threshold'))
    .option('--min-trials <n>', 'sequential mode: fewest trials before a decision', int('--min-trials', 1))
    .option('--max-trials <n>', "sequential modes: a cap on trials per case (default: the design's maximum); undecided there → INCONCLUSIVE", int('--max-trials', 1))
    .addOption(new Option('--correction <method>', 'fixed mode: multiple-testing correction across cases').choices(['bh', 'bonferroni', 'none']))
    .addOption(new Option('--inconclusive <policy>', 'what INCONCLUSIVE does to the exit code').choices(['fail', 'warn', 'pass']))
    .option('--no-gate', 'report the verdicts but exit 0 (exploring, not gating CI); input errors still exit 2')
    .option('--resume <run>', 'finish an interrupted run folder: replay its stored trials, run only the missing ones (same inputs required)', text('--resume'))
    .option('--force', 'with --resume: go on although skills, cases, config or agent changed (recorded in run.json)')
    .option('--shard <i/n>', 'run only share I of N of the cases (for a CI matrix; join the shards with `skillprobe merge`)', shardFlag)
    .option('--max-cost <usd>', `stop scheduling once the trials' reported costs reach this many USD (a partial run: exit ${EXIT.costCapped})`, positive('--max-cost'))
    .option('--baseline <run>', 'run as a canary against this stored run: each case samples until its drop is shown or ruled out, then the two are compared (exit 1 on a regression)', text('--baseline'))
    .option('--margin <d>', `with --baseline: the drop worth catching; UNCHANGED rules it out (default ${COMPARE_DEFAULTS.margin})`, fraction('--margin'))
    .option('--alpha <a>', `with --baseline: the false-alarm rate across cases (default ${COMPARE_DEFAULTS.alpha})`, fraction('--alpha'))
    .option('--keep-going', 'with --baseline: run every case to its canary\'s end instead of stopping at the first regression')
    .option('--add-trials <n>', 'with --resume: top a finished run up by this many trials per case, after each case\'s design stopped it', int('--add-trials', 1))
    .action(async (o: Record<string, unknown>) => {
      if (o.force === true && o.resume === undefined) {
        throw new InputError({ file: '--force', what: 'only means something with --resume', todo: 'add --resume <run folder>, or drop --force' });
      }
      checkBaselineFlags(o);
      if (o.trials !== undefined && o.mode !== undefined && o.mode !== 'fixed') {
        throw new InputError({ file: '--trials', what: 'a fixed number of trials and a sequential test exclude each other', todo: `drop --trials (${String(o.mode)} uses --min-trials/--max-trials) or use --mode fixed` });
      }
      const opts: RunOptions = {
        config: o.config as string | undefined,
        sim: o.sim as string | undefined,
        keepWorkspaces: o.keepWorkspaces === true,
        workdir: o.workdir as string | undefined,
        resume: o.resume as string | undefined,
        force: o.force === true,
        select: caseSelection(o),
        shard: o.shard as Shard | undefined,
        addTrials: o.addTrials as number | undefined,
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
            maxTrials: o.baseline === undefined ? o.maxTrials : undefined,
            correction: o.correction,
            inconclusive: o.inconclusive,
          },
        },
      };
      const reporters = chooseReporters(o, process.env);
      const human = humanStream(reporters, IO);
      const say = (text: string) => human.write(text);
      // A run of several agents resumes as one: the agents it was for come from its agents.json.
      const outer = opts.resume === undefined ? undefined : await readAgentsRecord(opts.resume);
      if (outer) opts.overrides.agents = agentsToResume(outer, o.agent as string[] | undefined);
      const suites = loadSuites(opts);
      if (suites.length > 1 && o.baseline !== undefined) throw new InputError({ file: 'agents', what: 'a canary runs one agent against its base, and the config names several', todo: 'run one canary per agent (--agent ID)' });
      warnCaps(suites[0]!);
      if (suites.length > 1 || outer) {
        if (suites[0]!.profile) process.stderr.write(`skillprobe model SIMULATOR, profile "${suites[0]!.profile.name}": no real model answers\n`);
        const { dir, runs, failed } = await runAgents(suites, opts, reporters, IO, say);
        for (const r of runs) reportDamaged(r.results);
        say(`run of ${plural(suites.length, 'agent')} ${runs.map((r) => `${r.manifest.agent.id} ${r.manifest.status}`).join(', ')}\nrun folder: ${describeRunDir({ dir })} (agents.json names each agent's run folder)\n`);
        const stopped = runs.map((r) => STOPPED_EXIT[r.manifest.status]).find((x) => x !== undefined);
        // Every agent's verdicts gate: the worst of them (a FAIL anywhere is a FAIL).
        const verdicts = worstExitCode(runs.map((r) => r.results.exitCode));
        if (o.gate === false && stopped === undefined) {
          say(`gate off (--no-gate): the verdicts' exit code would be ${verdicts}\n`);
          process.exitCode = exitWithReports(EXIT.pass, failed);
        } else process.exitCode = exitWithReports(stopped ?? verdicts, failed);
        return;
      }
      const loaded = suites[0]!;
      if (nothingToRun(loaded, human !== process.stdout)) return;
      if (loaded.shard && loaded.suite.cases.length === 0) {
        say(`shard ${loaded.shard.index}/${loaded.shard.total}: no case falls to this share (${plural(loaded.shard.suiteCases.length, 'case')} over ${loaded.shard.total} shards); nothing to run\n`);
        process.exitCode = EXIT.pass;
        return;
      }
      if (loaded.profile) process.stderr.write(`skillprobe model SIMULATOR, profile "${loaded.profile.name}": no real model answers\n`);
      const baseline = o.baseline === undefined ? undefined : { baseline: o.baseline as string, margin: o.margin as number | undefined, alpha: o.alpha as number | undefined, maxTrials: o.maxTrials as number | undefined, keepGoing: o.keepGoing === true };
      // Loaded only for a canary: the exact tests it needs are no part of an ordinary run's start.
      const canaryCommand = baseline ? await import('./commands/run-baseline.js') : undefined;
      const against = baseline ? await canaryCommand!.prepareCanary(loaded, baseline, (text) => process.stderr.write(text)) : undefined;
      if (against) opts.canary = against.canary;
      const { store, manifest, results } = await runAndGrade(loaded, opts, {
        onPrepared: (target) => {
          if (opts.resume !== undefined) {
            process.stderr.write(`resuming run ${target.manifest.runId}: ${plural(target.stored.length, 'stored trial')} replayed in trial order; only missing trials run\n`);
          }
          for (const kept of target.setAside ?? []) process.stderr.write(`a transcript without its meta.json, kept as ${kept}: its trial runs again\n`);
        },
      });
      const candidate = { dir: describeRunDir(store), manifest, results };
      const { failed, exitCode } = against
        ? await canaryCommand!.reportAgainstBase(against.base, candidate, baseline!, reporters, IO)
        : { ...(await reportRun(reporters, { ...candidate, runDir: candidate.dir }, store, IO)), exitCode: results.exitCode };
      reportDamaged(results);
      // With a document (JSON, markdown, …) on stdout, stdout holds exactly it; the human lines go to stderr.
      say(
        `run ${manifest.runId} ${manifest.status}: ${manifest.trials.finished} trials` +
          (manifest.trials.notStarted ? `, ${manifest.trials.notStarted} not started` : '') +
          `\nrun folder: ${describeRunDir(store)}\n` +
          (opts.keepWorkspaces ? 'workspaces kept: each trial\'s <n>.meta.json names its workspace\n' : ''),
      );
      if (manifest.status === 'cost_capped') say(`stopped at --max-cost ${manifest.config.maxCostUsd} USD: a partial run; \`skillprobe run --resume ${describeRunDir(store)} --max-cost <more>\` goes on\n`);
      if (manifest.status === 'interrupted') say(`interrupted: \`skillprobe run --resume ${describeRunDir(store)}\` runs the missing trials\n`);
      const stopped = STOPPED_EXIT[manifest.status];
      if (o.gate === false && stopped === undefined) {
        say(`gate off (--no-gate): the ${against ? "comparison's" : "verdicts'"} exit code would be ${exitCode}\n`);
        process.exitCode = exitWithReports(EXIT.pass, failed);
      } else process.exitCode = exitWithReports(stopped ?? exitCode, failed);
    });

  withReporters(program.command('grade'))
    .description('regrade a stored run with the current graders and rewrite its results.json (runs nothing)')
    .argument('<run>', 'run folder, e.g. transcripts/<run-id>')
    .option('--json', 'print the results as JSON (--reporter json)')
    .action(async (dir: string, o: { json?: boolean; reporter?: ReporterChoice[] }) => {
      const reporters = chooseReporters(o, process.env);
      const { store, manifest, results } = await gradeRun(dir);
      const { failed } = await reportRun(reporters, { manifest, results, runDir: dir }, store, IO);
      reportDamaged(results);
      humanStream(reporters, IO).write(`regraded ${results.outcomes.length} trials → ${join(dir, 'results.json')}\n`);
      process.exitCode = exitWithReports(results.exitCode, failed);
    });

  withReporters(program.command('report'))
    .description('print the report of a stored run (runs nothing; writes only the files --reporter names)')
    .argument('<run>', 'run folder, e.g. transcripts/<run-id> (a run of several agents: all of them, with the matrix)')
    .option('--json', 'print the results as JSON (--reporter json)')
    .action(async (dir: string, o: { json?: boolean; reporter?: ReporterChoice[] }) => {
      const reporters = chooseReporters(o, process.env);
      const agents = await reportStoredAgents(dir, reporters, IO);
      if (agents) {
        for (const r of agents.runs) reportDamaged(r.results);
        // An agent with nothing to report is missing data, as a damaged trial is.
        const codes = [...agents.runs.map((r) => r.results.exitCode), ...agents.missing.map(() => EXIT.error)];
        process.exitCode = exitWithReports(worstExitCode(codes), agents.failed);
        return;
      }
      const { regraded, store, ...loaded } = await loadResults(dir);
      if (regraded) process.stderr.write(`no current results.json in ${dir} (${regraded}): graded the stored transcripts in memory (\`skillprobe grade\` stores them)\n`);
      const { failed } = await reportRun(reporters, { ...loaded, runDir: dir }, store, IO);
      reportDamaged(loaded.results);
      process.exitCode = exitWithReports(loaded.results.exitCode, failed);
    });

  withReporters(program.command('compare'))
    .description('the model-update canary: did CANDIDATE route worse than BASE? across the suite and per case, exact under each run\'s stopping rule (exit 1 on a significant regression)')
    .argument('<base>', 'the run folder to compare against, e.g. before the model update')
    .argument('<candidate>', 'the run folder under test')
    .option('--alpha <a>', `false-discovery rate across cases (Benjamini–Hochberg; default ${COMPARE_DEFAULTS.alpha})`, fraction('--alpha'))
    .option('--margin <d>', `the smallest change worth detecting: a difference interval within ±d is UNCHANGED (default ${COMPARE_DEFAULTS.margin})`, fraction('--margin'))
    .option('--power <p>', `the power "trials to decide" plans for (default ${COMPARE_DEFAULTS.power})`, fraction('--power'))
    .option('--json', 'print the comparison as JSON (--reporter json)')
    .action(async (base: string, candidate: string, o: { alpha?: number; margin?: number; power?: number; json?: boolean; reporter?: ReporterChoice[] }) => {
      const reporters = chooseReporters(o, process.env);
      const opts = { alpha: o.alpha ?? COMPARE_DEFAULTS.alpha, margin: o.margin ?? COMPARE_DEFAULTS.margin, power: o.power ?? COMPARE_DEFAULTS.power };
      // Loaded when asked for: the exact tests' statistics would slow every other command's start.
      const { compareCommand } = await import('./commands/compare.js');
      const { exitCode, failed } = await compareCommand({ base, candidate }, opts, reporters, IO);
      process.exitCode = exitWithReports(exitCode, failed);
    });

  withReporters(program.command('merge'))
    .description('join the run folders of a sharded run (run --shard I/N) into one run and report it')
    .argument('<runs...>', 'every shard\'s run folder')
    .option('--transcripts <dir>', 'where the merged run folder is created (default: the config\'s transcriptsDir)', text('--transcripts'))
    .option(...CONFIG_FLAG, text('--config'))
    .option('--json', 'print the results as JSON (--reporter json)')
    .action(async (dirs: string[], o: { transcripts?: string; config?: string; json?: boolean; reporter?: ReporterChoice[] }) => {
      const reporters = chooseReporters(o, process.env);
      const out = transcriptsFolder(o);
      const unwritable = unwritableFolder(out, { mustExist: false });
      if (unwritable) throw new InputError({ file: '--transcripts', what: unwritable, todo: 'point it at a folder you can write to' });
      const { mergeShards } = await import('./commands/merge.js');
      const { store, manifest, results, unfinished } = await mergeShards(dirs, out);
      const { failed } = await reportRun(reporters, { manifest, results, runDir: describeRunDir(store) }, store, IO);
      reportDamaged(results);
      const human = humanStream(reporters, IO);
      human.write(`merged ${plural(dirs.length, 'shard')} (${plural(results.outcomes.length, 'trial')}) → run folder ${describeRunDir(store)}\n`);
      for (const u of unfinished) {
        human.write(`${u.name} is ${u.status}: a partial run; \`skillprobe run --resume ${u.dir} --shard ${u.shard}\` finishes it, then merge again\n`);
      }
      process.exitCode = exitWithReports(STOPPED_EXIT[manifest.status] ?? results.exitCode, failed);
    });

  program
    .command('history')
    .description('the runs in a transcripts folder, newest first: agent, model, CLI version, verdicts, trials, cost')
    .option('--transcripts <dir>', 'the transcripts folder (default: the config\'s transcriptsDir)', text('--transcripts'))
    .option(...CONFIG_FLAG, text('--config'))
    .option('--case <id>', 'one case across the runs: its rate and verdict in each', text('--case'))
    .action(async (o: { transcripts?: string; config?: string; case?: string }) => {
      const { readHistory, renderCaseHistory, renderHistory } = await import('./commands/history.js');
      const rows = await readHistory(transcriptsFolder(o));
      process.stdout.write(o.case === undefined ? renderHistory(rows) : renderCaseHistory(rows, o.case));
    });

  withCaseSelection(program.command('plan'))
    .description("before spending anything: per case the sequential design's maximum, exact expected trials and α/β, fixed N, and the cost")
    .option(...CONFIG_FLAG, text('--config'))
    .option('--cases <glob>', 'case files (glob)', text('--cases'))
    .option('--skills <dir>', 'skills folder', text('--skills'))
    .option('--price-per-trial <usd>', 'what one trial costs, in USD', positive('--price-per-trial'))
    .option('--compare', 'plan a model-update canary instead: trials per case to catch a drop --from → --to')
    .option('--from <p>', 'with --compare: the pass rate before (default 0.9)', probability('--from'))
    .option('--to <p>', 'with --compare: the pass rate a regression drops to (default 0.75)', probability('--to'))
    .option('--power <p>', `with --compare: the chance to catch it (default ${COMPARE_DEFAULTS.power})`, fraction('--power'))
    .option('--alpha <a>', `with --compare: the false-alarm rate (default ${COMPARE_DEFAULTS.alpha})`, fraction('--alpha'))
    .action(async (o: { config?: string; cases?: string; skills?: string; pricePerTrial?: number; compare?: boolean; from?: number; to?: number; power?: number; alpha?: number } & Record<string, unknown>) => {
      const onlyWithCompare = (['from', 'to', 'power', 'alpha'] as const).filter((k) => o[k] !== undefined && !o.compare);
      if (onlyWithCompare.length) throw new InputError({ file: `--${onlyWithCompare[0]}`, what: 'only means something with --compare', todo: 'add --compare, or drop it' });
      const loaded = loadSuite({ config: o.config, overrides: { cases: o.cases, skillsDir: o.skills }, select: caseSelection(o) }, { run: false });
      if (nothingToRun(loaded)) return;
      if (o.compare) {
        const [from, to] = [o.from ?? 0.9, o.to ?? 0.75];
        if (to >= from) throw new InputError({ file: '--to', what: `a drop must end below where it starts (--from ${from}, --to ${to})`, todo: 'give --to a rate below --from' });
        const defs = loaded.suite.cases.map((c) => gradableCase(c, loaded.config));
        const arms = planSuite(loaded.config, defs).cases.map((c) => c.arms);
        const { planComparison, renderComparisonPlan } = await import('./commands/plan-compare.js');
        const { caseDesign } = await import('./stats/case-design.js');
        const designs = loaded.config.decision.mode === 'fixed' ? undefined : defs.map((c, i) => ({ design: caseDesign(c), arms: arms[i]! }));
        const caseArms = arms.reduce((sum, a) => sum + a, 0);
        const plan = planComparison(from, to, o.alpha ?? COMPARE_DEFAULTS.alpha, o.power ?? COMPARE_DEFAULTS.power, { cases: loaded.suite.cases.length, caseArms, minTrials: loaded.config.decision.minTrials, ...(designs ? { designs } : {}) });
        process.stdout.write(renderComparisonPlan(plan, o.pricePerTrial));
        return;
      }
      process.stdout.write(renderPlan(planSuite(loaded.config, loaded.suite.cases.map((c) => gradableCase(c, loaded.config))), o.pricePerTrial));
    });

  program
    .command('init')
    .description('scaffold a config, a starter suite and a simulator profile for the skills in .claude/skills or skills (never overwrites)')
    .option('--dir <dir>', 'the project folder (default: the current folder)', text('--dir'))
    .action((o: { dir?: string }) => initProject(o.dir ?? process.cwd(), { out: process.stdout }));

  program
    .command('lint')
    .description('check the skills, the cases and a simulator profile without running anything (exit 1 on any error)')
    .option(...CONFIG_FLAG, text('--config'))
    .option('--skills <dir>', 'skills folder', text('--skills'))
    .option('--cases <glob>', 'case files (glob)', text('--cases'))
    .option('--sim <profile>', 'also check this simulator profile against the skills and cases', text('--sim'))
    .option('--json', 'print the findings as a JSON array')
    .action((o: LintOptions) => {
      checkFlagPaths([
        ['--config', o.config, 'file'],
        ['--sim', o.sim, 'file'],
        ['--skills', o.skills, 'folder'],
      ]);
      process.exitCode = lintProject(o, { cwd: process.cwd(), out: process.stdout });
    });

  program
    .command('sim')
    .description('serve the model SIMULATOR on 127.0.0.1 (Anthropic Messages API) until stopped')
    .argument('<profile>', 'simulator profile (YAML)')
    .option('-p, --port <port>', 'port (default: a free one)', int('--port', 0, 65_535))
    .action(async (profileFile: string, o: { port?: number }) => {
      const sim = await startSimulator(loadProfile(profileFile), { port: o.port }).catch((e: unknown) => {
        throw listenProblem(e, o.port);
      });
      process.stdout.write(
        `skillprobe model SIMULATOR listening on ${sim.url} (not a real model); Ctrl-C stops\n` +
          AGENT_IDS.map((id) => `  ${adapterFor(id).skillListing.cli}: ${adapterFor(id).simulatorHint(sim.url)}\n`).join(''),
      );
      await new Promise<void>((resolve) => {
        const stop = () => void sim.stop().then(resolve);
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
    });

  return program;
}

/** A reader that went away (`skillprobe run | head`) stops what is printed, never the command. */
function tolerateClosedOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') process.exitCode = EXIT.internal;
    });
  }
}

/**
 * A first word that is no command, even with `--help` after it (which commander would answer with the top help and
 * exit 0): a usage mistake, said as commander says one.
 */
function unknownCommand(program: Command, argv: readonly string[]): string | undefined {
  const first = argv.slice(2).find((a) => !a.startsWith('-'));
  const names = program.commands.flatMap((c) => [c.name(), ...c.aliases()]);
  if (first === undefined || names.includes(first) || first === 'help' || argv.slice(2).indexOf(first) !== 0) return undefined;
  const near = nearestName(first, names);
  return `error: unknown command '${first}'${near ? `\n(Did you mean ${near}?)` : ''}\n`;
}

export async function main(argv: string[]): Promise<number> {
  tolerateClosedOutput();
  const program = buildProgram();
  const unknown = unknownCommand(program, argv);
  if (unknown) {
    process.stderr.write(unknown);
    return EXIT.usage;
  }
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      // Help asked for and the version are not errors; everything else commander reports (a bad flag, an unknown or
      // missing command, whose usage it printed on stderr) is a usage mistake.
      return e.exitCode === 0 ? 0 : EXIT.usage;
    }
    if (e instanceof InputError) {
      // One problem, one line; several, a count and a line each.
      const n = e.problems.length;
      process.stderr.write(n === 1 ? `skillprobe: ${e.message}\n` : `skillprobe: ${n} input problems:\n${e.message}\n`);
      return EXIT.usage;
    }
    if (e instanceof WorkspaceRootError || e instanceof RunFolderError) {
      process.stderr.write(`skillprobe: ${e.message}\n`);
      return EXIT.usage;
    }
    if (e instanceof StoreWriteError) {
      // The run stopped at the first trial it could not store; every trial stored before it stays gradable.
      process.stderr.write(`skillprobe: ${e.message}\n`);
      return EXIT.internal;
    }
    // A harness fault, never to be mistaken for a verdict: its own exit code.
    process.stderr.write(`skillprobe: internal error (please report): ${(e as Error).stack ?? String(e)}\n`);
    return EXIT.internal;
  }
}

main(process.argv).then((code) => {
  process.exitCode = code;
});
