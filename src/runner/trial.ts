import { fileLines } from '../util/file-lines.js';
import { spawnAgent, type ConversationInput } from '../agents/spawn.js';
import { copyLogin } from '../agents/login.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { pauseDecision } from './usage-limit.js';
import { collectMcpEvidence } from '../agents/mcp-servers.js';
import { earlierTurns } from '../load/conversation.js';
import { followUpDue } from '../grade/turns.js';
import type { AgentAdapter, InvocationRequest, ProviderSignal, StdinFollowUps, TrialRole } from '../agents/types.js';
import { runResumedTurns } from './resumed-turns.js';
import { trialStatus } from '../grade/status.js';
import type { Case } from '../load/cases.js';
import type { McpServer } from '../load/mcp.js';
import type { Arm, Config, Context } from '../run/config-schema.js';
import { familyHash, type Skill } from '../load/skills.js';
import { join } from 'node:path';
import { CASE_HEADER, simulatorBaseUrl, TRIAL_HEADER } from '../sim/server.js';
import { StoreWriteError, type RunStore } from '../run/store.js';
import type { Transcript } from '../transcript/types.js';
import type { WorkspacePool } from '../workspace/pool.js';
import { copySkill, type SealedWorkspace } from '../workspace/sealed.js';
import { furnishWorkspace } from '../workspace/fixtures.js';
import { contextOf, storedMcp } from '../trials/stored-case.js';
import { treeChanges, treeState } from '../workspace/tree-state.js';
import { trialKey, type GradableCase, type ShownEvidence, type TrialEvidence, type TrialMeta, type TrialRef } from '../run/schema.js';
import { settledAt, settles, settlingSkills, type SettleOptions } from '../grade/settle.js';

export interface TrialContext {
  adapter: AgentAdapter;
  binary: string;
  config: Config;
  skills: Skill[];
  /** Folder names of the neighbours every workspace holds beside the family (none by default). */
  neighbours?: string[];
  store: RunStore;
  callerEnv: NodeJS.ProcessEnv;
  simulatorUrl?: string;
  keepWorkspaces: boolean;
  workspaces: WorkspacePool;
  signal: AbortSignal;
  /** What a CLI says of the provider while its trial runs (a 429 it is retrying), for the concurrency limit. */
  onProviderSignal?: (s: ProviderSignal) => void;
  /**
   * What the CLI lists in each arm and context (`listingKey`), measured once before any trial, for a CLI whose trials
   * do not record it: a field trial lists the CLI's bundled skills too.
   */
  armListings?: Partial<Record<string, ShownEvidence>>;
  /** Likewise for the cases with their own neighbours, by `neighbourSetKey` of those neighbours. */
  caseListings?: Map<string, Partial<Record<string, ShownEvidence>>>;
  /** What the trials are for, which decides the tools the CLI offers. */
  role: TrialRole;
  /** The run's draw seed (run.json), mixed into the key the simulator draws from; absent in runs made before it. */
  drawSeed?: number;
  /** The run's stored cases and how it grades, for trials stopped once their outcome is settled (absent: none is). */
  settle?: { cases: ReadonlyMap<string, GradableCase>; grading: SettleOptions };
  /**
   * A subscription's usage limit met by a trial: with `waitForReset` the trial sleeps until it resets (capped) and
   * runs again; else `stop` ends the run, interrupted and resumable, saying why.
   */
  usageLimit?: { waitForReset: boolean; stop(why: string): void };
}

/** The key the simulator draws a trial from: the run's draw seed and the trial, so runs draw independently unless they share a seed. */
const drawKey = (ctx: Pick<TrialContext, 'drawSeed'>, ref: TrialRef) =>
  ctx.drawSeed === undefined ? trialKey(ref) : `${ctx.drawSeed}:${trialKey(ref)}`;

export interface TrialRecord {
  ref: TrialRef;
  transcript: Transcript;
  meta: TrialMeta;
}

/**
 * Where a request of `role` for case `c` runs: a trial under test in its case's context; a judge's or a proposer's
 * request has no tools to refuse, so always the lab.
 */
