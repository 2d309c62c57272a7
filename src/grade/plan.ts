import type { Transcript } from '../transcript/types.js';
import { mcpToolText, type McpToolName } from '../mcp/names.js';
import { canonicalJson } from '../util/json.js';
import { gradeChecks, type StoredChecks } from '../checks/registry.js';
import { asCommand, markdownLines } from '../util/markdown.js';
import type { Firing, PlanGrade } from '../run/schema.js';

export interface PlanContext {
  /** Command prefix of the skill (`atl jira`), prepended to bare Skill args. */
  command?: string;
  /** Absolute paths to hide behind placeholders. */
  workspace?: string;
  skillPaths: string[];
  /** What the CLI's file-read tool prints before each line, which a model may copy (the adapter's convention). */
  echoPrefix?: RegExp;
}

const QUOTES: [RegExp, string][] = [
  [/[\u2018\u2019\u201A\u201B\u2032`]/g, "'"],
  [/[\u201C\u201D\u201E\u201F\u2033]/g, '"'],
];

/** One canonical string per planned call: whitespace collapsed, quotes normalised, paths to placeholders. */
export function canonicalPlan(raw: string, ctx: Pick<PlanContext, 'workspace' | 'skillPaths' | 'echoPrefix'>): string {
  let s = ctx.echoPrefix ? raw.replace(ctx.echoPrefix, '') : raw;
  s = s.replace(/^\s*\$\s+/, '');
  for (const [re, to] of QUOTES) s = s.replace(re, to);
  s = s.replace(/'/g, '"');
  // Longest first, so a skill path inside the workspace is not half-replaced by the workspace placeholder.
  const paths = [
    ...ctx.skillPaths.map((p) => [p, '<skill>'] as const),
    ...(ctx.workspace ? [[ctx.workspace, '<workspace>'] as const] : []),
  ].sort((a, b) => b[0].length - a[0].length);
  for (const [p, tag] of paths) if (p) s = s.split(p).join(tag);
  return s.replace(/\s+/g, ' ').trim();
}

/** Candidate command lines in assistant text: fenced code lines, `$ ` lines, and inline code spans. */
export function commandLines(text: string): string[] {
  const out: string[] = [];
  for (const { line, fenced } of markdownLines(text)) {
    if (fenced || /^\s*\$\s+\S/.test(line)) {
      const cmd = asCommand(line);
      if (cmd !== undefined) out.push(cmd);
    } else for (const m of line.matchAll(/`([^`\n]+)`/g)) out.push(m[1]!);
  }
  return out;
}

/**
 * An MCP call as a planned call: `<server>/<tool>` and its arguments as JSON with sorted keys, so a check can name
 * the tool and any argument whatever order the model wrote them in (`jira/create_issue .*"project":"OPS"`).
 */
const mcpPlan = (t: McpToolName, args: Record<string, unknown>): string => `${mcpToolText(t)} ${canonicalJson(args)}`;

/**
 * Planned calls, from assistant-authored content only: the skill tool's args for the expected skill (with its
 * prefix), and the assistant's text and MCP calls from event `textFrom` on (after the skill fired; from the start in the
 * ablation arm, where no skill can fire). Tool results and injected bodies echo
 * SKILL.md, so they are never read here.
 */
export function extractPlans(t: Transcript, expected: Firing[], ctx: PlanContext, textFrom: number): string[] {
  const plans: string[] = [];
  for (const f of expected) {
    if (f.via !== 'invoke') continue;
    const call = t.events[f.at];
    const args = call?.kind === 'tool_call' ? call.args : undefined;
    plans.push(...argsPlan(args, ctx.command));
  }
  for (const e of t.events.slice(textFrom)) {
    if (e.kind === 'text' && e.source === 'assistant') plans.push(...commandLines(e.text));
    if (e.kind === 'tool_call' && e.source === 'assistant' && e.mcp) plans.push(mcpPlan(e.mcp, e.input));
  }
  return canonicalPlans(plans, ctx);
}

/** A skill call's args as a planned call, behind the skill's command prefix; none when it carries no args. */
export function argsPlan(args: string | undefined, command: string | undefined): string[] {
  const given = args?.trim();
  if (!given) return [];
  return [command ? `${command} ${given}` : given];
}

/** Planned calls as the checks read them: each canonical, once, empty ones dropped. */
export const canonicalPlans = (plans: readonly string[], ctx: Pick<PlanContext, 'workspace' | 'skillPaths' | 'echoPrefix'>): string[] => [
  ...new Set(plans.map((p) => canonicalPlan(p, ctx)).filter(Boolean)),
];

/** Grades the plans against each check, the case's command prefix made canonical as the plans are. */
export function gradePlans(plans: string[], checks: StoredChecks, command?: string): PlanGrade {
  const results = gradeChecks(checks, { plans, command: command && canonicalPlan(command, { skillPaths: [] }) });
  return { plans, checks: results, pass: results.every((r) => r.pass) };
}
