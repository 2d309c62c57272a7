import type { GradingConventions } from '../agents/types.js';
import type { Arm } from '../run/config-schema.js';
import { MCP_CONNECTED, type ErrorEvent, type InitEvent, type ResultEvent, type Transcript } from '../transcript/types.js';
import type { StoredMcpServer, TrialMeta, TrialStatus } from '../run/schema.js';
import { exitText } from '../mcp/record.js';

export interface IsolationContext {
  arm: Arm;
  /** Folder names of the family installed in the skill arm. */
  family: string[];
  /** The case's fixtures held the project's instruction file: the CLI showing it is no leak. */
  instructions?: boolean;
  /** Folder names of the neighbours installed beside the family in both arms (`neighbours:`). */
  neighbours?: string[];
  /** `field` when the trial ran in the field (its case's stored context); absent: the lab. */
  context?: 'field';
  /** The case started from earlier turns (`history:`): the trial's evidence must show its first request held them. */
  history?: boolean;
  /** The stub MCP servers the trial was offered and their tools (the case's stored `mcp`); absent: none. */
  mcp?: readonly StoredMcpServer[];
  /** The agent's own isolation check (its adapter's): the graders know no CLI's evidence. */
  isolationProblem: GradingConventions['isolationProblem'];
}

export interface StatusVerdict {
  status: TrialStatus;
  detail?: string;
}

/** Error kinds that mean the service, not the model or the skill, failed: missing data, not a "did not trigger". */
const INFRA_KINDS = new Set<ErrorEvent['errorKind']>(['rate_limit', 'server_error', 'overloaded', 'connection', 'timeout']);

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Whether the model's last tool call has no result yet: a tool, not the model, was what the trial waited on. */
function toolStillRunning(t: Transcript): boolean {
  const calls = t.events.filter((e) => e.kind === 'tool_call' && e.source === 'assistant');
  const last = calls.at(-1);
  return last?.kind === 'tool_call' && !t.events.some((e) => e.kind === 'tool_result' && e.id === last.id);
}

/**
 * Why the trial's stub MCP servers are missing data, or undefined: one was killed while the trial ran (the CLI ends
 * each, and the stub records that), or did not answer every call the model made of it that came back (the CLI hands
 * the model an error in its place, or drops its tools from the next request). Either way the model did not choose
 * among what the trial offered. The stubs' records (the trial's evidence) say; a run stored without them is taken as
 * it was graded.
 */
export function stubServerProblem(t: Transcript, meta: Pick<TrialMeta, 'evidence'>, servers: IsolationContext['mcp']): string | undefined {
  const records = meta.evidence?.mcp;
  const stubs = (servers ?? []).filter((s) => s.stubTools !== undefined);
  if (!records || !stubs.length) return undefined;
  const resulted = new Set(t.events.flatMap((e) => (e.kind === 'tool_result' ? [e.id] : [])));
  for (const stub of stubs) {
    const made = t.events.filter(
      (e) => e.kind === 'tool_call' && e.intent === 'mcp' && e.mcp?.server === stub.name && resulted.has(e.id),
    ).length;
    const record = records.find((r) => r.server === stub.name);
    if (record?.started && record.ended === false)
      return `the MCP stub server "${stub.name}" was stopped while the trial ran (the CLI never ended it): the trial's tools were disturbed`;
    const answered = record?.calls.length ?? 0;
    if (made > answered)
      return record?.started
        ? `the MCP stub server "${stub.name}" answered ${answered} of the model's ${made} calls: it stopped mid-trial`
        : `the MCP stub server "${stub.name}" never started, yet the model's calls of it came back`;
  }
  return undefined;
}

/**
 * What went wrong with the trial's real MCP servers, or undefined: one never started (it did not answer the CLI's
 * `initialize`, or could not be run) or ended by itself while the trial ran; and what that cost a CLI that carried on
 * without it. Their watches' records (the trial's evidence) say; a server with no record is from a run stored before
 * real servers were watched, and taken as it was graded.
 */
function realServerFault(meta: Pick<TrialMeta, 'evidence'>, servers: IsolationContext['mcp']): { cause: string; cost: string } | undefined {
  for (const server of (servers ?? []).filter((s) => s.stubTools === undefined)) {
    const record = meta.evidence?.mcp?.find((r) => r.server === server.name);
    if (!record) continue;
    const exit = record.exited;
    const how = exit && exitText(exit);
    if (!record.started)
      return { cause: `the MCP server "${server.name}" never started${how ? ` (${how})` : ''}`, cost: 'the trial ran without its tools' };
    if (exit)
      return { cause: `the MCP server "${server.name}" ended by itself while the trial ran (${how})`, cost: 'its tools went missing' };
  }
  return undefined;
}

