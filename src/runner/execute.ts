import type { TopUpPrice } from './resume.js';
import { fieldProbeProblem } from './field-probe.js';
import { checkMcpServersStart } from './mcp-check.js';
import { serversOf } from '../load/mcp.js';
import { OWN_MANIFEST } from '../util/package-root.js';
import { valueHash } from '../util/json.js';
import { freshDrawSeed } from '../util/random.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentAdapter, SkillListing, TrialRole } from '../agents/types.js';
import type { JudgeCli } from './judge-check.js';
import { judgeSample } from '../grade/judge-answers.js';
import { gradeTrial } from '../grade/outcome.js';
import { gradeOptions } from './stored-grades.js';
import type { CaseSuite } from '../load/cases.js';
import { InputError } from '../util/input-error.js';
import { fromFolder, namedAs } from '../util/paths.js';
import { familyHash, type Skill } from '../load/skills.js';
import { cutFromListing, listingChars } from '../lint/listing.js';
import { explainJudgeSample, explainOutcome } from '../report/explain.js';
import { skillsEditedNote } from '../report/wording.js';
import type { Config } from '../run/config-schema.js';
import { trialKey, type GradableCase, type RunManifest, type StoredCanary, type TrialOutcome } from '../run/schema.js';
import { lockRunFolder, type RunLock } from '../run/lock.js';
import { currentOwner, FIXTURES_SNAPSHOT, NEIGHBOURS_SNAPSHOT, newRunId, RunStore, SKILLS_SNAPSHOT } from '../run/store.js';
import type { Profile } from '../sim/profile.js';
import { startSimulator, type RunningSimulator } from '../sim/server.js';
import { decisionMode } from '../stats/decision-modes/registry.js';
import { CostCappedScheduler, IsolationStopScheduler, ReplayingScheduler } from '../trials/replay.js';
import { FixedScheduler, SequentialScheduler, type TrialScheduler } from '../trials/schedule.js';
import { gradableCase } from '../trials/stored-case.js';
import { boundariesDesign } from '../verdict/stopped-sample.js';
import { WorkspacePool } from '../workspace/pool.js';
import { checkWorkspaceRoot } from '../workspace/sealed.js';
import { changedSkills, snapshotSkills } from '../workspace/skill-snapshot.js';
import { snapshotFixtures } from '../workspace/fixtures.js';
import { adaptivePace, fixedPace, type Pace } from './pace.js';
import { createProgress, type ProgressStream } from './progress.js';
import { reopenRun } from './resume.js';
import { guardRun, type RunGuard } from './run-guard.js';
import { runSuite, type SuiteRun, type TrialJudgement } from './run-suite.js';
import { probeArmListings, probeCaseListings, requestContext, type TrialContext, type TrialRecord } from './trial.js';
import { caseNeighbourSkills } from '../load/neighbours.js';

export const HARNESS_VERSION: string = OWN_MANIFEST.version;

/** A loaded, checked suite: everything a run needs from the user's files and flags. */
export interface SuiteToRun {
  config: Config;
  configFile?: string;
  skills: Skill[];
  /** The user's other skills, installed beside the family in every trial of both arms (`neighbours:`); none by default. */
  neighbours?: Skill[];
  suite: CaseSuite;
  profile?: Profile;
  adapter: AgentAdapter;
  binary: string;
  /** This run is one share of the suite (`--shard I/N`); `suite` holds only the share's cases. */
  shard?: NonNullable<RunManifest['shard']>;
  /** What its trials are for (`trial` by default): a judge's or a proposer's requests run with no tool. */
  role?: TrialRole;
  /** The judge's CLI, when `judge.agent` names another agent than the run's. */
  judgeCli?: JudgeCli;
}

