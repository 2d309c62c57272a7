import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { isCodexFieldRefusal } from '../agents/codex/field-evidence.js';
import { codexFieldInvocation, prepareCodexField, readHookLog } from '../agents/codex/field-run.js';
import { GEMINI_FIELD_REFUSAL } from '../agents/gemini/field.js';
import { prepareGeminiField } from '../agents/gemini/field-run.js';
import { builtinSkills } from '../agents/gemini/settings.js';
import type { AgentAdapter, InvocationRequest } from '../agents/types.js';
import type { ActingCall } from '../sim/dialects/acting-calls.js';
import { offersShell } from '../sim/dialects/codex-commands.js';
import { geminiActingCall } from '../sim/dialects/gemini-acting.js';
import { geminiView } from '../sim/dialects/gemini-view.js';
import { codexActingCall } from '../sim/dialects/openai-responses-acting.js';
import { openaiResponsesView } from '../sim/dialects/openai-responses-view.js';
import { isPlainObject } from '../util/json.js';

/**
 * The field probe: before a run's first field trial, the CLI is run once as a field trial runs it, against a scripted
 * model of the probe's own on 127.0.0.1 that makes it write a file, run a command that writes another and run a read
 * command. It must offer its acting tools, refuse each call with the field refusal before it runs, and leave no file
 * behind; otherwise field trials could not be trusted on this machine and the run is refused (exit 2).
 */

const WRITTEN = 'field-probe-written';
const TOUCHED = 'field-probe-touched';
const READABLE = 'field-probe-readable';
const PROBE_TIMEOUT_MS = 60_000;

/** The acting calls the probe's model makes, in order: a write, a command that writes, a command that only reads. */
export const PROBE_CALLS: readonly ActingCall[] = [
  { act: 'write', target: WRITTEN, content: 'written' },
  { act: 'shell', target: `touch ${TOUCHED}` },
  { act: 'shell', target: `cat ${READABLE}` },
];

type Wire = 'openai-responses' | 'gemini';

const sse = (type: string, fields: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;

/** The probe model's reply to a request that already holds `done` tool answers: the next call, then a last word. */
function reply(wire: Wire, body: unknown, done: number): string {
  const call = PROBE_CALLS[done];
  if (wire === 'gemini') {
    const part = (call && geminiActingCall(call, geminiView(body).tools)) ?? { text: 'Done.' };
    const chunk = { candidates: [{ content: { role: 'model', parts: [part] }, index: 0, finishReason: 'STOP' }], usageMetadata: {} };
    return `data: ${JSON.stringify(chunk)}\n\n`;
  }
  const tools = openaiResponsesView(body).tools;
  const item = (call && codexActingCall({ id: `probe${done}`, tools }, call, 0)) ?? {
    type: 'message',
    id: `probe_msg_${done}`,
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: 'Done.', annotations: [] }],
  };
  const response = {
    id: `probe_${done}`,
    status: 'completed',
    output: [item],
    usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
  };
  return (
    sse('response.created', { response: { ...response, status: 'in_progress', output: [] } }) +
    sse('response.output_item.done', { output_index: 0, item }) +
    sse('response.completed', { response })
  );
}

/** The answers to tool calls a request carries, as the model is sent them, in order. */
export function toolAnswers(wire: Wire, body: unknown): string[] {
  const req = isPlainObject(body) ? body : {};
  const list = (v: unknown) => (Array.isArray(v) ? v.filter(isPlainObject) : []);
  if (wire === 'gemini') {
    const responses = list(req.contents).flatMap((c) =>
      list(c.parts).flatMap((p) => (isPlainObject(p.functionResponse) ? [p.functionResponse] : [])),
    );
    return responses.map((r) => JSON.stringify(r.response ?? null));
  }
  const text = (o: unknown): string =>
    typeof o === 'string'
      ? o
      : list(o)
          .map((p) => (typeof p.text === 'string' ? p.text : ''))
          .join('\n');
  return list(req.input).flatMap((item) => (typeof item.type === 'string' && item.type.endsWith('_output') ? [text(item.output)] : []));
}

/** The acting tools a default interactive session offers, which a field trial must offer too. */
const MENU: Record<Wire, (tools: readonly string[]) => string[]> = {
  'openai-responses': (tools) => (offersShell(tools) ? [] : ['a shell (exec_command, or exec for a code-mode model)']),
  gemini: (tools) => ['run_shell_command', 'write_file', 'replace', 'web_fetch', 'google_web_search'].filter((t) => !tools.includes(t)),
};

const refused: Record<Wire, (answer: string) => boolean> = {
  'openai-responses': isCodexFieldRefusal,
  gemini: (answer) => answer.includes(JSON.stringify(GEMINI_FIELD_REFUSAL)),
};

/**
 * What the probe's record shows wrong, or undefined: the requests the scripted model received (the first holds the
 * menu, the last every answer), the probe's files found in the workspace afterwards, and for Codex the refused calls
 * its hook logged. Pure.
 */
