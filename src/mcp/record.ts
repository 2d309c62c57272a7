import { z } from 'zod';

/**
 * What a stub MCP server writes while a trial runs, one JSON line per event, to a file outside anything the model can
 * read: that it started, and every call it answered (tool, arguments, whether its answer was an error, when).
 */
const stubRecordLineSchema = z.discriminatedUnion('event', [
  /** `pid`: the stub's process (the CLI may start it again after it died), so each start is matched with its end. */
  z.object({ event: z.literal('start'), pid: z.number().int(), at: z.string() }),
  z.object({ event: z.literal('end'), pid: z.number().int(), at: z.string() }),
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

/** One stub server's record of a trial: whether it started, the tools the CLI was given when it asked, the calls it answered. */
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
}

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
    else if (e.event === 'listed') record.listed = e.tools;
    else record.calls.push({ tool: e.tool, args: e.args, isError: e.isError, at: e.at });
  }
  record.ended = record.started && running.size === 0;
  return record;
}