export const requestContext = (c: Pick<Case, 'context'>, config: Pick<Config, 'context'>, role: TrialRole): Context =>
  role === 'trial' ? contextOf(c, config) : 'lab';

/** What the adapter is asked to run in workspace `ws`; `identity` tells the simulator which trial is asking. */
function invocationRequest(
  ctx: TrialContext,
  ws: SealedWorkspace,
  prompt: string,
  identity: { key: string; caseId: string },
  context: Context = 'lab',
  conversation?: InvocationRequest['conversation'],
  mcp?: readonly McpServer[],
): InvocationRequest {
  const url = ctx.simulatorUrl;
  return {
    prompt,
    model: ctx.config.model ?? ctx.adapter.defaultModel,
    maxTurns: ctx.config.maxTurns,
    cliRetries: ctx.config.retries.cli,
    deadlineMs: ctx.config.timeouts.trialSeconds * 1000,
    workspace: ws.dir,
    home: ws.home,
    tmp: ws.tmp,
    harnessDir: ws.harnessDir,
    callerEnv: ctx.callerEnv,
    ...(ctx.config.auth === 'login' ? { login: true } : {}),
    binary: ctx.binary,
    role: ctx.role,
    ...(context === 'field' ? { context } : {}),
    ...(conversation ? { conversation } : {}),
    ...(mcp?.length ? { mcp } : {}),
    simulator: url
      ? {
          url,
          headers: { [TRIAL_HEADER]: identity.key, [CASE_HEADER]: identity.caseId },
          identityUrl: simulatorBaseUrl(url, identity.key, identity.caseId),
        }
      : undefined,
  };
}

/**
 * Writes what the trial needs beyond its workspace before the CLI starts: the caller's login (its credential files
 * alone) into the fresh HOME, then the adapter's own files. Returns what the parser will need.
 */
async function prepareRequest(adapter: AgentAdapter, req: InvocationRequest): Promise<TrialEvidence> {
  if (req.login && adapter.login) await copyLogin(adapter.login, req.callerEnv, req.home);
  return (await adapter.prepareTrial?.(req)) ?? {};
}

/** Where an arm's listing in a context is kept (`armListings`). */
export const listingKey = (arm: Arm, context: Context): string => `${context}/${arm}`;

/** What tells apart the listings of cases with their own neighbours: the set of them (cases naming one folder share it). */
export const neighbourSetKey = (skills: readonly Skill[]): string => familyHash([...skills]);

/** Installs a case's own neighbours into a trial's workspace, beside the family and the suite's neighbours. */
async function installCaseNeighbours(ctx: TrialContext, ws: SealedWorkspace, skills: readonly Skill[]): Promise<void> {
  for (const k of skills) await copySkill(k, join(ws.dir, ctx.adapter.skillsFolder, k.dir));
}

/**
 * For a CLI whose trials do not record the skills it listed: its own listing in a workspace prepared exactly as
 * each arm's trials are in each context (with `caseNeighbours`, as a case's that has its own), measured once per arm
 * and context before any trial.
 */
export async function probeArmListings(
  ctx: TrialContext,
  arms: readonly Arm[],
  contexts: readonly Context[] = ['lab'],
  caseNeighbours: readonly Skill[] = [],
): Promise<Partial<Record<string, ShownEvidence>>> {
  const probe = ctx.adapter.probeListing?.bind(ctx.adapter);
  if (!probe) return {};
  const listings: Partial<Record<string, ShownEvidence>> = {};
  for (const context of contexts)
    for (const arm of arms) {
      const ws = await ctx.workspaces.take(arm);
      try {
        await installCaseNeighbours(ctx, ws, caseNeighbours);
        const req = invocationRequest(ctx, ws, '', { key: `listing/${arm}`, caseId: '' }, context);
        await prepareRequest(ctx.adapter, req);
        listings[listingKey(arm, context)] = await probe(req);
      } finally {
        ctx.workspaces.release(ws);
      }
    }
  return listings;
}

/**
 * The listings of the cases with their own neighbours, as `probeArmListings` measures each arm's in each context:
 * once per set of them, keyed by `neighbourSetKey`; none for a CLI whose trials record what they listed.
 */