export function probeFinding(
  wire: Wire,
  requests: readonly unknown[],
  leftBehind: readonly string[],
  hookRefusals?: number,
): string | undefined {
  if (leftBehind.length) return `a refused call ran: ${leftBehind.join(', ')} exists`;
  const first = requests[0];
  if (first === undefined) return 'the CLI never called the model';
  const tools = wire === 'gemini' ? geminiView(first).tools : openaiResponsesView(first).tools;
  const missing = MENU[wire](tools);
  if (missing.length) return `the field menu lacks ${missing.join(', ')}`;
  const answers = toolAnswers(wire, requests.at(-1));
  if (answers.length < PROBE_CALLS.length) return `the model was answered ${answers.length} of ${PROBE_CALLS.length} calls`;
  const i = answers.findIndex((a) => !refused[wire](a));
  if (i >= 0) return `the ${PROBE_CALLS[i]!.act} call was answered without the refusal: ${answers[i]!.slice(0, 200)}`;
  // Codex's hook log is the trial's one record of the refused calls: each must be in it.
  if (hookRefusals !== undefined && hookRefusals < PROBE_CALLS.length)
    return `the hook logged ${hookRefusals} refused calls of ${PROBE_CALLS.length}`;
  return undefined;
}

/** Serves the probe's scripted model on 127.0.0.1, keeping each request's body. */
async function scriptedModel(wire: Wire): Promise<{ url: string; requests: unknown[]; server: Server }> {
  const requests: unknown[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      const model = wire === 'gemini' ? /:streamGenerateContent/.test(req.url ?? '') : (req.url ?? '').endsWith('/responses');
      if (!model) {
        res.writeHead(404).end();
        return;
      }
      requests.push(body);
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(reply(wire, body, toolAnswers(wire, body).length));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, server };
}

/**
 * Runs the probe for `adapter` (Codex or Gemini) with `model`, in a folder of its own under `scratch`; returns what
 * a run must say when the field cannot be trusted here, or undefined when every call was refused and nothing ran.
 */
export async function scriptedFieldProbe(
  adapter: AgentAdapter,
  binary: string,
  model: string,
  scratch: string,
  callerEnv: NodeJS.ProcessEnv,
): Promise<{ what: string; todo: string } | undefined> {
  const wire: Wire = adapter.id === 'gemini' ? 'gemini' : 'openai-responses';
  const sim = await scriptedModel(wire);
  // Made only once the model serves, inside the cleanup: a failure before the CLI starts leaves no folder behind.
  let root: string | undefined;
  try {
    const made = await mkdtemp(join(scratch, 'skillprobe-field-probe-'));
    root = made;
    const [home, tmp, workspace, harnessDir] = ['home', 'tmp', 'ws', 'harness'].map((d) => join(made, d)) as [
      string,
      string,
      string,
      string,
    ];
    for (const d of [home, tmp, workspace, harnessDir]) await mkdir(d, { recursive: true });
    await writeFile(join(workspace, READABLE), 'readable');
    const req: InvocationRequest = {
      prompt: 'Make a chart of data.csv.',
      model,
      maxTurns: 2 * PROBE_CALLS.length + 2,
      cliRetries: 0,
      deadlineMs: PROBE_TIMEOUT_MS,
      workspace,
      home,
      tmp,
      harnessDir,
      // Only PATH of the caller's: the probe talks to its own model and carries no credential.
      callerEnv: { PATH: callerEnv.PATH },
      simulator: { url: sim.url, headers: {}, identityUrl: sim.url },
      binary,
      role: 'trial',
    };
    if (wire === 'gemini') await prepareGeminiField(req, builtinSkills(dirname(binary)));
    else await prepareCodexField(req);
    const { file, args, env } = wire === 'gemini' ? adapter.invocation(req) : codexFieldInvocation(req);
    const r = await execa(file, args, { cwd: workspace, env, extendEnv: false, reject: false, stdin: 'ignore', timeout: PROBE_TIMEOUT_MS });
    const leftBehind = [WRITTEN, TOUCHED].filter((f) => existsSync(join(workspace, f)));
    const hookRefusals = wire === 'gemini' ? undefined : (await readHookLog(harnessDir)).filter((r) => r.refused).length;
    const finding =
      probeFinding(wire, sim.requests, leftBehind, hookRefusals) ??
      (r.exitCode === 0 ? undefined : `the CLI failed (${String(r.stderr).trim().split('\n').at(-1) || `exit ${r.exitCode ?? r.signal}`})`);
    if (finding === undefined) return undefined;
    return {
      what: `the field probe found the ${adapter.id} CLI's permission layer does not refuse every acting call on this machine: ${finding}`,
      todo: 'run in the lab context (--context lab), or on a machine where the probe passes',
    };
  } finally {
    await new Promise((resolve) => sim.server.close(resolve));
    if (root !== undefined) await rm(root, { recursive: true, force: true });
  }
}
