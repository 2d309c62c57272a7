/**
 * The stub MCP server (started by the agent CLI over stdio, from the config its adapter wrote):
 * `stub-main.js <stub.json> <record.jsonl>`. It serves the tools the stub declares, answers each call with its canned
 * result or error, and appends every call to the record the harness reads after the trial. It opens no socket: nothing
 * leaves the machine.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { answerCall, stubFileSchema } from './stub-spec.js';
import type { StubRecordLine } from './record.js';

const [specFile, recordFile] = process.argv.slice(2);
if (!specFile || !recordFile) {
  process.stderr.write('usage: stub-main.js <stub.json> <record.jsonl>\n');
  process.exit(2);
}
const { server: name, stub: raw } = JSON.parse(readFileSync(specFile, 'utf8')) as { server: string; stub: unknown };
const stub = stubFileSchema.parse(raw);
// Appended synchronously before the answer goes out, so a call the model saw answered is always on record.
const record = (line: StubRecordLine) => appendFileSync(recordFile, JSON.stringify(line) + '\n');

const server = new Server({ name, version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => {
  record({ event: 'listed', tools: stub.tools.map((t) => t.name), at: new Date().toISOString() });
  return { tools: stub.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema as { type: 'object' } })) };
});
server.setRequestHandler(CallToolRequestSchema, (request) => {
  const args = request.params.arguments ?? {};
  const answer = answerCall(stub, request.params.name, args);
  record({ event: 'call', tool: request.params.name, args, isError: answer.isError, at: new Date().toISOString() });
  return { content: [{ type: 'text' as const, text: answer.text }], ...(answer.isError ? { isError: true } : {}) };
});
// The CLI ends its servers with SIGINT or SIGTERM, or by closing stdin: each is a clean end, on record before the
// harness takes down what the CLI left (a stub with no end on record was killed while the trial ran).
const end = () => {
  record({ event: 'end', pid: process.pid, at: new Date().toISOString() });
  process.exit(0);
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, end);
process.stdin.on('end', end);
await server.connect(new StdioServerTransport());
record({ event: 'start', pid: process.pid, at: new Date().toISOString() });
