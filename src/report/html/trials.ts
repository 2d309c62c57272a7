import { divergence, toolCallSteps, type Divergence } from '../divergence.js';
import { fmt, usd } from '../format.js';
import type { Tone } from './charts.js';
import type { ReportInput } from '../reporter.js';
import { exclusionText, JUDGE_SHOWN } from '../wording.js';
import { html, join, type Html } from './markup.js';
import { anchor, section, verdictBadge } from './parts.js';
import { transcriptView } from './transcript.js';
import { ARMS, type Arm } from '../../run/config-schema.js';
import { NOTHING_TO_SCORE, transcriptPath, trialKey, type GradableCase, type TrialOutcome, type TrialRef } from '../../run/schema.js';
import { expectLabel } from '../../run/expectation.js';

/**
 * How many trials of one case and arm are embedded with their transcripts: a big run stays a page a browser opens
 * at once. Failing and unscorable trials come first; a few passing ones show what good looks like.
 */
export const EMBED_LIMITS = { notable: 20, passing: 3 } as const;

/** A trial worth reading: it failed, or it carries no evidence (an arm with nothing to score is not a problem). */
const isNotable = (o: TrialOutcome): boolean => o.passed === false || (o.passed === null && o.excludedBecause !== NOTHING_TO_SCORE);

/** The trials of one case and arm to embed, in trial order, and those left out. */
export function chooseEmbedded(trials: readonly TrialOutcome[]): { shown: TrialOutcome[]; left: TrialOutcome[] } {
  const notable = trials.filter(isNotable).slice(0, EMBED_LIMITS.notable);
  const passing = trials.filter((o) => !isNotable(o)).slice(0, EMBED_LIMITS.passing);
  const shown = new Set([...notable, ...passing]);
  return { shown: trials.filter((o) => shown.has(o)), left: trials.filter((o) => !shown.has(o)) };
}

const TRIALS_LISTED = 12;
const trialList = (ns: readonly number[]) =>
  ns
    .slice(0, TRIALS_LISTED)
    .map((n) => `#${n}`)
    .join(', ') + (ns.length > TRIALS_LISTED ? ', …' : '');
const trialsWord = (n: number) => (n === 1 ? '1 trial' : `${n} trials`);

function divergenceNote(d: Divergence | undefined): Html | '' {
  if (!d) return '';
  if (d.kind === 'same') {
    const path = d.steps.length
      ? html`the same tool calls: ${join(
          d.steps.map((s) => html`<code>${s}</code>`),
          ' → ',
        )}`
      : 'no tool call';
    return html`<p class="divergence same">All ${d.trials} trials make ${path}</p>`;
  }
  const after = d.shared.length
    ? html` (after ${join(
        d.shared.map((s) => html`<code>${s}</code>`),
        ' → ',
      )})`
    : '';
  const branches = d.branches.map((b) => {
    const who = html`<span title="${trialList(b.trials)}">${trialsWord(b.trials.length)}</span>`;
    const one = b.trials.length === 1;
    if (b.call !== null) return html`${who} ${one ? 'calls' : 'call'} <code>${b.call}</code>`;
    return html`${who} ${one ? 'makes' : 'make'} no ${d.step === 1 ? 'tool' : 'further'} call`;
  });
  return html`<p class="divergence"><strong>Trials diverge at step ${d.step}</strong>${after}: ${join(branches, ', ')}</p>`;
}

/** A trial's transcript file, under the run folder as the user named it. */
export const inRunDir = (input: Pick<ReportInput, 'runDir'>, o: TrialRef) => `${input.runDir.replace(/\/+$/, '')}/${transcriptPath(o)}`;

/** Why an ablation trial's result is no verdict on the skill: it says what the model plans without the family. */
const ABLATION_CONTEXT = 'the ablation arm (none of the family installed) is context for what the skill adds, never the gate';

const scoredInAblation = (o: TrialOutcome) => o.arm === 'ablation' && o.passed !== null;

function resultTone(o: TrialOutcome): Tone {
  if (scoredInAblation(o)) return 'neutral';
  if (o.passed === true) return 'pass';
  if (o.passed === false) return 'fail';
  return o.excludedBecause === NOTHING_TO_SCORE ? 'neutral' : 'error';
}

/** PASS, FAIL or NOT SCORED; in the ablation arm, which scores plan checks only, whether the plan was right. */
function resultWord(o: TrialOutcome): string {
  if (scoredInAblation(o)) return o.passed ? 'plan right' : 'plan wrong';
  return o.passed === true ? 'PASS' : o.passed === false ? 'FAIL' : 'NOT SCORED';
}

