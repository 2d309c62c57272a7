import { join } from 'node:path';
import { gradeStored } from './stored-grades.js';
import { InputError } from '../util/input-error.js';
import { isPlainObject, valueHash } from '../util/json.js';
import type { GradableCase, RunManifest, TrialOutcome } from '../run/schema.js';
import { lockRunFolder, type RunLock } from '../run/lock.js';
import { currentOwner, RunFolderError, RunStore } from '../run/store.js';

/** Config keys a resumed run may change: how fast, where and how far, never what a trial does. */
const FREE_TO_CHANGE = new Set(['concurrency', 'transcriptsDir', 'maxCostUsd']);

/** Dotted paths under which two JSON values differ. Pure. */
export function differingPaths(a: unknown, b: unknown, at = ''): string[] {
  if (isPlainObject(a) && isPlainObject(b)) {
    return [...new Set([...Object.keys(a), ...Object.keys(b)])].sort().flatMap((k) => differingPaths(a[k], b[k], at ? `${at}.${k}` : k));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [at || '(the whole value)'];
}

/** Config paths under which two runs differ in what a trial does (how fast, where and how far may differ). */
export function configDifferences(a: RunManifest['config'], b: RunManifest['config']): string[] {
  return differingPaths(a, b).filter((p) => !FREE_TO_CHANGE.has(p.split('.')[0]!));
}

const short = (hash: string) => hash.slice(0, 8);

/**
 * How the simulator differs, in words, or undefined: its profile file, name or seed, or any edit of what it does
 * (a run stored before profiles were hashed is compared on the rest).
 */
export function simulatorChange(a: RunManifest['simulator'], b: RunManifest['simulator']): string | undefined {
  if (!a || !b)
    return a === b ? undefined : a ? 'the run used the simulator, now a real model' : 'the run used a real model, now the simulator';
  const what = [
    a.profile !== b.profile && `profile ${a.profile} → ${b.profile}`,
    a.name !== b.name && `name ${a.name} → ${b.name}`,
    a.seed !== b.seed && `seed ${a.seed} → ${b.seed}`,
    // A resume keeps the run's own draws; only a seed given now that differs is a change.
    b.draws?.given && a.draws?.seed !== b.draws.seed && `draw seed ${a.draws?.seed ?? 'none'} → ${b.draws.seed}`,
    a.behaviourHash &&
      b.behaviourHash &&
      a.behaviourHash !== b.behaviourHash &&
      `its behaviour was edited (${short(a.behaviourHash)} → ${short(b.behaviourHash)})`,
  ].filter(Boolean);
  return what.length ? what.join(', ') : undefined;
}

/** The ids of the cases in both runs whose `key` differs; cases in only one are the selection's change. */
function casesWhose(a: RunManifest, b: RunManifest, key: (c: GradableCase) => string): string | undefined {
  const of = (m: RunManifest) => new Map(m.cases.defs.map((c) => [c.id, key(c)]));
  const [was, is] = [of(a), of(b)];
  const changed = [...was.keys()].filter((id) => is.has(id) && is.get(id) !== was.get(id));
  if (!changed.length) return undefined;
  return changed.length > 5 ? `${changed.slice(0, 5).join(', ')} and ${changed.length - 5} more` : changed.join(', ');
}

/**
 * The cases whose fixtures (the user's files, the instruction file) differ between two runs, in words, or undefined;
 * a case without fixtures in either (or a run before format 5) has none.
 */
function fixtureChanges(a: RunManifest, b: RunManifest): string | undefined {
  const listed = casesWhose(a, b, (c) => c.fixtures?.hash ?? 'none');
  return listed && `fixtures (the user's files of ${listed}: ${short(a.fixturesHash ?? 'none')} → ${short(b.fixturesHash ?? 'none')})`;
}

/**
 * The cases whose own neighbours (`neighbours:` in a case) were added, removed or edited between two runs, in words,
 * or undefined; a case without them in either (or a run before format 6) has none.
 */
function caseNeighbourChanges(a: RunManifest, b: RunManifest): string | undefined {
  const listed = casesWhose(a, b, (c) => (c.neighbours ? valueHash(c.neighbours) : 'none'));
  return (
    listed && `a case's neighbours (of ${listed}: ${short(a.caseNeighboursHash ?? 'none')} → ${short(b.caseNeighboursHash ?? 'none')})`
  );
}

/** The cases whose conversation (`history:`, `followUps:`) was added, removed or edited between two runs, in words, or undefined. */
function conversationChanges(a: RunManifest, b: RunManifest): string | undefined {
  const listed = casesWhose(a, b, (c) => c.conversation?.hash ?? 'none');
  return listed && `a case's conversation (history or follow-ups of ${listed})`;
}

/**
 * The cases whose MCP servers (the config's `mcp`, a case's own) were added, removed or edited between two runs, in
 * words, or undefined; a case offered none in either (or a run before MCP servers) has none.
 */
function mcpChanges(a: RunManifest, b: RunManifest): string | undefined {
  const listed = casesWhose(a, b, (c) => (c.mcp ? valueHash(c.mcp) : 'none'));
  return listed && `MCP servers (of ${listed})`;
}

const shardText = (m: RunManifest) => (m.shard ? `${m.shard.index}/${m.shard.total}` : 'none');

/** Which skills of a set (the family, the neighbours) were added, removed or edited, with the set's hash before and after. */
function skillsChange(what: string, was: SkillSet, is: SkillSet): string | undefined {
  if (was.hash === is.hash) return undefined;
  const [before, after] = [new Map(was.skills.map((s) => [s.dir, s.hash])), new Map(is.skills.map((s) => [s.dir, s.hash]))];
  const which = [...new Set([...before.keys(), ...after.keys()])].filter((d) => before.get(d) !== after.get(d));
  return `${what} (${which.join(', ') || 'contents'}: ${short(was.hash ?? 'none')} → ${short(is.hash ?? 'none')})`;
}
type SkillSet = { skills: RunManifest['skills']; hash: string | undefined };

/**
 * What differs between the run as stored and the suite as loaded now, in words; empty when a resume can go on.
 * Pure: the stored manifest, a fresh one for the same run, the CLI version the binary reports now, and for a canary
 * the cap on its trials given now (`--max-trials`, which caps the canary and not the cases' own designs).
 */
export function resumeChanges(
  stored: RunManifest,
  now: RunManifest,
  cliVersionNow: string | undefined,
  canaryMaxTrialsNow?: number,
): string[] {
  const changes: string[] = [];
  const neighboursOf = (m: RunManifest): SkillSet => ({ skills: m.neighbours ?? [], hash: m.neighboursHash });
  const skills = skillsChange('skills', { skills: stored.skills, hash: stored.skillsHash }, { skills: now.skills, hash: now.skillsHash });
  const neighbours = skillsChange('neighbours', neighboursOf(stored), neighboursOf(now));
  changes.push(...[skills, neighbours].filter((c): c is string => c !== undefined));
  if (stored.cases.hash !== now.cases.hash) changes.push(`case files (${short(stored.cases.hash)} → ${short(now.cases.hash)})`);
  const fixtures = fixtureChanges(stored, now);
  if (fixtures) changes.push(fixtures);
  const caseNeighbours = caseNeighbourChanges(stored, now);
  if (caseNeighbours) changes.push(caseNeighbours);
  const conversation = conversationChanges(stored, now);
  if (conversation) changes.push(conversation);
  const mcp = mcpChanges(stored, now);
  if (mcp) changes.push(mcp);
  const ids = (m: RunManifest) => m.cases.defs.map((c) => c.id).join(',');
  if (shardText(stored) !== shardText(now)) changes.push(`the shard (--shard ${shardText(stored)} → ${shardText(now)})`);
  else if (ids(stored) !== ids(now)) changes.push('the selected cases (--grep, --tag, --last-failed)');
  const config = configDifferences(stored.config, now.config);
  if (config.length) changes.push(`config (${config.join(', ')})`);
  const capText = (cap: number | undefined) => (cap === undefined ? 'none' : String(cap));
  if (stored.canary && stored.canary.maxTrials !== canaryMaxTrialsNow)
    changes.push(`the canary's cap (--max-trials ${capText(stored.canary.maxTrials)} → ${capText(canaryMaxTrialsNow)})`);
  if (stored.agent.id !== now.agent.id) changes.push(`agent (${stored.agent.id} → ${now.agent.id})`);
  if (stored.agent.binary !== now.agent.binary) changes.push(`agent binary (${stored.agent.binary} → ${now.agent.binary})`);
  if (stored.agent.cliVersion !== undefined && cliVersionNow !== undefined && stored.agent.cliVersion !== cliVersionNow) {
    changes.push(`agent CLI version (${stored.agent.cliVersion} → ${cliVersionNow})`);
  }
  const sim = simulatorChange(stored.simulator, now.simulator);
  if (sim) changes.push(`simulator profile (--sim: ${sim})`);
  return changes;
}

/**
 * Whether `dir` holds a canary's run (`run --baseline`), read before the suite is loaded: its `--max-trials` is the
 * canary's cap. False where it holds no readable run: resuming it names why.
 */
export async function holdsCanary(dir: string, cwd: string): Promise<boolean> {
  try {
    return (await RunStore.open(dir, cwd)).manifest.canary !== undefined;
  } catch (e) {
    if (e instanceof RunFolderError) return false;
    throw e;
  }
}

/** A resume refused because what a trial does changed since the run started, each change named. */
export const changedSinceStart = (file: string, changes: readonly string[]) =>
  new InputError({
    file,
    what: `changed since this run started: ${changes.join('; ')}`,
    todo: 'resume with the inputs it ran with, or pass --force to resume with the new ones',
  });

/** What a top-up (`--add-trials`) adds before it runs: trials, and their cost at the run's own mean cost per trial. */
export interface TopUpPrice {
  trials: number;
  /** Absent when no stored trial says what it cost (the simulator, a CLI that does not report it). */
  costUsd?: number;
}

/**
 * The price of topping a run up by `addTrials` per case and arm, from its stored trials; refused (exit 2, nothing
 * recorded or spawned) when the run's spend and that price pass `maxCostUsd`. Pure.
 */
export function priceTopUp(file: string, stored: readonly TrialOutcome[], addTrials: number, maxCostUsd: number | undefined): TopUpPrice {
  const caseArms = new Set(stored.map((o) => `${o.caseId}\0${o.arm}`)).size;
  const trials = addTrials * caseArms;
  const costs = stored.flatMap((o) => (o.costUsd === undefined ? [] : [o.costUsd]));
  const spent = costs.reduce((sum, c) => sum + c, 0);
  const costUsd = costs.length ? (trials * spent) / costs.length : undefined;
  if (costUsd !== undefined && maxCostUsd !== undefined && spent + costUsd > maxCostUsd) {
    throw new InputError({
      file,
      what: `--add-trials ${addTrials} adds ${trials} trials, about $${costUsd.toFixed(2)} at this run's mean cost per trial, and with the $${spent.toFixed(2)} spent passes --max-cost ${maxCostUsd}`,
      todo: `add fewer trials, or raise --max-cost to at least ${Math.ceil(spent + costUsd)}`,
    });
  }
  return { trials, ...(costUsd !== undefined ? { costUsd } : {}) };
}

export interface ResumedRun {
  store: RunStore;
  lock: RunLock;
  manifest: RunManifest;
  /** The stored trials that count: graded now, replayed through the scheduler in trial order. */
  stored: TrialOutcome[];
  /** Transcripts without their meta.json, set aside (their trials run again). */
  setAside: string[];
  /** With --add-trials: what the top-up adds, priced before it runs. */
  topUp?: TopUpPrice;
}

/**
 * Reopens an interrupted run for `--resume`: refuses one still running, or one whose inputs changed (unless
 * forced); grades what it stored. Trials stopped by the interruption (status `killed`) are not kept as results:
 * they run again, as they would have in an uninterrupted run.
 */
/**
 * How a resume goes: `force` past changed inputs; `addTrials` tops a finished run up by that many trials per case;
 * `canaryMaxTrials`: the `--max-trials` given now, when the run is a canary.
 */
export interface ResumeOptions {
  /** The user's working folder: a relative `dir` is taken from it. */
  cwd: string;
  force: boolean;
  addTrials?: number;
  canaryMaxTrials?: number;
}

export async function reopenRun(
  dir: string,
  fresh: RunManifest,
  cliVersionNow: () => Promise<string | undefined>,
  o: ResumeOptions,
): Promise<ResumedRun> {
  const { store } = await RunStore.open(dir, o.cwd);
  // Taken before the manifest is read for good: of two resumes started together, the second is refused here.
  const lock = lockRunFolder(store.dir, 'run --resume');
  try {
    return await reopenLocked(dir, lock, fresh, cliVersionNow, o);
  } catch (e) {
    lock.release();
    throw e;
  }
}

/** Why a stored run cannot be topped up, or undefined when it can. */
function topUpProblem(stored: RunManifest): { what: string; todo: string } | undefined {
  if (stored.status !== 'completed')
    return {
      what: `the run is ${stored.status}: --add-trials tops up a finished run`,
      todo: 'finish it first (`skillprobe run --resume` without --add-trials), then add trials',
    };
  if (stored.canary)
    return {
      what: "the run is a canary (`--baseline`): its boundaries set each case's trials",
      todo: 'top up the base run instead, or run a new canary',
    };
  return undefined;
}

async function reopenLocked(
  dir: string,
  lock: RunLock,
  fresh: RunManifest,
  cliVersionNow: () => Promise<string | undefined>,
  o: ResumeOptions,
): Promise<ResumedRun> {
  const { store, manifest: stored } = await RunStore.open(dir, o.cwd);
  const file = join(dir, 'run.json');
  const { force, addTrials } = o;
  if (stored.status === 'running') {
    throw new InputError({
      file,
      what: `the run is still running (process ${stored.owner?.pid ?? '?'})`,
      todo: 'wait for it, or stop it first (Ctrl-C), then resume',
    });
  }
  const cannotTopUp = addTrials === undefined ? undefined : topUpProblem(stored);
  if (cannotTopUp) throw new InputError({ file, ...cannotTopUp });
  // Asked only of a folder that can be resumed: asking starts the binary.
  const changes = resumeChanges(stored, fresh, await cliVersionNow(), o.canaryMaxTrials);
  if (changes.length && !force) throw changedSinceStart(file, changes);
  await store.removeLeftovers();
  const setAside = await store.setAsideOrphanTranscripts();
  const graded = await gradeStored(store, stored);
  const kept = graded.outcomes.filter((o) => o.status !== 'killed');
  // Priced before the top-up is recorded or a trial spawned: one the budget cannot hold is refused here.
  const topUp = addTrials === undefined ? undefined : priceTopUp(file, kept, addTrials, fresh.config.maxCostUsd);
  const manifest: RunManifest = {
    ...(force ? fresh : stored),
    runId: stored.runId,
    startedAt: stored.startedAt,
    status: 'running',
    owner: currentOwner(),
    endedAt: undefined,
    agent: { ...(force ? fresh : stored).agent, cliVersion: stored.agent.cliVersion },
    resumedAt: [...(stored.resumedAt ?? []), new Date().toISOString()],
    // Why it stopped last time is over once it goes on.
    stoppedBecause: undefined,
    // What stops each case is the stored run's, whatever was forced; so are its draws, unless a seed was given.
    canary: stored.canary,
    ...(force && fresh.simulator && stored.simulator?.draws && !fresh.simulator.draws?.given
      ? { simulator: { ...fresh.simulator, draws: stored.simulator.draws } }
      : {}),
    topUps: addTrials !== undefined ? [...(stored.topUps ?? []), addTrials] : stored.topUps,
    ...(changes.length ? { forcedChanges: [...(stored.forcedChanges ?? []), ...changes] } : {}),
  };
  await store.writeManifest(manifest);
  return { store, lock, manifest, stored: kept, setAside, ...(topUp ? { topUp } : {}) };
}