export async function probeCaseListings(
  ctx: TrialContext,
  arms: readonly Arm[],
  contexts: readonly Context[],
  cases: readonly Pick<Case, 'neighbourSkills'>[],
): Promise<Map<string, Partial<Record<string, ShownEvidence>>>> {
  const listings = new Map<string, Partial<Record<string, ShownEvidence>>>();
  if (!ctx.adapter.probeListing) return listings;
  for (const c of cases) {
    const key = c.neighbourSkills && neighbourSetKey(c.neighbourSkills);
    if (key !== undefined && !listings.has(key)) listings.set(key, await probeArmListings(ctx, arms, contexts, c.neighbourSkills!));
  }
  return listings;
}

/** A case's conversation as the adapter takes it, when it has one and the CLI takes it (else it was refused). */
const conversationOf = (adapter: AgentAdapter, c: Case): InvocationRequest['conversation'] =>
  adapter.conversation && (c.history || c.followUps) ? { history: earlierTurns(c.history) } : undefined;

/**
 * The user turns of a case's conversation, fed to a CLI that takes them on its stdin: its prompt, then each follow-up
 * in order while the assistant's last turn ended without acting (`followUpDue`), until they run out.
 */
function conversationInput(take: StdinFollowUps, c: Case, due: (turn: string) => boolean): ConversationInput {
  const followUps = [...(c.followUps ?? [])];
  return {
    first: take.userLine(c.prompt),
    endsTurn: take.endsTurn,
    next: (turn) => {
      const reply = followUps.length > 0 && due(turn) ? followUps.shift() : undefined;
      return reply === undefined ? undefined : take.userLine(reply);
    },
  };
}

/** Whether a turn's stdout, read with what preparing the trial planted (a skill read's proof), leaves a follow-up due. */
const followUpDueIn =
  (adapter: AgentAdapter, evidence: TrialEvidence) =>
  (turn: string): boolean =>
    followUpDue(adapter.parse(turn, { evidence, exitCode: null }), adapter.skillsFolder);

/** The most of a trial's stream read for its settling moment: past it, a trial runs to its end (reading it again at each line costs). */
const SETTLE_WATCH = { lines: 400, bytes: 512 * 1024 };

/** How long a CLI that stops itself once settled (`stopsWhenSettled`) may take to write its last lines and end. */
const SELF_STOP_MS = 5000;

/**
 * Whether a trial's outcome is settled once each line of its stream arrived: its stream so far, read with what
 * preparing the trial planted, as the grader reads the stored one (`settledAt`); and whether the CLI ends by itself
 * then (a loaded call of a skill its hook stops on: `req.settle`).
 */
function settleWatch(
  adapter: AgentAdapter,
  req: InvocationRequest,
  evidence: TrialEvidence,
  settling: { def: GradableCase; arm: Arm; grading: SettleOptions },
): (line: string) => { endsWithinMs: number } | undefined {
  const lines: string[] = [];
  let bytes = 0;
  return (line) => {
    lines.push(line);
    bytes += line.length;
    if (lines.length > SETTLE_WATCH.lines || bytes > SETTLE_WATCH.bytes || !line.trim()) return undefined;
    const t = adapter.parse(lines.join('\n'), { evidence, exitCode: null });
    const at = settledAt(t, settling.def, settling.arm, settling.grading);
    if (at === undefined) return undefined;
    const e = t.events[at];
    const stopsItself = adapter.stopsWhenSettled && req.settle !== undefined && e?.kind === 'skill_load' && e.status === 'loaded';
    return { endsWithinMs: stopsItself ? SELF_STOP_MS : 0 };
  };
}

