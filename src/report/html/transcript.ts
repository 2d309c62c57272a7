import { canonicalPlan, commandLines } from '../../grade/plan.js';
import { asCommand } from '../../util/markdown.js';
import { callLabel } from '../divergence.js';
import { fmt, plural } from '../format.js';
import { html, join, type Html, type Part } from './markup.js';
import type { Firing } from '../../run/schema.js';
import type { EventSource, InitEvent, SkillLoadEvent, ToolCallEvent, Transcript, TranscriptEvent } from '../../transcript/types.js';

/** What the graders used from one trial, to be pointed at in its transcript. */
export interface GradedEvidence {
  /** The trial's firings by the id of the tool call that made each. */
  firings: ReadonlyMap<string, Firing>;
  /** The planned calls the plan checks read, canonical. */
  plans: ReadonlySet<string>;
  /** The case's command prefix, which the graders put before a skill call's bare args. */
  command?: string;
  /** What the agent's file-read tool prints before each line (its adapter's convention, as the graders strip it). */
  echoPrefix?: RegExp;
  /** The family under test, by folder and frontmatter name: what a session start's listing is counted against. */
  family: readonly { dir: string; name: string }[];
}

/**
 * What a CLI listed at session start, in true words: how many of the family, and how many others (a CLI may list
 * slash commands and built-in skills in the same list).
 */
function listingText(listed: readonly string[], family: GradedEvidence['family']): string {
  const shown = new Set(listed);
  const members = family.filter((m) => shown.has(m.dir) || shown.has(m.name));
  const names = new Set(members.flatMap((m) => [m.dir, m.name]));
  const others = [...shown].filter((s) => !names.has(s)).length;
  const ofFamily = members.length ? `${members.length} of ${family.length}` : `none of the ${family.length}`;
  return `${ofFamily} family skills listed${others ? ` · ${plural(others, 'other skill or command', 'other skills or commands')}` : ''}`;
}

/** Beyond this, a block is cut: injected skill bodies and tool results can be long, and the file stays whole on disk. */
const MAX_CHARS = 4000;

const cutNote = (text: string, chars = text.length): Html | '' =>
  chars > MAX_CHARS
    ? html`<span class="cut">… ${(chars - MAX_CHARS).toLocaleString('en-US')} more characters in the transcript file</span>`
    : '';

/** `chars`: the block's full length, when the transcript keeps only its start. */
const clip = (text: string, chars?: number): Html => html`${text.slice(0, MAX_CHARS)}${cutNote(text, chars)}`;

const pre = (content: Part) => html`<pre>${content}</pre>`;

const planMark = (text: string) => html`<mark class="plan" title="a planned call the plan checks graded">${text}</mark>`;

type IsPlan = (candidate: string | undefined) => boolean;

/** Decides, the way the plan grader reads text, whether a candidate command is one of the graded plans. */
function planMatcher(t: Transcript, evidence: GradedEvidence): IsPlan {
  const workspace = t.events.find((e): e is InitEvent => e.kind === 'init')?.cwd;
  const skillPaths = t.events.filter((e): e is SkillLoadEvent => e.kind === 'skill_load' && e.path !== undefined).map((e) => e.path!);
  return (candidate) =>
    candidate !== undefined && evidence.plans.has(canonicalPlan(candidate, { workspace, skillPaths, echoPrefix: evidence.echoPrefix }));
}

/** Assistant text with each line that holds a graded plan marked. */
function markedText(text: string, isPlan: IsPlan): Html {
  const lines = text
    .slice(0, MAX_CHARS)
    .split('\n')
    .map((line) => ([asCommand(line), ...commandLines(line)].some(isPlan) ? planMark(line) : line));
  return html`${join(lines, '\n')}${cutNote(text)}`;
}

function block(source: EventSource, head: Part, body: Part, extra = ''): Html {
  return html`<div class="ev src-${source}${extra}"><div class="ev-head"><span class="who">${source}</span>${head}</div>${body ? html`<div class="ev-body">${body}</div>` : ''}</div>`;
}

