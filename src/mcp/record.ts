import { z } from 'zod';

/**
 * What a trial's MCP server leaves on record while the trial runs, one JSON line per event, in a file outside anything
 * the model can read: a stub writes that it started, the tools it listed and every call it answered (tool, arguments,
 * whether its answer was an error, when); a real server's watch (watch-main.ts) that it started and, when it ended by
 * itself rather than by the CLI, how.
 */
const stubRecordLineSchema = z.discriminatedUnion('event', [
  /** `pid`: the stub's process (the CLI may start it again after it died), so each start is matched with its end. */
  z.object({ event: z.literal('start'), pid: z.number().int(), at: z.string() }),
  z.object({ event: z.literal('end'), pid: z.number().int(), at: z.string() }),
  /** A real server that ended by itself (the CLI did not end it), or could not be started (`error`). */
  z.object({
    event: z.literal('exit'),
    pid: z.number().int(),
    code: z.number().int().nullable(),
    signal: z.string().nullable(),
    error: z.string().optional(),
    at: z.string(),
  }),
  z.object({ event: z.literal('listed'), tools: z.array(z.string()), at: z.string() }),
  z.object({
    event: z.literal('call'),
    tool: z.string(),
    args: z.record(z.unknown()),
    isError: z.boolean(),
    at: z.string(),
  }),
]);
export type StubRecordLine = z.output<typeof stubRecordLineSchema>;

/**
 * One MCP server's record of a trial: whether it started, the tools the CLI was given when it asked and the calls it
 * answered (a stub's), how it ended by itself (a real server's).
 */
export interface StubRecord {
  started: boolean;
  /** The tools it listed to the CLI (absent: the CLI never asked). */
  listed?: string[];
  /**
   * Whether the CLI ended every process of it that started (a signal, or its stdin closed): one that never ended was
   * killed while the trial ran, even where the CLI started it again.
   */
  ended: boolean;
  calls: { tool: string; args: Record<string, unknown>; isError: boolean; at: string }[];
  /** A real server that ended by itself, or could not be started: its exit code or signal, or why it did not start. */
  exited?: ServerExit;
}

/** How a real server's process ended by itself: its exit code or signal, or why it could not be started (`error`). */
export interface ServerExit {
  code: number | null;
  signal: string | null;
  error?: string;
}

/** A server's end in words: `exit code 3`, `killed by SIGSEGV`, or why it could not be started. */
export const exitText = (exit: ServerExit): string => exit.error ?? (exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`);

/** A record file's text read back; a line cut short by a kill, or not of this shape, is left out. */
export function readStubRecord(text: string): StubRecord {
  const record: StubRecord = { started: false, ended: false, calls: [] };
  const running = new Set<number>();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let parsed: z.SafeParseReturnType<unknown, StubRecordLine>;
    try {
      parsed = stubRecordLineSchema.safeParse(JSON.parse(line));
    } catch {
      continue;
    }
    if (!parsed.success) continue;
    const e = parsed.data;
    if (e.event === 'start') {
      record.started = true;
      running.add(e.pid);
    } else if (e.event === 'end') running.delete(e.pid);
    else if (e.event === 'exit') {
      running.delete(e.pid);
      record.exited = { code: e.code, signal: e.signal, ...(e.error ? { error: e.error } : {}) };
    } else if (e.event === 'listed') record.listed = e.tools;
    else record.calls.push({ tool: e.tool, args: e.args, isError: e.isError, at: e.at });
  }
  record.ended = record.started && running.size === 0;
  return record;
}