/**
 * Why the trial's real MCP servers are missing data, or undefined: every CLI carries on without a server that never
 * started or ended by itself, so the model chose among fewer tools than the trial offered.
 */
export function realServerProblem(meta: Pick<TrialMeta, 'evidence'>, servers: IsolationContext['mcp']): string | undefined {
  const fault = realServerFault(meta, servers);
  return fault && `${fault.cause}: ${fault.cost}`;
}

/**
 * Why the trial's MCP servers are missing data though they started, or undefined: the CLI's own word (its init's
 * servers) leaves out one whose record says it started, or names it otherwise than connected. The CLI made its
 * request without that server's tools (Codex 0.171 does when a server's listing comes back after the request is made),
 * so the model chose among fewer tools than the trial offered: a fault of the moment, never a model that chose none.
 * A CLI that names no servers (the Gemini CLI), or a run stored before Codex's were read, is taken as it was graded.
 */
export function unofferedServerProblem(
  init: Pick<InitEvent, 'mcpServers'>,
  meta: Pick<TrialMeta, 'evidence'>,
  servers: IsolationContext['mcp'],
): string | undefined {
  if (!init.mcpServers) return undefined;
  for (const server of servers ?? []) {
    if (!meta.evidence?.mcp?.find((r) => r.server === server.name)?.started) continue;
    const said = init.mcpServers.find((s) => s.name === server.name)?.status;
    if (said !== MCP_CONNECTED)
      return `the MCP server "${server.name}" started, yet the CLI did not offer the model its tools (${said ? `it says "${said}"` : 'it names no such server'}): the trial ran without them`;
  }
  return undefined;
}

/** The follow-up (a user turn after the first) that no result came after, or undefined when each was answered. */
function unansweredFollowUp(t: Transcript): number | undefined {
  const at = t.events.findLastIndex((e) => e.kind === 'user_turn');
  const turn = t.events[at];
  if (turn?.kind !== 'user_turn' || turn.turn < 2) return undefined;
  return t.events.slice(at).some((e) => e.kind === 'result') ? undefined : turn.turn;
}