/** Where and how a run goes, beyond the suite. */
export interface RunPlace {
  /** The user's working folder (the command's `io.cwd`): every relative path they gave is taken from it. */
  cwd: string;
  sim?: string;
  workdir?: string;
  keepWorkspaces?: boolean;
  /** A run folder to resume instead of starting a new one. */
  resume?: string;
  /** Resume even though inputs changed. */
  force?: boolean;
  /** The new run's id (and folder name); by default a fresh one. */
  runId?: string;
  /** `--baseline`: the canary each case runs under against the stored base. */
  canary?: StoredCanary;
  /** Resuming a canary: the `--max-trials` given now, checked against the cap it ran under. */
  canaryMaxTrials?: number;
  /** `--draw-seed`: the seed of the simulator's draws (a fresh one by default); a resume keeps the run's own. */
  drawSeed?: number;
  /** `--resume --add-trials N`: trials every case of a finished run takes after its design stopped it. */
  addTrials?: number;
  /** `--wait-for-reset`: at a subscription's usage limit, sleep until it resets (capped) instead of stopping. */
  waitForReset?: boolean;
  /** The environment the run was started from (the command's `io.env`), whose allowlisted variables reach the agent. */
  callerEnv: NodeJS.ProcessEnv;
  /** Where progress and the run's own notices go (this process's stderr by default). */
  stderr?: ProgressStream;
}

export interface RunTarget {
  store: RunStore;
  /** The folder is this process's to write until the run's results are stored. */
  lock: RunLock;
  manifest: RunManifest;
  /** Trials an interrupted run already stored (resume), replayed through the scheduler. */
  stored: TrialOutcome[];
  /** On a resume: transcripts without their meta.json, set aside (`<n>.s<k>.jsonl`) while their trials run again. */
  setAside?: string[];
  /** On a resume with --add-trials: what the top-up adds, priced before it runs. */
  topUp?: TopUpPrice;
}

export interface RunOutcome {
  store: RunStore;
  manifest: RunManifest;
  /** Still guarding the run while its results are written: the caller releases it. */
  guard: RunGuard;
}

/**
 * The scheduler for a run's cases: their own designs, a canary's boundaries where the run has one (`--baseline`), and
 * the trials topped up after them (`--add-trials`).
 */
export function makeScheduler(config: Config, defs: GradableCase[], run: Pick<RunManifest, 'canary' | 'topUps'> = {}): TrialScheduler {
  const added = (run.topUps ?? []).reduce((sum, n) => sum + n, 0);
  if (!decisionMode(config.decision.mode).sequential) return new FixedScheduler(defs, config.arms, config.trials + added, config.ablation);
  const rate = (c: StoredCanary['cases'][number]) => c.base.passes / c.base.trials;
  const designs = new Map(
    run.canary?.cases.map((c) => [c.caseId, boundariesDesign(c.design, rate(c), Math.max(0, rate(c) - run.canary!.margin))]),
  );
  return new SequentialScheduler(defs, config.arms, config.ablation, {
    designs,
    stopAtFirstReject: run.canary?.stopAtFirstRegression,
    added,
  });
}

/** The skill listing the CLI shows beside `neighbours`: its size, and the family's skills it lists by name only. */
function listingWith(family: readonly Skill[], neighbours: readonly Skill[], listing: SkillListing) {
  const cut = new Set(cutFromListing([...family, ...neighbours], listing));
  return { chars: listingChars([...family, ...neighbours], listing), byNameOnly: family.filter((k) => cut.has(k.dir)).map((k) => k.dir) };
}

/**
 * The neighbours as run.json records them: the suite's, each with its hash; the listing they share with the family
 * (also when only cases have their own: theirs is then recorded per case, beside it).
 */
function neighboursRecord(s: SuiteToRun) {
  const neighbours = s.neighbours ?? [];
  const { skillListing } = s.adapter;
  const anyOwn = s.suite.cases.some((c) => c.neighbourSkills?.length);
  return {
    ...(neighbours.length
      ? { neighbours: neighbours.map((k) => ({ dir: k.dir, name: k.name, hash: k.hash })), neighboursHash: familyHash([...neighbours]) }
      : {}),
    ...(s.suite.neighboursHash ? { caseNeighboursHash: s.suite.neighboursHash } : {}),
    ...(neighbours.length || anyOwn
      ? { listing: { ...listingBudget(skillListing), ...listingWith(s.skills, neighbours, skillListing) } }
      : {}),
  };
}

/** A case as run.json stores it; with its own neighbours, the listing its trials get (the suite's and its own). */
function storedCase(c: CaseSuite['cases'][number], s: SuiteToRun): GradableCase {
  const def = gradableCase(c, s.config);
  if (!c.neighbourSkills?.length) return def;
  return { ...def, listing: listingWith(s.skills, [...(s.neighbours ?? []), ...c.neighbourSkills], s.adapter.skillListing) };
}

