import type { InitEvent, ToolCallEvent, Transcript } from '../transcript/types.js';

/**
 * Where the trials of one case part ways: the first step at which their sequences of tool calls differ. Trials
 * that agree on every step show which path the model takes reliably; a split shows the choice it is unsure of.
 */

/** A trial's tool calls, each as `Name(skill)`, `Name(path)` or `Name`. */
export interface TrialSteps {
  trial: number;
  steps: readonly string[];
}

export interface Branch {
  /** The call made at the diverging step; null: these trials made no further call. */
  call: string | null;
  trials: number[];
}

export type Divergence =
  | { kind: 'same'; steps: readonly string[]; trials: number }
  | { kind: 'diverge'; step: number; shared: readonly string[]; branches: Branch[] };

/**
 * What a tool call is, for comparing trials: its tool and the skill or file it targets. Paths are taken relative
 * to the trial's workspace, which differs in every trial.
 */
export function callLabel(call: ToolCallEvent, cwd?: string): string {
  if (call.intent === 'skill' && call.skill !== undefined) return `${call.name}(${call.skill})`;
  if (call.intent === 'read' && call.path !== undefined) {
    const inside = cwd !== undefined && call.path.startsWith(`${cwd}/`);
    return `${call.name}(${inside ? call.path.slice(cwd.length + 1) : call.path})`;
  }
  return call.name;
}

export function toolCallSteps(t: Transcript): string[] {
  const cwd = t.events.find((e): e is InitEvent => e.kind === 'init')?.cwd;
  return t.events.filter((e): e is ToolCallEvent => e.kind === 'tool_call').map((e) => callLabel(e, cwd));
}

/** Undefined for fewer than two trials: there is nothing to compare. Larger branches first. */
export function divergence(trials: readonly TrialSteps[]): Divergence | undefined {
  if (trials.length < 2) return undefined;
  const longest = Math.max(...trials.map((t) => t.steps.length));
  for (let i = 0; i < longest; i++) {
    const byCall = new Map<string | null, number[]>();
    for (const t of trials) {
      const call = t.steps[i] ?? null;
      byCall.set(call, [...(byCall.get(call) ?? []), t.trial]);
    }
    if (byCall.size === 1) continue;
    const branches = [...byCall].map(([call, ns]) => ({ call, trials: ns.sort((a, b) => a - b) }));
    branches.sort((a, b) => b.trials.length - a.trials.length || rank(a.call) - rank(b.call) || (a.call ?? '').localeCompare(b.call ?? ''));
    return { kind: 'diverge', step: i + 1, shared: trials[0]!.steps.slice(0, i), branches };
  }
  return { kind: 'same', steps: trials[0]!.steps, trials: trials.length };
}

// Among equally large branches, a call before stopping.
const rank = (call: string | null) => (call === null ? 1 : 0);