/** Runs one trial: sealed workspace → agent → raw transcript on disk; infra errors retried as configured. */
export async function runTrial(ctx: TrialContext, c: Case, ref: TrialRef): Promise<TrialRecord> {
  const maxAttempts = 1 + ctx.config.retries.infra;
  for (let attempt = 1; ; attempt++) {
    const ws = await ctx.workspaces.take(ref.arm);
    try {
      const { transcript, meta, failed, limit } = await attemptTrial(ctx, c, ref, ws, attempt);
      const pause = limit && pauseDecision(limit, Date.now(), ctx.usageLimit?.waitForReset === true);
      // Slept through to the reset: this attempt is kept and the trial runs again; a stop meanwhile keeps it as the trial.
      const waited = pause?.kind === 'wait' && (await sleptUnlessStopped(pause.ms, ctx.signal));
      const retry = waited || (failed && attempt < maxAttempts && !ctx.signal.aborted);
      // A failed attempt is kept beside the trial (`<n>.a1.jsonl`), never overwritten or lost.
      await ctx.store.commitTrial(ref, meta, retry ? attempt : undefined);
      if (!retry) {
        if (pause?.kind === 'stop') ctx.usageLimit?.stop(pause.why);
        return { ref, transcript, meta };
      }
    } finally {
      ctx.workspaces.release(ws);
    }
  }
}

/**
 * One attempt of a trial in workspace `ws`, its stream written to the store's partial file: its transcript and meta,
 * whether it failed for the infrastructure, and the usage limit it met.
 */
async function attemptTrial(ctx: TrialContext, c: Case, ref: TrialRef, ws: SealedWorkspace, attempt: number) {
  await furnishWorkspace(ws.dir, c.fixtures, ctx.adapter.instructionFiles[0]!);
  await installCaseNeighbours(ctx, ws, c.neighbourSkills ?? []);
  const { req, conversation, settling } = trialRequest(ctx, c, ref, ws);
  const prepared = await prepareRequest(ctx.adapter, req);
  // The field's evidence that nothing ran: the workspace as the CLI found it, compared after it ends.
  const before = req.context === 'field' ? await treeState(ws.dir) : undefined;
  const inv = ctx.adapter.invocation(req);
  const files = await ctx.store.prepareTrial(ref);
  // Over stdin, every turn of a conversation goes in that way (the prompt too); resumed, only follow-ups need more.
  const takes = conversation ? ctx.adapter.conversation?.followUps : undefined;
  const due = followUpDueIn(ctx.adapter, prepared);
  const spawnOptions = trialSpawnOptions(ctx, ws.dir, files.partial, attempt);
  const spawned =
    takes?.via === 'resume' && c.followUps?.length
      ? await runResumedTurns({ take: takes, req, first: inv, followUps: c.followUps ?? [], due }, spawnOptions)
      : await spawnAgent(inv, {
          ...spawnOptions,
          ...(settling ? { settledBy: settleWatch(ctx.adapter, req, prepared, settling) } : {}),
          ...(takes?.via === 'stdin' ? { conversation: conversationInput(takes, c, due) } : {}),
        });
  const evidence = await evidenceAfter(ctx, c, ref, req, prepared, before && { dir: ws.dir, before });
  const meta: TrialMeta = {
    ...spawned,
    agent: ctx.adapter.id,
    ...(ws.skillsHash ? { skillsHash: ws.skillsHash } : {}),
    ...(ctx.keepWorkspaces ? { workspace: ws.dir } : {}),
    ...(evidence ? { evidence } : {}),
  };
  // The transcript just written, read back: an errno here means the folder is gone or broken, not the agent.
  let transcript: Transcript;
  try {
    transcript = ctx.adapter.parse(fileLines(files.partial), meta);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== undefined) throw new StoreWriteError(files.partial, e as Error);
    throw e;
  }
  const verdict = trialStatus(transcript, meta, {
    arm: ref.arm,
    family: ctx.skills.map((s) => s.dir),
    instructions: c.fixtures?.instructions !== undefined,
    neighbours: [...(ctx.neighbours ?? []), ...(c.neighbourSkills ?? []).map((k) => k.dir)],
    ...(req.context ? { context: req.context } : {}),
    ...(c.history ? { history: true } : {}),
    ...(req.mcp ? { mcp: storedMcp(req.mcp) } : {}),
    isolationProblem: ctx.adapter.grading.isolationProblem,
  });
  return { transcript, meta, failed: verdict.status === 'infra_error', limit: spawned.usageLimit };
}