/** The family's entries in the CLI's skill listing, and the CLI's budget for the listing where it has one. */
function familyListing(s: SuiteToRun): NonNullable<RunManifest['familyListing']> {
  return { ...listingBudget(s.adapter.skillListing), chars: listingChars(s.skills, s.adapter.skillListing) };
}

/** The CLI's name and its listing budget where it has one: a CLI that lists every skill whole has none (JSON holds no Infinity). */
export function listingBudget({ cli, budgetChars }: SuiteToRun['adapter']['skillListing']) {
  return { cli, ...(Number.isFinite(budgetChars) ? { budgetChars } : {}) };
}

/** The manifest of a new run of `s`. Pure but for the run id, the clock, the owner it records and a fresh draw seed. */
export function newManifest(s: SuiteToRun, place: Pick<RunPlace, 'runId' | 'sim' | 'drawSeed' | 'canary'>): RunManifest {
  const defs = s.suite.cases.map((c) => storedCase(c, s));
  return {
    runId: place.runId ?? newRunId(),
    harness: { name: 'skillprobe', version: HARNESS_VERSION },
    status: 'running',
    startedAt: new Date().toISOString(),
    owner: currentOwner(),
    agent: { id: s.adapter.id, binary: s.binary },
    model: s.config.model ?? s.adapter.defaultModel,
    config: s.config,
    configFile: s.configFile,
    skills: s.skills.map((k) => ({ dir: k.dir, name: k.name, hash: k.hash })),
    skillsHash: familyHash(s.skills),
    ...neighboursRecord(s),
    familyListing: familyListing(s),
    cases: { files: s.suite.files, hash: s.suite.hash, defs },
    ...(s.suite.fixturesHash ? { fixturesHash: s.suite.fixturesHash } : {}),
    family: s.skills.map((k) => ({ dir: k.dir, name: k.name })),
    simulator:
      s.profile && place.sim
        ? {
            profile: place.sim,
            name: s.profile.name,
            seed: s.profile.seed,
            behaviourHash: valueHash(s.profile),
            draws: { seed: place.drawSeed ?? freshDrawSeed(), given: place.drawSeed !== undefined },
          }
        : null,
    trials: { planned: makeScheduler(s.config, defs, place).plannedTotal(), finished: 0, notStarted: 0 },
    ...(s.shard ? { shard: s.shard } : {}),
    ...(place.canary ? { canary: place.canary } : {}),
  };
}

/**
 * What must hold on this machine before a run of these suites (one agent's, or each agent's or context's of one run)
 * creates anything: each real MCP server their trials offer answering when started (checked once, however many suites
 * name it, and first, so a server that cannot start is refused before any agent CLI is spawned for a probe); for each
 * suite, no ancestor of the workspace root holding what the agent would load into every trial, and the agent's
 * lock-down working here (exit 2 otherwise).
 */
export async function checkRunnable(suites: readonly SuiteToRun[], place: RunPlace): Promise<void> {
  // A judge or a proposer is offered no MCP server (see trial.ts `trialRequest`).
  const trials = suites.filter((s) => (s.role ?? 'trial') === 'trial');
  await checkMcpServersStart(
    trials.flatMap((s) => serversOf(s.suite.cases)),
    place,
  );
  for (const s of suites) await checkMachine(s, place);
}

async function checkMachine(s: SuiteToRun, place: RunPlace): Promise<void> {
  const workRoot = place.workdir ? fromFolder(place.cwd, place.workdir) : undefined;
  await checkWorkspaceRoot(workRoot, s.adapter.ancestorLeaks);
  const unlocked = await s.adapter.lockdownProblem?.(s.binary, workRoot ?? tmpdir(), place.callerEnv);
  if (unlocked) throw new InputError({ file: s.adapter.id, ...unlocked });
  // Fails closed: a field run starts only where the CLI was just seen refusing a command and a write.
  const field = s.suite.cases.some((c) => requestContext(c, s.config, s.role ?? 'trial') === 'field');
  const acting = field ? await fieldProbeProblem(s.adapter, s.binary, workRoot ?? tmpdir(), place.callerEnv) : undefined;
  if (acting) throw new InputError({ file: s.adapter.id, ...acting });
  // The neighbours are installed beside the family: a CLI that would hide one fails every trial's listing check.
  const hidden = s.adapter.familyProblem?.(
    s.binary,
    [...s.skills, ...(s.neighbours ?? []), ...caseNeighbourSkills(s.suite.cases)].map((k) => k.name),
  );
  if (hidden) throw new InputError({ file: s.binary, ...hidden });
}