function firedText(o: TrialOutcome): string {
  const names = [...new Set(o.firings.map((f) => f.skill ?? f.requested))];
  return names.length ? `fired ${names.join(', ')}` : 'fired nothing';
}

/** A judge's answer or verdict as a mark: yes ✓, no ✗, none (unreadable, a tie) ?. */
const judgeMark = (answer: string) => (answer === 'yes' ? '✓' : answer === 'no' ? '✗' : '?');

type TrialJudge = NonNullable<TrialOutcome['judge']>;
const judgedYes = (judge: TrialJudge) => judge.items.filter((i) => i.verdict === 'yes').length;

/** Each judged item with its samples and verdict, and whether the verdicts counted toward the trial's pass. */
function judgeList(judge: TrialJudge): Html {
  const items = judge.items.map(
    (i) =>
      html`<li class="${i.verdict === 'yes' ? 'ok' : 'bad'}" title="verdict: ${i.verdict}"><span class="mark">${judgeMark(i.verdict)}</span>${i.item}<span class="detail" title="the judge's samples: ${i.samples.join(', ') || 'none'}">${i.samples.map(judgeMark).join(' ') || 'not asked yet'} → ${i.verdict}</span></li>`,
  );
  return html`<h4>Judge · ${judgedYes(judge)} of ${judge.items.length} yes · ${judge.scored ? 'scored' : JUDGE_SHOWN}</h4><ul class="checks">${items}</ul>`;
}

/** One trial's evidence: what fired, its plan checks and judge, and its transcript; `open` shows it unfolded. */
export function trialDetails(o: TrialOutcome, c: GradableCase | undefined, input: ReportInput, open = false): Html {
  const transcript = input.transcripts?.get(trialKey(o));
  const file = inRunDir(input, o);
  const checks = o.plan?.checks ?? [];
  const passedChecks = checks.filter((k) => k.pass).length;
  const facts = [
    html`<li>status <b>${o.status}</b>${o.statusDetail ? ` — ${o.statusDetail}` : ''}</li>`,
    o.excludedBecause ? html`<li>not scored: <b>${exclusionText(o.excludedBecause)}</b></li>` : '',
    html`<li>routed to <b>${o.firedColumn}</b> (${o.fired})</li>`,
    o.readOnly ? html`<li>fired only by reading SKILL.md</li>` : '',
    o.flags.clarifying ? html`<li>asked a clarifying question</li>` : '',
    o.flags.noop ? html`<li>wrote nothing</li>` : '',
    o.wallMs !== undefined ? html`<li>${fmt(o.wallMs / 1000, 1)} s</li>` : '',
    o.costUsd !== undefined ? html`<li>${usd(o.costUsd)}</li>` : '',
    o.attempt && o.attempt > 1 ? html`<li>attempt ${o.attempt}</li>` : '',
    html`<li>transcript <code>${file}</code></li>`,
  ];
  const firings = o.firings.length
    ? html`<h4>What fired</h4><ul class="checks">${o.firings.map(
        (f) =>
          html`<li class="${f.status && f.status !== 'loaded' ? 'bad' : 'ok'}"><span class="mark">${f.via === 'read' ? '◇' : '◆'}</span><code>${f.skill ?? f.requested}</code> <span class="muted">${f.via === 'read' ? 'read its SKILL.md' : 'invoked'}${f.status ? ` · ${f.status}` : ''}${f.skill === undefined ? ' · outside the family' : ''}${c && f.skill === c.expect ? ' · expected' : ''}${c && f.skill === c.not ? ' · forbidden' : ''}</span><span class="detail">${f.callId}</span></li>`,
      )}</ul>`
    : '';
  const plan = o.plan
    ? html`<h4>Plan checks · ${passedChecks} of ${checks.length} pass</h4><ul class="checks">${checks.map(
        (k) =>
          html`<li class="${k.pass ? 'ok' : 'bad'}"><span class="mark">${k.pass ? '✓' : '✗'}</span>${k.check}${k.detail ? html`<span class="detail">${k.detail}</span>` : ''}</li>`,
      )}</ul>${o.plan.plans.length ? html`<p class="note">planned calls found (marked in the transcript):</p><ol class="plans">${o.plan.plans.map((p) => html`<li><code>${p}</code></li>`)}</ol>` : ''}`
    : '';
  const judge = o.judge ? judgeList(o.judge) : '';
  const evidence = {
    firings: new Map(o.firings.map((f) => [f.callId, f])),
    plans: new Set(o.plan?.plans ?? []),
    command: c?.command,
    echoPrefix: input.agentNotes.readEchoPrefix,
    family: input.manifest.family,
  };
  const body = transcript
    ? html`<h4>Transcript</h4>${transcriptView(transcript, evidence)}`
    : html`<p class="note">The transcript was not loaded into this page; it is at <code>${file}</code>.</p>`;
  const summary = html`<span class="trial-n">#${o.n}</span><span class="verdict tone-${resultTone(o)}"${scoredInAblation(o) ? html` title="${ABLATION_CONTEXT}"` : ''}>${resultWord(o)}</span><span>${o.status}</span><span class="muted">${firedText(o)}</span>${o.plan ? html`<span class="muted">plan ${passedChecks}/${checks.length}</span>` : ''}${o.judge ? html`<span class="muted">judge ${judgedYes(o.judge)}/${o.judge.items.length}</span>` : ''}`;
  return html`<details class="trial tone-${resultTone(o)}" data-trial="${trialKey(o)}"${open ? html` open` : ''}><summary>${summary}</summary><div class="trial-body"><ul class="facts-list">${facts}</ul>${firings}${plan}${judge}${body}</div></details>`;
}