function toolCall(e: ToolCallEvent, step: number, cwd: string | undefined, evidence: GradedEvidence, isPlan: IsPlan): Html {
  const firing = evidence.firings.get(e.id);
  const badge = firing
    ? html`<span class="badge graded" title="the firing the trigger grader recorded">graded · fired ${firing.skill ?? `${firing.requested} (outside the family)`} via ${firing.via}${firing.status ? ` · ${firing.status}` : ''}</span>`
    : '';
  const argsPlan = e.args !== undefined && isPlan(evidence.command ? `${evidence.command} ${e.args}` : e.args);
  const body =
    e.intent === 'skill'
      ? pre(html`skill: ${e.skill ?? ''}${e.args !== undefined ? html`\nargs:  ${argsPlan ? planMark(e.args) : e.args}` : ''}`)
      : pre(clip(JSON.stringify(e.input, null, 2)));
  return block(
    'assistant',
    html`<span class="what">tool call · step ${step}</span><code class="call">${callLabel(e, cwd)}</code>${badge}`,
    body,
    firing ? ' graded-call' : '',
  );
}

function event(e: TranscriptEvent, ctx: { steps: Map<string, number>; cwd?: string; evidence: GradedEvidence; isPlan: IsPlan }): Html {
  switch (e.kind) {
    case 'init':
      return block(
        'system',
        html`<span class="what">session start</span><span class="facts">model ${e.model} · CLI ${e.cliVersion} · tools ${e.tools.join(', ') || 'none'} · ${listingText(e.skills, ctx.evidence.family)}</span>`,
        '',
      );
    case 'user_turn':
      return block('harness', html`<span class="what">user turn ${e.turn}</span>`, pre(clip(e.text)));
    case 'text':
      if (e.source === 'harness') {
        return block(
          'harness',
          html`<span class="what">injected skill body</span>`,
          html`<details><summary>${(e.chars ?? e.text.length).toLocaleString('en-US')} characters shown to the model, never graded (it echoes SKILL.md)</summary>${pre(clip(e.text, e.chars))}</details>`,
        );
      }
      return block('assistant', html`<span class="what">text</span>`, pre(markedText(e.text, ctx.isPlan)));
    case 'tool_call':
      return toolCall(e, ctx.steps.get(e.id) ?? 0, ctx.cwd, ctx.evidence, ctx.isPlan);
    case 'tool_result': {
      const step = ctx.steps.get(e.id);
      return block(
        'tool',
        html`<span class="what">result${step ? ` of step ${step}` : ''}</span>${e.isError ? html`<span class="badge bad">error</span>` : ''}`,
        pre(clip(e.text, e.chars)),
      );
    }
    case 'skill_load':
      return block(
        'harness',
        html`<span class="what">skill ${e.name}</span><span class="badge ${e.status === 'loaded' ? 'ok' : 'bad'}">${e.status}</span><span class="facts">${e.path ?? ''}${e.detail ? ` · ${e.detail}` : ''}</span>`,
        '',
      );
    case 'error':
      return block(
        e.source,
        html`<span class="what">error · ${e.errorKind}${e.httpStatus ? ` (HTTP ${e.httpStatus})` : ''}</span>${e.retrying ? html`<span class="badge">the CLI retries</span>` : ''}`,
        pre(clip(e.message)),
        ' error',
      );
    case 'result': {
      const facts = [
        e.turns !== undefined && `${e.turns} turns`,
        e.costUsd !== undefined && `$${fmt(e.costUsd, 4)}`,
        e.durationMs !== undefined && `${e.durationMs} ms`,
        e.httpStatus && `HTTP ${e.httpStatus}`,
      ]
        .filter(Boolean)
        .join(' · ');
      return block(
        'system',
        html`<span class="what">session end · ${e.status}</span><span class="facts">${facts}</span>`,
        e.message ? pre(clip(e.message)) : '',
      );
    }
    case 'other':
      return block(e.source, html`<span class="what">${e.type}</span>`, '');
  }
}

/**
 * One trial's canonical transcript. Who wrote each block is its class and its label: only the assistant's text and
 * tool calls are graded; tool results and what the harness injected echo SKILL.md and are shown apart.
 */
export function transcriptView(t: Transcript, evidence: GradedEvidence): Html {
  const calls = t.events.filter((e): e is ToolCallEvent => e.kind === 'tool_call');
  const steps = new Map(calls.map((e, i) => [e.id, i + 1]));
  const cwd = t.events.find((e): e is InitEvent => e.kind === 'init')?.cwd;
  const ctx = { steps, cwd, evidence, isPlan: planMatcher(t, evidence) };
  const warnings = t.warnings.length
    ? html`<p class="note">${t.warnings.length} lines of the raw stream could not be parsed (first: line ${t.warnings[0]!.line}, ${t.warnings[0]!.message})</p>`
    : '';
  return html`<div class="transcript">${warnings}${t.events.map((e) => event(e, ctx))}</div>`;
}