/** The run folder trials go to: a new one, or the interrupted one `--resume` names (after `checkRunnable`). */
export async function prepareRun(s: SuiteToRun, place: RunPlace): Promise<RunTarget> {
  const fresh = newManifest(s, place);
  if (place.resume !== undefined)
    return reopenRun(place.resume, fresh, () => s.adapter.cliVersion(s.binary), {
      cwd: place.cwd,
      force: place.force === true,
      addTrials: place.addTrials,
      canaryMaxTrials: place.canaryMaxTrials,
    });
  const store = await RunStore.create(fromFolder(place.cwd, s.config.transcriptsDir), fresh.runId);
  const lock = lockRunFolder(store.dir, 'run');
  await store.writeManifest(fresh).catch((e: unknown) => {
    lock.release();
    throw e;
  });
  return { store, lock, manifest: fresh, stored: [] };
}

/**
 * The schedulers of a run, each wrapping the one before: its cases' designs with the stored trials replayed, the cost
 * cap (`budget`, with what the stored trials spent), and the isolation stop after the first wave of trials.
 */
function runSchedulers(config: Config, target: RunTarget, startingLimit: number) {
  const replay = new ReplayingScheduler(
    makeScheduler(config, target.manifest.cases.defs, target.manifest),
    new Map(target.stored.map((o) => [trialKey(o), o.passed ?? undefined])),
  );
  const spentBefore = target.stored.reduce((sum, o) => sum + (o.costUsd ?? 0), 0);
  const budget = config.maxCostUsd !== undefined ? new CostCappedScheduler(replay, config.maxCostUsd, spentBefore) : undefined;
  // The first wave: the trials that start together (at least three), of those the run plans.
  const isolation = new IsolationStopScheduler(budget ?? replay, Math.min(replay.plannedTotal(), Math.max(3, startingLimit)));
  return { replay, budget, isolation };
}

/**
 * How the run's trials ended, into its manifest: skills edited meanwhile, the CLI's version and model, the run's
 * status, why it stopped, its concurrency trace and its trial counts.
 */
async function recordRunEnd(
  s: SuiteToRun,
  manifest: RunManifest,
  end: { init: SuiteRun['init']; schedulers: ReturnType<typeof runSchedulers>; pace: Pace; aborted: boolean },
  { finished, stderr }: { finished: number; stderr: ProgressStream },
): Promise<void> {
  const edited = changedSkills([...s.skills, ...(s.neighbours ?? []), ...caseNeighbourSkills(s.suite.cases)]);
  if (edited.length) {
    manifest.skillsChangedDuringRun = edited.map((c) => ({ dir: c.dir, ...(c.hash ? { hash: c.hash } : {}) }));
    stderr.write(`${skillsEditedNote(edited.map((c) => c.dir))}\n`);
  }
  if (end.init) {
    // A CLI whose stream does not say its version is asked once.
    manifest.agent.cliVersion = end.init.cliVersion || (await s.adapter.cliVersion(s.binary));
    manifest.reportedModel = end.init.model;
  }
  const { schedulers, pace, aborted } = end;
  const { replay, budget, isolation } = schedulers;
  // Capped only when the cap left trials unscheduled: a suite that finished under it is complete.
  const capped = budget?.capped === true && !replay.exhausted();
  const isolated = isolation.stoppedBecause !== undefined && !replay.exhausted();
  manifest.status = aborted ? 'interrupted' : capped ? 'cost_capped' : isolated ? 'isolation_stopped' : 'completed';
  if (isolated) manifest.stoppedBecause = isolation.stoppedBecause;
  if (pace.mode === 'auto') manifest.concurrency = { mode: 'auto', trace: pace.trace.map((c) => ({ ...c })) };
  const stopped = aborted || capped || isolated;
  manifest.trials = {
    planned: manifest.trials.planned,
    finished,
    notStarted: stopped ? Math.max(0, isolation.plannedTotal() - finished) : 0,
  };
}