/** A trial's request to the CLI, its conversation, and what settles it early (a trial whose outcome is decided). */
function trialRequest(ctx: TrialContext, c: Case, ref: TrialRef, ws: SealedWorkspace) {
  const conversation = conversationOf(ctx.adapter, c);
  const def = ctx.role === 'trial' ? ctx.settle?.cases.get(c.id) : undefined;
  const settling = def && settles(def, ref.arm) ? { def, arm: ref.arm, grading: ctx.settle!.grading } : undefined;
  const settlingNames = settling ? settlingSkills(settling.def, ref.arm, settling.grading.family) : [];
  const asked = invocationRequest(
    ctx,
    ws,
    c.prompt,
    { key: drawKey(ctx, ref), caseId: c.id },
    requestContext(c, ctx.config, ctx.role),
    conversation,
    ctx.role === 'trial' ? c.mcpServers : undefined,
  );
  const req: InvocationRequest = settlingNames.length ? { ...asked, settle: { skills: settlingNames } } : asked;
  return { req, conversation, settling };
}

/** How a trial's CLI is spawned: its folder, deadline, output file and limits, and what it reports as it goes. */
function trialSpawnOptions(ctx: TrialContext, cwd: string, stdoutFile: string, attempt: number) {
  return {
    cwd,
    deadlineMs: ctx.config.timeouts.trialSeconds * 1000,
    signal: ctx.signal,
    attempt,
    stdoutFile,
    maxOutputBytes: Math.round(ctx.config.maxOutputMB * 1024 * 1024),
    ...(ctx.adapter.startsToolCall ? { toolCallLimit: { startsToolCall: ctx.adapter.startsToolCall, max: ctx.config.maxTurns } } : {}),
    ...(ctx.adapter.providerSignal && ctx.onProviderSignal
      ? { provider: { read: ctx.adapter.providerSignal, signal: ctx.onProviderSignal } }
      : {}),
    ...(ctx.adapter.usageLimit ? { usageLimit: ctx.adapter.usageLimit } : {}),
  };
}

/**
 * What a trial's CLI left as evidence once it ended, beside what preparing it planted and the listing measured for
 * its arm; for a field trial (`field`), what changed in its workspace.
 */
async function evidenceAfter(
  ctx: TrialContext,
  c: Case,
  ref: TrialRef,
  req: InvocationRequest,
  prepared: TrialEvidence,
  field: { dir: string; before: Awaited<ReturnType<typeof treeState>> } | undefined,
): Promise<TrialEvidence | undefined> {
  // Evidence that cannot be read is evidence missing (the isolation check fails closed), never a lost trial. The
  // stub MCP servers' records are the harness's own, whichever CLI ran.
  const [collected, stubs] = await Promise.all([
    Promise.resolve(ctx.adapter.collectEvidence?.(req)).catch(() => undefined),
    collectMcpEvidence(req).catch(() => undefined),
  ]);
  const changed =
    field &&
    (await treeState(field.dir)
      .then((after) => treeChanges(field.before, after))
      .catch(() => undefined));
  return trialEvidence(
    { ...prepared, ...(changed ? { workspaceChanged: changed } : {}) },
    { ...collected, ...stubs },
    (c.neighbourSkills ? ctx.caseListings?.get(neighbourSetKey(c.neighbourSkills)) : ctx.armListings)?.[
      listingKey(ref.arm, req.context ?? 'lab')
    ],
  );
}

/** Sleeps `ms`; false when the run was stopped first. */
async function sleptUnlessStopped(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/** A trial's evidence: what preparation planted, what the CLI recorded, else its listing for the arm; none when empty. */
function trialEvidence(
  prepared: TrialEvidence,
  collected: TrialEvidence | undefined,
  armListing: ShownEvidence | undefined,
): TrialEvidence | undefined {
  const shown = collected?.shown ?? prepared.shown ?? armListing;
  const evidence: TrialEvidence = { ...prepared, ...collected, ...(shown ? { shown } : {}) };
  return Object.keys(evidence).length ? evidence : undefined;
}