/** Classifies how a trial ended. Pure: the transcript and process facts in, a status out. */
export function trialStatus(t: Transcript, meta: TrialMeta, ctx: IsolationContext): StatusVerdict {
  if (meta.interrupted) return { status: 'killed', detail: 'stopped by the user' };
  // Refused by the subscription's quota before the model said anything: missing data, run again once it resets.
  if (meta.usageLimit)
    return {
      status: 'killed',
      detail: `stopped at the subscription's usage limit (${meta.usageLimit.message}${meta.usageLimit.resetAt ? `; resets ${meta.usageLimit.resetAt}` : ''})`,
    };
  if (meta.spawnError) return { status: 'agent_error', detail: meta.spawnError };
  if (meta.outputTruncated)
    return {
      status: 'output_too_large',
      detail: `the agent printed more than ${meta.outputBytes ?? '?'} bytes: stored up to the cap and stopped`,
    };
  const init = t.events.find((e): e is InitEvent => e.kind === 'init');
  // A conversation has a result per user turn: how it ended is the last one's.
  const result = t.events.findLast((e): e is ResultEvent => e.kind === 'result');
  if (!init && !meta.timedOut) {
    // A CLI that will not start without its servers (Codex's `required`) ends before any model call: the server
    // failed, not the CLI, and nothing ran.
    const down = realServerFault(meta, ctx.mcp);
    if (down) return { status: 'infra_error', detail: `${down.cause}, and the CLI ended before any model call: nothing ran` };
    return { status: 'agent_error', detail: meta.stderrTail.trim().split('\n').at(-1) || `exit ${meta.exitCode ?? meta.signal}` };
  }
  // Before the isolation check, which would take the missing tools for a trial set up wrong: a retry may well get them.
  const unoffered = init && unofferedServerProblem(init, meta, ctx.mcp);
  if (unoffered) return { status: 'infra_error', detail: unoffered };
  const leak = ctx.isolationProblem(t, { ...ctx, workspaceChanged: meta.evidence?.workspaceChanged, mcpRecords: meta.evidence?.mcp });
  if (leak && init) return { status: 'isolation_error', detail: leak };
  const history = meta.evidence?.history;
  if (ctx.history && init && history?.held !== true)
    return {
      status: 'isolation_error',
      detail: `the first request did not hold the case's history (${history ? `${history.source}: ${history.detail ?? 'not found'}` : 'no record of it'})`,
    };
  // Stopped by the harness once no later event could change its outcome: neither missing data nor a fault.
  if (meta.settled) return { status: 'settled', detail: 'stopped once its outcome was settled' };
  // Before the model has written or called anything, a stop says nothing about the skill: missing data, never a miss.
  const acted = t.events.some((e) => (e.kind === 'text' || e.kind === 'tool_call') && e.source === 'assistant');
  // A CLI that finished in the same breath as its last allowed call has its own result, which stands.
  if (meta.turnLimitHit && !result)
    return { status: 'max_turns', detail: 'stopped by the harness at the turn limit (the CLI has none of its own)' };
  // A follow-up sent and never answered (its process crashed, hung or was killed): how the conversation would have
  // gone is unknown, never a miss.
  const unanswered = unansweredFollowUp(t);
  if (unanswered !== undefined && !meta.turnLimitHit)
    return {
      status: 'infra_error',
      detail: `user turn ${unanswered} got no answer (${meta.timedOut ? `deadline after ${meta.wallMs} ms` : `exit ${meta.exitCode ?? meta.signal}`})`,
    };
  if (meta.timedOut) {
    // In a conversation, what the model did before the last user turn says nothing of whether it answered that one.
    const turnStart = Math.max(
      0,
      t.events.findLastIndex((e) => e.kind === 'user_turn'),
    );
    if (!t.events.slice(turnStart).some((e) => (e.kind === 'text' || e.kind === 'tool_call') && e.source === 'assistant'))
      return {
        status: 'infra_error',
        detail: `the model sent nothing before the harness deadline (${meta.wallMs} ms): a hung or stalled API`,
      };
    // Silent for the latter half of its time while the CLI waited on the model (no tool call of its still running):
    // the service stopped answering, the model did not run out of time.
    if (meta.quietMs !== undefined && meta.quietMs >= meta.wallMs / 2 && !toolStillRunning(t)) {
      return {
        status: 'infra_error',
        detail: `the stream went silent after the model acted (nothing for the last ${seconds(meta.quietMs)} of ${seconds(meta.wallMs)}): a stalled API`,
      };
    }
    return { status: 'timeout', detail: `killed at the harness deadline after ${meta.wallMs} ms` };
  }
  const serverFault = realServerProblem(meta, ctx.mcp) ?? stubServerProblem(t, meta, ctx.mcp);
  if (serverFault) return { status: 'infra_error', detail: serverFault };
  const finalError = [...t.events].reverse().find((e): e is ErrorEvent => e.kind === 'error' && !e.retrying);
  if (!result) {
    if (finalError && INFRA_KINDS.has(finalError.errorKind)) return { status: 'infra_error', detail: finalError.message };
    return { status: meta.exitCode === 0 ? 'killed' : 'agent_error', detail: `no result line (exit ${meta.exitCode ?? meta.signal})` };
  }
  switch (result.status) {
    case 'success': {
      // A service fault the CLI papered over (e.g. an empty fallback answer) with nothing from the model after it.
      const at = finalError ? t.events.lastIndexOf(finalError) : -1;
      const modelAfter =
        at >= 0 &&
        t.events
          .slice(at + 1)
          .some(
            (e) =>
              (e.kind === 'text' || e.kind === 'tool_call') && e.source === 'assistant' && (e.kind === 'tool_call' || e.text.trim() !== ''),
          );
      if (finalError && INFRA_KINDS.has(finalError.errorKind) && !modelAfter) return { status: 'infra_error', detail: finalError.message };
      return { status: 'ok' };
    }
    case 'max_turns':
    case 'max_budget':
      return acted
        ? { status: result.status, detail: result.message }
        : { status: 'agent_error', detail: `the CLI stopped (${result.message ?? result.status}) before the model acted` };
    case 'api_error': {
      const kind = finalError?.errorKind;
      const status = result.httpStatus;
      const infra = (kind !== undefined && INFRA_KINDS.has(kind)) || status === 429 || (status !== undefined && status >= 500);
      return { status: infra ? 'infra_error' : 'agent_error', detail: result.message ?? finalError?.message };
    }
    default:
      return { status: 'agent_error', detail: result.message ?? result.status };
  }
}