/**
 * Every trial gets the skills, neighbours and the user's files as they were now, kept in the run folder, whatever is
 * edited while the run goes. A run whose snapshot fails is recorded as failed.
 */
async function snapshotInputs(s: SuiteToRun, { store, manifest }: RunTarget) {
  const failStart = async (e: unknown): Promise<never> => {
    await store.writeManifest({ ...manifest, status: 'failed', endedAt: new Date().toISOString() }).catch(() => undefined);
    throw e;
  };
  // A case's own neighbours are kept with the suite's: one name is one skill across the suite.
  const suiteNeighbours = s.neighbours ?? [];
  const [skills, allNeighbours] = await Promise.all([
    snapshotSkills(s.skills, join(store.dir, SKILLS_SNAPSHOT)),
    snapshotSkills([...suiteNeighbours, ...caseNeighbourSkills(s.suite.cases)], join(store.dir, NEIGHBOURS_SNAPSHOT)),
  ]).catch(failStart);
  const neighbours = allNeighbours.slice(0, suiteNeighbours.length);
  const kept = new Map(allNeighbours.map((k) => [k.dir, k]));
  const cases = (await snapshotFixtures(s.suite.cases, join(store.dir, FIXTURES_SNAPSHOT)).catch(failStart)).map((c) =>
    c.neighbourSkills ? { ...c, neighbourSkills: c.neighbourSkills.map((k) => kept.get(k.dir)!) } : c,
  );
  return { skills, neighbours, cases };
}

/** What every trial of the run is given: the agent, its inputs, the store, the simulator and the run's stop. */
function trialContext(
  s: SuiteToRun,
  place: RunPlace,
  manifest: RunManifest,
  run: Pick<TrialContext, 'skills' | 'workspaces' | 'simulatorUrl' | 'store'> & {
    neighbours: Skill[];
    abort: AbortController;
    stderr: ProgressStream;
    settle: NonNullable<TrialContext['settle']>;
  },
): TrialContext {
  const { abort, stderr } = run;
  return {
    adapter: s.adapter,
    binary: s.binary,
    config: s.config,
    skills: run.skills,
    neighbours: run.neighbours.map((k) => k.dir),
    store: run.store,
    callerEnv: place.callerEnv,
    simulatorUrl: run.simulatorUrl,
    keepWorkspaces: place.keepWorkspaces ?? false,
    workspaces: run.workspaces,
    signal: abort.signal,
    role: s.role ?? 'trial',
    drawSeed: manifest.simulator?.draws?.seed,
    settle: run.settle,
    usageLimit: {
      waitForReset: place.waitForReset === true,
      // The first trial to meet it stops the run; those still running are killed and run again on resume.
      stop(why) {
        if (abort.signal.aborted) return;
        manifest.stoppedBecause = `the subscription's usage limit: ${why}`;
        stderr.write(`stopped at the subscription's usage limit (${why}): resume once it resets, or run with --wait-for-reset\n`);
        abort.abort();
      },
    },
  };
}

/**
 * What the run does with each trial once stored (`stored` counts it): grades it, spends its cost against the cap,
 * tells the isolation stop how it ended, and says its verdict.
 */
function judgeStored(
  s: SuiteToRun,
  { cases, grading }: { cases: ReadonlyMap<string, GradableCase>; grading: ReturnType<typeof gradeOptions> },
  { budget, isolation }: Pick<ReturnType<typeof runSchedulers>, 'budget' | 'isolation'>,
  stored: () => void,
): (r: TrialRecord) => TrialJudgement {
  return (r) => {
    const def = cases.get(r.ref.caseId)!;
    const o: TrialOutcome = gradeTrial(r.transcript, r.meta, def, r.ref.arm, r.ref.n, grading);
    stored();
    budget?.spend(o.costUsd);
    isolation.trialEnded(o.status, o.statusDetail);
    // A judge's trial is an answer, not a trial to score.
    const verdict =
      s.role === 'judge'
        ? explainJudgeSample(judgeSample(r.transcript, r.meta, s.adapter.grading.isolationProblem))
        : explainOutcome(o, def);
    return { passed: o.passed, verdict };
  };
}

