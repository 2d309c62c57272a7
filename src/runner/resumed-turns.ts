import { open, stat, writeFile } from 'node:fs/promises';
import { spawnAgent } from '../agents/spawn.js';
import { turnMarkLine } from '../agents/turn-mark.js';
import type { Invocation, InvocationRequest, ResumedFollowUps } from '../agents/types.js';
import type { TrialMeta } from '../run/schema.js';
import { StoreWriteError } from '../run/store.js';

type SpawnOptions = Omit<Parameters<typeof spawnAgent>[1], 'conversation' | 'append'>;

/** A conversation's user turns for a CLI that answers once per process. */
export interface ResumedConversation {
  take: ResumedFollowUps;
  req: InvocationRequest;
  /** The first turn's process (the case's prompt). */
  first: Invocation;
  followUps: readonly string[];
  /** Whether a turn's stdout ended without acting, so the next follow-up is due (`followUpDue`). */
  due(turnStdout: string): boolean;
}

/**
 * Runs a conversation on a CLI that answers once and ends: the prompt's process, then, while a follow-up is due and
 * the last process ended cleanly, one process per follow-up resuming the first one's session, each under what is
 * left of the trial's deadline, output cap and tool-call limit. Every process's stdout goes byte for byte into the
 * trial's one transcript, after the mark of its user turn; a process that fails ends the conversation there, and its
 * turn, left without an answer, is what the status reads. An abort kills the running process's group and starts none.
 */
export async function runResumedTurns(c: ResumedConversation, opts: SpawnOptions): Promise<TrialMeta> {
  const t0 = performance.now();
  const metas: TrialMeta[] = [];
  const texts = [c.req.prompt, ...c.followUps];
  let inv = c.first;
  let session: string | undefined;
  let toolCalls = 0;
  await writeMark(opts.stdoutFile, turnMarkLine(1, texts[0]!), 'w');
  for (let turn = 1; ; turn++) {
    const from = (await stat(opts.stdoutFile)).size;
    const limit = opts.toolCallLimit;
    const meta = await spawnAgent(inv, {
      ...opts,
      append: true,
      deadlineMs: opts.deadlineMs - (performance.now() - t0),
      maxOutputBytes: opts.maxOutputBytes - metas.reduce((n, m) => n + (m.outputBytes ?? 0), 0),
      ...(limit ? { toolCallLimit: { ...limit, max: limit.max - toolCalls } } : {}),
    });
    metas.push(meta);
    const stdout = await readFrom(opts.stdoutFile, from);
    if (limit) toolCalls += stdout.split('\n').filter(limit.startsToolCall).length;
    const next = texts[turn];
    if (next === undefined || !endedCleanly(meta) || !c.due(stdout)) break;
    if (opts.signal?.aborted) {
      // Stopped by the user between turns, a follow-up due: the conversation was cut short, not ended by the model, so
      // the trial is interrupted (run again on --resume), never graded as a conversation that stopped at this turn.
      metas.push({ ...meta, wallMs: 0, outputBytes: 0, interrupted: true });
      break;
    }
    session ??= c.take.sessionOf(stdout);
    if (session === undefined) {
      // Without its session the follow-up cannot be sent: the conversation is cut short, which is missing data.
      metas.push({ ...meta, wallMs: 0, outputBytes: 0, spawnError: 'the CLI named no session for the follow-up to resume' });
      break;
    }
    // A process whose last line has no newline keeps its bytes; the mark goes on a line of its own.
    const cut = stdout !== '' && !stdout.endsWith('\n');
    await writeMark(opts.stdoutFile, (cut ? '\n' : '') + turnMarkLine(turn + 1, next), 'a');
    inv = c.take.resumeInvocation(c.req, session, next);
  }
  return joinedTurns(metas);
}

/** Whether a turn's process ended on its own, with nothing the harness stopped or found wrong. */
export const endedCleanly = (m: TrialMeta): boolean =>
  m.exitCode === 0 && m.signal === null && !m.timedOut && !m.interrupted && !m.spawnError && !m.outputTruncated && !m.turnLimitHit;

/**
 * The trial's process facts from its turns' processes: how the last one ended (the conversation stopped at the first
 * that did not end cleanly), its stderr and silence; the time and output of them all, from the first one's start. Pure.
 */
export function joinedTurns(metas: readonly TrialMeta[]): TrialMeta {
  const last = metas.at(-1)!;
  return {
    ...last,
    startedAt: metas[0]!.startedAt,
    wallMs: metas.reduce((n, m) => n + m.wallMs, 0),
    outputBytes: metas.reduce((n, m) => n + (m.outputBytes ?? 0), 0),
  };
}

async function writeMark(file: string, text: string, flag: 'w' | 'a'): Promise<void> {
  await writeFile(file, text, { flag }).catch((e: Error) => {
    throw new StoreWriteError(file, e);
  });
}

/** The file's text from byte `from` on: one turn's stdout. */
async function readFrom(file: string, from: number): Promise<string> {
  const h = await open(file, 'r');
  try {
    const size = (await h.stat()).size;
    const buffer = Buffer.alloc(Math.max(0, size - from));
    await h.read(buffer, 0, buffer.length, from);
    return buffer.toString('utf8');
  } finally {
    await h.close();
  }
}
