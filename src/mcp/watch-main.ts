/**
 * A real MCP server's watch, which the agent CLI starts over stdio in the server's place (from the config its adapter
 * wrote): `watch-main.js <record.jsonl> <folder> <command> [args…]`. It starts the server as the suite named it, in the
 * folder of the file that names it (as the run's start check did), with the environment the CLI gave, passes the bytes
 * between them through untouched both ways, and records that the server started (it answered the CLI's `initialize`),
 * the tools it listed to the CLI (its answer to `tools/list`) and, should it end by itself while the CLI still needed
 * it, how. Each CLI carries on without a server that fails (Codex and the Gemini CLI say nothing of it in their
 * streams): the record lets the harness tell a trial without its tools from a model that chose none, and the listing
 * which of the tools the CLI offered the model are the server's.
 */
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import type { StubRecordLine } from './record.js';

const [recordFile, folder, command, ...args] = process.argv.slice(2);
if (!recordFile || !folder || !command) {
  process.stderr.write('usage: watch-main.js <record.jsonl> <folder> <command> [args…]\n');
  process.exit(2);
}
const record = (line: StubRecordLine) => appendFileSync(recordFile, JSON.stringify(line) + '\n');
const at = () => new Date().toISOString();

const server = spawn(command, args, { cwd: folder, stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(server.stdin);
server.stdout.pipe(process.stdout);
// A CLI that went away leaves pipes that fail on write: the server's end is what the record says.
server.stdin.on('error', () => {});
process.stdout.on('error', () => {});

// Read only until the answers to `initialize` (a result naming its protocol version) and to the CLI's first
// `tools/list` (a result holding `tools`): after that, bytes only pass. A listing's line may be long (each tool's schema).
const READ_CAP = 4 * 1024 * 1024;
let unread = '';
let started = false;
const answerIn = (line: string): { protocolVersion?: unknown; tools?: unknown } | undefined => {
  try {
    const result = (JSON.parse(line) as { result?: unknown })?.result;
    return result !== null && typeof result === 'object' ? result : undefined;
  } catch {
    return undefined;
  }
};
/** The names of a `tools/list` answer's tools (its first page: a CLI that pages asks again, unread). */
const namesIn = (tools: unknown[]): string[] =>
  tools.flatMap((t) =>
    t !== null && typeof t === 'object' && typeof (t as { name?: unknown }).name === 'string' ? [(t as { name: string }).name] : [],
  );
const readAnswers = (chunk: Buffer) => {
  unread += chunk.toString('utf8');
  const lines = unread.split('\n');
  unread = lines.pop()!.slice(-READ_CAP);
  for (const result of lines.map(answerIn)) {
    if (!started && result?.protocolVersion !== undefined) {
      started = true;
      record({ event: 'start', pid: server.pid!, at: at() });
    } else if (started && Array.isArray(result?.tools)) {
      record({ event: 'listed', tools: namesIn(result.tools), at: at() });
      server.stdout.off('data', readAnswers);
      return;
    }
  }
};
server.stdout.on('data', readAnswers);

// The CLI ends its servers with SIGINT or SIGTERM, or by closing stdin: passed on, and on record as an end.
let endedByCli = false;
const endBy = (how: () => void) => {
  if (!endedByCli && server.pid !== undefined) record({ event: 'end', pid: server.pid, at: at() });
  endedByCli = true;
  how();
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => endBy(() => server.kill(signal)));
process.stdin.on('end', () => endBy(() => server.stdin.end()));

server.on('error', (e) => {
  record({ event: 'exit', pid: process.pid, code: null, signal: null, error: e.message, at: at() });
  process.exit(1);
});
// Once its output has all passed on.
server.on('close', (code, signal) => {
  if (!endedByCli) record({ event: 'exit', pid: server.pid!, code, signal, at: at() });
  process.exit(code ?? 1);
});