/** Runs the trials `target` still needs, through the real agent CLI, and records the run's end in run.json. */
export async function executeRun(s: SuiteToRun, place: RunPlace, target: RunTarget): Promise<RunOutcome> {
  const { config, adapter, profile } = s;
  const { store, manifest } = target;
  const { skills, neighbours, cases } = await snapshotInputs(s, target);
  const defs = manifest.cases.defs;
  const gradeOpts = gradeOptions(manifest);
  const pace = config.concurrency === 'auto' ? adaptivePace() : fixedPace(config.concurrency);
  const { replay, budget, isolation } = runSchedulers(config, target, pace.current());

  let sim: RunningSimulator | undefined;
  const abort = new AbortController();
  const workRoot = place.workdir ? fromFolder(place.cwd, place.workdir) : undefined;
  const workspaces = new WorkspacePool({
    root: workRoot,
    skills,
    neighbours,
    skillsFolder: adapter.skillsFolder,
    keep: place.keepWorkspaces ?? false,
    // Workspaces made ahead for the trials about to start: the limit, or under `auto` what it starts at.
    prefetch: typeof config.concurrency === 'number' ? config.concurrency : pace.current(),
  });
  // Trials stored by this process, so a run that stops any way says how many it has.
  let storedHere = 0;
  const finished = () => replay.replayed.length + storedHere;
  const stderr = place.stderr ?? process.stderr;
  // npm sets npm_command for what it runs (`npx`, `npm run`, `npm exec`).
  const watchParent = place.callerEnv.npm_command !== undefined;
  const named = namedAs(s.config.transcriptsDir, place.cwd, store.dir);
  const guard = await guardRun({ abort, workspaces, store, named, manifest, finished, stderr, watchParent });
  try {
    if (profile) sim = await startSimulator(profile);
    const defById = new Map(defs.map((c) => [c.id, c]));
    const settle = { cases: defById, grading: gradeOpts };
    const trialCtx = trialContext(s, place, manifest, {
      skills,
      neighbours,
      workspaces,
      simulatorUrl: sim?.url,
      store,
      abort,
      stderr,
      settle,
    });
    const contexts = [...new Set(cases.map((c) => requestContext(c, config, trialCtx.role)))];
    trialCtx.armListings = await probeArmListings(trialCtx, config.arms, contexts);
    trialCtx.caseListings = await probeCaseListings(trialCtx, config.arms, contexts, cases);
    const result = await runSuite(
      trialCtx,
      cases,
      isolation,
      createProgress(stderr),
      judgeStored(s, { cases: defById, grading: gradeOpts }, { budget, isolation }, () => storedHere++),
      () => replay.replayed.length,
      pace,
    );
    await recordRunEnd(
      s,
      manifest,
      { init: result.init, schedulers: { replay, budget, isolation }, pace, aborted: abort.signal.aborted },
      {
        finished: finished(),
        stderr,
      },
    );
    guard.trialsDone();
    return { store, manifest, guard };
  } catch (e) {
    manifest.status = 'failed';
    manifest.trials = { ...manifest.trials, finished: finished() };
    throw e;
  } finally {
    await closeRun(store, manifest, guard, async () => {
      await workspaces.drain();
      await sim?.stop();
    });
  }
}

/**
 * A run's last step, however it ended: its workspaces and simulator stopped (`stop`), its end time written. The guard
 * is handed to the caller only with a run that goes on to its results.
 */
async function closeRun(store: RunStore, manifest: RunManifest, guard: RunGuard, stop: () => Promise<void>): Promise<void> {
  await stop();
  manifest.endedAt = new Date().toISOString();
  // A run that failed because its folder cannot be written may not be able to say so: its first error is reported.
  const unwritten = await store.writeManifest(manifest).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (manifest.status === 'failed' || unwritten !== undefined) await guard.release();
  if (unwritten !== undefined && manifest.status !== 'failed') throw unwritten;
}