function armBlock(arm: Arm, trials: readonly TrialOutcome[], c: GradableCase | undefined, input: ReportInput): Html {
  const steps = trials.flatMap((o) => {
    const t = input.transcripts?.get(trialKey(o));
    return t ? [{ trial: o.n, steps: toolCallSteps(t) }] : [];
  });
  const { shown, left } = chooseEmbedded(trials);
  const leftNote = left.length
    ? html`<p class="left-out">${trialsWord(left.length)} not embedded (${trialList(left.map((o) => o.n))}); their transcripts sit beside <code>${inRunDir(input, left[0]!)}</code></p>`
    : '';
  const scored = trials.filter((o) => o.passed !== null);
  const passed = scored.filter((o) => o.passed).length;
  const of = `${passed} of ${scored.length}`;
  const tally = !scored.length ? '' : arm === 'ablation' ? ` · plan right in ${of}` : ` · ${of} passed`;
  const head = `${arm} arm · ${trialsWord(trials.length)}${tally}`;
  const context = arm === 'ablation' && scored.length ? html`<p class="note">${ABLATION_CONTEXT}.</p>` : '';
  return html`<h4>${head}</h4>${context}${divergenceNote(divergence(steps))}${shown.map((o) => trialDetails(o, c, input))}${leftNote}`;
}

/** Every case's trials, each with what was graded and its transcript: the evidence behind each verdict. */
export function trialsSection(input: ReportInput): Html {
  const { results, manifest } = input;
  const defs = new Map(manifest.cases.defs.map((c) => [c.id, c]));
  const cases = results.verdicts.map((v) => ({
    v,
    c: defs.get(v.caseId),
    arms: ARMS.map((arm) => [arm, results.outcomes.filter((o) => o.caseId === v.caseId && o.arm === arm)] as const).filter(
      ([, ts]) => ts.length > 0,
    ),
  }));
  const embedded = cases.flatMap((x) => x.arms).reduce((a, [, ts]) => a + chooseEmbedded(ts).shown.length, 0);
  const blocks = cases.map(({ v, c, arms }, i) => {
    const trials = arms.length ? arms.map(([arm, ts]) => armBlock(arm, ts, c, input)) : html`<p class="note">No trials.</p>`;
    return html`<section class="case-trials" id="${anchor('trials', i)}" aria-label="trials of ${v.caseId}"><header><h3 class="case-id">${v.caseId}</h3>${verdictBadge(v.verdict)}<span class="muted">expects ${c ? expectLabel(c) : '?'}</span></header>${c?.prompt ? html`<p class="prompt-full">${c.prompt}</p>` : ''}${trials}</section>`;
  });
  const lead = html`Each trial with its status, what fired, its plan checks and its transcript: <span class="legend-inline"><b class="who-assistant">assistant</b> text and tool calls (the only content graded), <b class="who-tool">tool</b> results, what the <b class="who-harness">harness</b> injected (skill bodies), <b class="who-system">system</b> events. The graded tool call is outlined, planned calls are marked. ${embedded} of ${results.outcomes.length} trials embedded: every failing or unscorable one (up to ${EMBED_LIMITS.notable} per case and arm) and up to ${EMBED_LIMITS.passing} passing ones; all transcripts are under <code>${input.runDir}</code>.</span>`;
  return section('trials', 'Trials', lead, blocks);
}
