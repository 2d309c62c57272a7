import { z } from 'zod';
import { compileLinearRegex } from '../util/linear-regex.js';

/**
 * A stub MCP server as its YAML file declares it: tools, each with its input schema and canned answers (a result or an
 * error per argument pattern). Pure: the loader checks it, the stub server answers from it, the simulator never sees it.
 */

/** The most one canned answer may hold (bytes of its text): a stub answers with a line or a record, never a dump. */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** A name the CLIs carry into the model's tool name unchanged (`mcp__<server>__<tool>`, `<server>__<tool>`). */
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** JSON Schema's types, the only words `type` may hold. */
const JSON_TYPES = ['object', 'array', 'string', 'number', 'integer', 'boolean', 'null'] as const;

/**
 * `when`: per argument, a regular expression (RE2 syntax) its value must match (a string as it is, anything else as
 * JSON); all must match. No `when`: every call. `result`: text (or any JSON, sent as JSON text); `error`: the text of
 * an error result.
 */
const answerSchema = z
  .object({
    when: z.record(z.string().min(1), z.string()).optional(),
    result: z.unknown().optional(),
    error: z.string().min(1).optional(),
  })
  .strict();

const toolSchema = z
  .object({
    name: z.string().regex(TOOL_NAME, 'a tool name holds 1 to 64 letters, digits, `_` or `-` — rename it'),
    description: z.string().min(1),
    /** The tool's input as a JSON Schema object (`type: object`, its `properties` and `required`). */
    inputSchema: z.record(z.unknown()).default({ type: 'object', properties: {} }),
    answers: z.array(answerSchema).min(1, 'the tool has no answers — add one, e.g. `- result: "done"`'),
  })
  .strict();

export const stubFileSchema = z
  .object({ tools: z.array(toolSchema).min(1, 'the stub declares no tool — add one under `tools:`') })
  .strict();

export type StubFile = z.output<typeof stubFileSchema>;
export type StubTool = StubFile['tools'][number];
export type StubAnswer = StubTool['answers'][number];

/** A problem inside a stub file, at its path there. */
export interface StubProblem {
  at: (string | number)[];
  what: string;
  todo: string;
}

/** The text a canned result is sent as. */
export const resultText = (result: unknown): string => (typeof result === 'string' ? result : JSON.stringify(result));

/** What is wrong with a JSON Schema a tool declares for its input, or undefined (the checks a client's parser makes). */
function schemaProblem(schema: Record<string, unknown>, at: (string | number)[]): StubProblem | undefined {
  const todo = 'write it as a JSON Schema object: `type: object`, `properties: { name: { type: string } }`, `required: [name]`';
  if (schema.type !== 'object') return { at: [...at, 'type'], what: 'the input schema is not `type: object`', todo };
  const properties = schema.properties ?? {};
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties))
    return { at: [...at, 'properties'], what: '`properties` is not a map of argument names to schemas', todo };
  for (const [name, p] of Object.entries(properties)) {
    if (typeof p !== 'object' || p === null || Array.isArray(p))
      return { at: [...at, 'properties', name], what: `argument "${name}" has no schema`, todo };
    const type = (p as Record<string, unknown>).type;
    const types = Array.isArray(type) ? type : type === undefined ? [] : [type];
    const unknown = types.find((t) => !(JSON_TYPES as readonly unknown[]).includes(t));
    if (unknown !== undefined)
      return {
        at: [...at, 'properties', name, 'type'],
        what: `argument "${name}" has type ${JSON.stringify(unknown)}, no JSON Schema type`,
        todo: `use one of ${JSON_TYPES.join(', ')}`,
      };
  }
  const required = schema.required ?? [];
  if (!Array.isArray(required) || required.some((r) => typeof r !== 'string'))
    return { at: [...at, 'required'], what: '`required` is not a list of argument names', todo };
  const missing = required.find((r) => !Object.hasOwn(properties as object, r as string));
  if (missing !== undefined)
    return { at: [...at, 'required'], what: `\`required\` names "${missing}", which \`properties\` does not declare`, todo };
  return undefined;
}

/** Every problem of a parsed stub file: duplicate tools, input schemas that do not parse, patterns, answers. */
export function stubProblems(stub: StubFile): StubProblem[] {
  const problems: StubProblem[] = [];
  const seen = new Set<string>();
  stub.tools.forEach((tool, i) => {
    if (seen.has(tool.name))
      problems.push({ at: ['tools', i, 'name'], what: `tool "${tool.name}" is declared twice`, todo: 'give every tool its own name' });
    seen.add(tool.name);
    const bad = schemaProblem(tool.inputSchema, ['tools', i, 'inputSchema']);
    if (bad) problems.push(bad);
    tool.answers.forEach((a, j) => {
      const at = ['tools', i, 'answers', j];
      if ((a.result === undefined) === (a.error === undefined))
        problems.push({ at, what: 'an answer needs exactly one of `result` and `error`', todo: 'keep one of them' });
      const text = a.error ?? (a.result === undefined ? '' : resultText(a.result));
      const bytes = Buffer.byteLength(text);
      if (bytes > MAX_ANSWER_BYTES)
        problems.push({
          at: [...at, a.error === undefined ? 'result' : 'error'],
          what: `the canned answer is ${bytes} bytes, over the ${MAX_ANSWER_BYTES}-byte cap`,
          todo: 'shorten it to what the model needs to read',
        });
      for (const [arg, pattern] of Object.entries(a.when ?? {})) {
        const compiled = compileLinearRegex(pattern);
        if (!compiled.ok) problems.push({ at: [...at, 'when', arg], what: compiled.what, todo: compiled.todo });
      }
    });
  });
  return problems;
}

/** An argument's value as a pattern reads it: a string as it is, anything else as JSON (absent: the empty string). */
const argText = (value: unknown): string => (value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value));

/** Each `when` pattern compiled once per stub process, not on every call (the loader already checked they compile). */
const compiledPatterns = new Map<string, ReturnType<typeof compileLinearRegex>>();
function compiledPattern(pattern: string): ReturnType<typeof compileLinearRegex> {
  let compiled = compiledPatterns.get(pattern);
  if (!compiled) compiledPatterns.set(pattern, (compiled = compileLinearRegex(pattern)));
  return compiled;
}

/** What the stub answers a call: the first answer whose patterns all match, as text, and whether it is an error. */
export function answerCall(stub: StubFile, tool: string, args: Record<string, unknown>): { text: string; isError: boolean } {
  const declared = stub.tools.find((t) => t.name === tool);
  if (!declared) return { text: `unknown tool "${tool}"`, isError: true };
  const answer = declared.answers.find((a) =>
    Object.entries(a.when ?? {}).every(([arg, pattern]) => {
      const compiled = compiledPattern(pattern);
      return compiled.ok && compiled.regex.test(argText(args[arg]));
    }),
  );
  if (!answer) return { text: `no canned answer of "${tool}" matches these arguments`, isError: true };
  return answer.error !== undefined ? { text: answer.error, isError: true } : { text: resultText(answer.result), isError: false };
}
