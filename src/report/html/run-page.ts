import { fmt, interval, usd } from '../format.js';
import type { ReportInput } from '../reporter.js';
import { differenceWhisker, passKChart, rateWhisker } from './charts.js';
import { html, trusted, type Html } from './markup.js';
import { standalonePage } from './page.js';
import { anchor, prose, rateWithCounts, rateTitle, section, signed, simulatedBanner, VERDICT_TONE, verdictBadge } from './parts.js';
import { llrPath, sprtChart } from './sprt-chart.js';
import { inRunDir, trialsSection } from './trials.js';
import {
  ADJUSTED_MARK,
  adjustedMeaning,
  calibrationMissText,
  calibrationText,
  caseFacts,
  DESCRIPTIVE_MARK,
  DESCRIPTIVE_MEANING,
  designText,
  disagreementText,
  estimateText,
  judgeCostText,
  judgeGates,
  judgeRequestsText,
  judgeWhoText,
  needsExplaining,
  passBelowThreshold,
  rateNotes,
  costNote,
  AUTH_TEXT,
  cacheText,
  settledText,
  neighboursNote,
  listingCutsFamily,
  stabilityNote,
  unstableText,
  untrustedJudge,
  untrustedJudgeNotes,
} from '../wording.js';
import { advice } from '../advice.js';
import { costBreakdown, type CostLine } from '../cost.js';
import { DIFFERENCE_ROW, hasPerArm, PER_ARM_NOTE, perArmRows, perArmView } from '../arm-cost.js';
import { caseDesign, caseDesignKind } from '../../stats/case-design.js';
import type { CaseDesignKind } from '../../stats/decision-modes/decision-mode.js';
import { decisionMode, DESIGN_KINDS } from '../../stats/decision-modes/registry.js';
import {
  NONE,
  VERDICTS,
  type CaseArmSummary,
  type CaseVerdict,
  type GradableCase,
  type Results,
  type RunManifest,
} from '../../run/schema.js';
import { expectLabel, routeRight } from '../../run/expectation.js';

const percent = (confidence: number) => `${Math.round(confidence * 100)}%`;

function header({ results, manifest }: ReportInput, sections: { id: string; title: string }[]): Html {
  const run = results.run;
  const reported =
    run.model.reported && run.model.reported !== run.model.requested
      ? html` <span title="the model the agent reported">(reported ${run.model.reported})</span>`
      : '';
  const tiles = VERDICTS.map((v) => {
    const n = results.verdicts.filter((x) => x.verdict === v).length;
    return html`<div class="tile tone-${VERDICT_TONE[v]}${n ? '' : ' zero'}" data-verdict="${v}"><span class="count">${n}</span><span class="name">${v}</span></div>`;
  });
  const sim = run.simulator;
  const banner = run.simulated
    ? simulatedBanner(
        `skillprobe's model simulator answered${sim ? ` (profile "${sim.name}", ${sim.profile}, seed ${sim.seed})` : ''}. These numbers only echo the simulator profile: they test skillprobe and the suite's wiring, not the skill.`,
      )
    : '';
  const status =
    run.status === 'completed'
      ? ''
      : html`<p class="banner warn" role="status">This run is <strong>${run.status}</strong>: ${manifest.trials.finished} of ${manifest.trials.planned} planned trials finished.</p>`;
  const damaged = results.damaged.length
    ? html`<p class="banner warn" role="status">${results.damaged.length} stored trials could not be read and are left out: ${results.damaged
        .slice(0, 5)
        .map((d) => `${d.path} (${d.problem})`)
        .join('; ')}${results.damaged.length > 5 ? '; …' : ''}</p>`
    : '';
  const neighboursText = neighboursNote(manifest);
  const neighbours = neighboursText
    ? html`<p class="banner${listingCutsFamily(manifest) ? ' warn' : ''}" role="note">${neighboursText}</p>`
    : '';
  return html`<header class="top">
<div class="title-row"><h1>skillprobe run <code>${results.runId}</code></h1><span class="status">${run.status}</span></div>
<ul class="meta">
<li>agent <b>${run.agent.id} ${run.agent.cliVersion ?? '(version unknown)'}</b></li>
<li>model <b>${run.model.requested}</b>${reported}</li>
${run.auth ? html`<li>auth <b>${AUTH_TEXT[run.auth]}</b></li>` : ''}
<li>${decisionMode(run.decision.mode).label}</li>
<li>${results.outcomes.length} trials</li>
${run.costUsd !== undefined ? html`<li>total cost <b>${usd(run.costUsd)}</b>${judgeCostText(results.judge)}${run.simulated ? ' (simulated)' : run.costNotional ? ' (notional)' : ''}</li>` : ''}
<li>started ${run.startedAt}</li>
<li>exit code <b>${results.exitCode}</b></li>
</ul>
${banner}${status}${damaged}${neighbours}
<div class="strip" role="group" aria-label="case verdicts">${tiles}</div>
<nav class="toc" aria-label="sections">${sections.map((s) => html`<a href="#${s.id}">${s.title}</a>`)}</nav>
</header>`;
}

/** What the terminal's block says of a case that did not pass cleanly: why, one fact a line, and what to change. */
function whatToChange(v: CaseVerdict, s: CaseArmSummary, input: ReportInput): Html {
  const fix = advice(s, v, input.agentNotes.refusalFixes, input.results.run.simulated);
  const facts = caseFacts(s).map((f) => html`<li${f.alarm ? html` class="alarm"` : ''}>${prose(f.text)}</li>`);
  const example =
    fix.example === undefined ? '' : html`<div class="muted">example: <code>${inRunDir(input, { ...s, n: fix.example })}</code></div>`;
  return html`<ul class="cause">${facts}</ul><p class="fix">→ ${prose(fix.text)}</p>${example}`;
}

function casesSection(input: ReportInput, skillRow: Map<string, CaseArmSummary>, prompts: Map<string, string>): Html {
  const { results } = input;
  const conf = results.summary.confidence;
  const rows = results.verdicts.map((v, i) => {
    const s = skillRow.get(v.caseId);
    const rate = s?.rate;
    const prompt = prompts.get(v.caseId);
    const used = v.decidedAt !== undefined ? html`${v.scored}<div class="muted">decided at ${v.decidedAt}</div>` : html`${v.scored}`;
    const e = v.estimate;
    const counts = rate && rate.n ? `${rate.successes} of ${rate.n} passed` : 'no scored trials';
    const below = passBelowThreshold(v, s);
    const judge = untrustedJudge(v);
    const whisker = e
      ? rateWhisker(
          { successes: rate?.successes ?? 0, n: rate?.n ?? 0, p: e.rate, lo: e.lower, hi: e.upper },
          `${v.caseId}: ${estimateText(e)}, ${adjustedMeaning([e.level])} (${counts}); threshold ${v.params.threshold}`,
          VERDICT_TONE[v.verdict],
          v.params.threshold,
        )
      : rate && rate.n
        ? rateWhisker(
            rate,
            `${rateTitle(v.caseId, rate, conf)}; threshold ${v.params.threshold}`,
            VERDICT_TONE[v.verdict],
            v.params.threshold,
          )
        : '';
    const shown = e
      ? html`${fmt(e.rate)}<sup title="${adjustedMeaning([e.level])}">${ADJUSTED_MARK}</sup><div class="muted">${rate ? `${rate.successes}/${rate.n} passed` : ''}</div>`
      : html`${rate ? rateWithCounts(rate) : '—'}${v.descriptiveInterval ? html`<sup title="${DESCRIPTIVE_MEANING}">${DESCRIPTIVE_MARK}</sup>` : ''}`;
    return html`<tr data-case="${v.caseId}">
<th scope="row"><a class="case-id" href="#${anchor('trials', i)}">${v.caseId}</a>${prompt ? html`<span class="prompt" title="${prompt}">${prompt}</span>` : ''}${s?.tags.length ? html`<div>${s.tags.map((t) => html`<span class="tag">${t}</span>`)}</div>` : ''}</th>
<td><code>${s ? expectLabel(s) : ''}</code></td>
<td>${verdictBadge(v.verdict)}${judge ? html`<div class="muted" title="${judge.note}">${judge.short}</div>` : ''}</td>
<td class="num">${shown}<div class="muted">p0 ${fmt(v.params.threshold)}</div></td>
<td>${whisker}</td>
<td class="num">${used}${v.excluded ? html`<div class="muted">${v.excluded} left out</div>` : ''}</td>
<td class="why">${prose(v.reason)}${below ? html`<div class="muted">${prose(below)}</div>` : ''}${s && needsExplaining(v, s) ? whatToChange(v, s, input) : ''}</td>
</tr>`;
  });
  const a = results.summary.aggregates;
  const aggregate = (name: string, r: (typeof a)['recall']) =>
    r.n
      ? html`<div><span class="k">${name}</span><span class="v" title="${rateTitle(name, r, conf)}">${fmt(r.p)} <small>${interval(r)} · ${r.successes}/${r.n}</small></span></div>`
      : '';
  const aggregates = html`<div class="kv">${aggregate('trigger recall (positive cases)', a.recall)}${aggregate('false-trigger rate (negative cases)', a.falseTriggerRate)}${aggregate('precision', a.precision)}${Number.isFinite(a.f1) ? html`<div><span class="k">F1</span><span class="v">${fmt(a.f1)}</span></div>` : ''}</div>`;
  const notes = [...rateNotes(results.verdicts), ...untrustedJudgeNotes(results.verdicts)].map((n) => html`<p class="note">${n}.</p>`);
  const adjusted = results.verdicts.some((v) => v.estimate)
    ? html` Where the sequential design stopped a case (${ADJUSTED_MARK}), the rate and whisker are adjusted for stopping early instead.`
    : '';
  const lead = html`Skill arm (the family installed). Rate: the share of scored trials that passed, with its ${percent(conf)} Wilson interval drawn as a whisker; the black tick is the case's threshold p0.${adjusted}`;
  return section(
    'cases',
    'Cases',
    lead,
    html`<div class="table-wrap"><table class="cases"><thead><tr><th scope="col">Case</th><th scope="col">Expects</th><th scope="col">Verdict</th><th scope="col" class="num">Rate</th><th scope="col">${percent(conf)} interval</th><th scope="col" class="num">Trials</th><th scope="col">Why</th></tr></thead><tbody>${rows}</tbody></table></div>${notes}${aggregates}`,
  );
}

/** A cell's colour: green on the diagonal (routed as expected), red elsewhere, stronger with the share. */
/** Green where the route was right, red where it was not, grey where the cell cannot say. */
function heatStyle(share: number, right: boolean | undefined): { style: string; dark: boolean } {
  const alpha = 0.1 + 0.8 * share;
  const rgb = right === undefined ? '110, 119, 129' : right ? '26, 127, 55' : '207, 34, 46';
  return { style: `background: rgba(${rgb}, ${alpha.toFixed(2)})`, dark: alpha > 0.55 };
}

function confusionSection(results: Results): Html | '' {
  const m = results.summary.confusion;
  const conf = results.summary.confidence;
  const rows = m.rows.filter((r) => (m.cells[r]?.[m.columns[0]!]?.n ?? 0) > 0);
  if (rows.length === 0) return '';
  const body = rows.map((row) => {
    const cells = m.columns.map((col) => {
      const x = m.cells[row]![col]!;
      const title = `expected ${row}, fired ${col}: ${x.successes} of ${x.n} trials = ${fmt(x.p, 3)}, ${percent(conf)} interval ${interval(x, 3)}`;
      if (x.successes === 0)
        return html`<td class="cell empty" title="${title}" data-row="${row}" data-col="${col}"><span class="count">0</span></td>`;
      const heat = heatStyle(x.p, routeRight(row, col, m.forbids[row]));
      return html`<td class="cell${heat.dark ? ' dark' : ''}" style="${heat.style}" title="${title}" data-row="${row}" data-col="${col}"><span class="count">${x.successes}/${x.n}</span><span class="share">${fmt(x.p)}</span></td>`;
    });
    return html`<tr><th scope="row">${row}</th>${cells}</tr>`;
  });
  const lead = html`Skill arm. Rows: the skill a case expects (${NONE}: no skill may fire; not X: X must not, its siblings may); columns: what fired. Each cell: trials/total of the row and the share; green where the route was right, red where it was not, grey where the cell cannot say (several fired on a "not X" row, X among them or not). Hover a cell for its ${percent(conf)} interval.`;
  return section(
    'confusion',
    'Routing among siblings',
    lead,
    html`<div class="table-wrap"><table class="heatmap"><thead><tr><th class="corner" scope="col">expected ↓ · fired →</th>${m.columns.map((col) => html`<th scope="col">${col}</th>`)}</tr></thead><tbody>${body}</tbody></table></div>`,
  );
}

function passKSection(skillRows: CaseArmSummary[]): Html | '' {
  const rows = skillRows.filter((s) => s.rate.n > 0 && s.passK.length > 0);
  if (rows.length === 0) return '';
  const legend = html`<p class="legend"><span><span class="swatch at"></span>pass@k: at least one of k trials passes</span><span><span class="swatch hat"></span>pass^k: all k trials pass</span><span>(the lines meet where every trial or none passed)</span></p>`;
  const figures = rows.map(
    (s) =>
      html`<figure><figcaption><span class="case-id">${s.caseId}</span><span class="muted">n = ${s.rate.n}</span></figcaption>${passKChart(s.passK, `pass@k and pass^k of ${s.caseId} over k = 1 … ${s.passK.length}`)}</figure>`,
  );
  return section(
    'passk',
    'pass@k and pass^k',
    html`Skill arm, unbiased estimates from the n scored trials: how often a user retrying k times gets one success, and how often k runs in a row all succeed.`,
    html`${legend}<div class="multiples">${figures}</div>`,
  );
}

/** The figure caption's decision parameters: the targets, then the design as run with its exact error rates. */
function designParams(v: CaseVerdict): string {
  const p = v.params;
  const design = designText(v);
  const targets = `p0 ${p.threshold} vs p1 ${fmt(p.threshold - p.delta)} · α ${p.alpha} · β ${p.beta}`;
  return design ? `${targets} · minTrials ${p.minTrials} · ${design}` : `${targets} · ${p.minTrials}–${p.maxTrials} trials`;
}

function sprtSection(results: Results, manifest: RunManifest): Html | '' {
  if (!decisionMode(results.run.decision.mode).sequential) return '';
  const defs = new Map(manifest.cases.defs.map((d) => [d.id, d]));
  const kinds = new Set<CaseDesignKind>();
  const figures = results.verdicts.map((v) => {
    const scored = results.outcomes
      .filter((o) => o.caseId === v.caseId && o.arm === 'skill' && o.passed !== null)
      .sort((a, b) => a.n - b.n)
      .map((o) => ({ n: o.n, passed: o.passed! }));
    // The design the case ran under, as the verdict replays it (runs made before designs were stored ran Wald's).
    const def: Pick<GradableCase, 'decision' | 'design'> = defs.get(v.caseId) ?? { decision: v.params };
    const stored = caseDesignKind(def);
    kinds.add(stored);
    const steps = llrPath(scored, v.params);
    const last = steps.at(-1)?.llr ?? 0;
    const title = `${stored.names.chart} path of ${v.caseId}: Λ = ${fmt(last, 3)} after ${scored.length} scored trials, ${v.verdict}`;
    const chart = steps.length
      ? sprtChart(steps, v.params, { kind: stored.kind, design: caseDesign(def) }, v.decidedAt, title)
      : html`<p class="note">No scored trial: nothing to walk.</p>`;
    return html`<figure data-case="${v.caseId}" data-design="${stored.kind}"><figcaption><span class="case-id">${v.caseId}</span>${verdictBadge(v.verdict)}<span class="muted params">${designParams(v)}</span></figcaption>${chart}</figure>`;
  });
  const notes = DESIGN_KINDS.filter((d) => kinds.has(d)).map((d) => html` ${trusted(d.chartNote)}`);
  const lead = html`Each case's log-likelihood ratio Λ (of p0 against p1) after every scored trial of the skill arm, in trial order: a pass steps up, a fail steps down. The case PASSes when Λ reaches the green zone and FAILs in the red one (from minTrials on, the dashed line); between them it goes on.${notes} The caption gives the target error rates and the design's exact ones. Filled dots: passes; hollow: fails; the ringed dot is where the test decided.`;
  return section('sprt', 'Sequential test paths', lead, html`<div class="multiples wide">${figures}</div>`);
}

function ablationSection(results: Results): Html | '' {
  const s = results.summary;
  if (s.ablation.length === 0) return '';
  const conf = s.confidence;
  const rows = s.ablation.map((a) => {
    const d = a.difference;
    const tone = !Number.isFinite(d.diff) ? 'neutral' : d.lo > 0 ? 'pass' : d.hi < 0 ? 'fail' : 'neutral';
    const title = `${a.caseId}: skill − ablation = ${fmt(d.diff, 3)}, ${percent(conf)} interval ${interval(d, 3)}`;
    return html`<tr><th scope="row"><span class="case-id">${a.caseId}</span></th><td class="num">${a.pairs}</td><td class="num" title="${rateTitle('with the family', a.skillRate, conf)}">${rateWithCounts(a.skillRate)}</td><td class="num" title="${rateTitle('without it', a.ablationRate, conf)}">${rateWithCounts(a.ablationRate)}</td><td class="num">${signed(d.diff)}</td><td>${differenceWhisker(d, 0, title, tone)}</td><td class="num">${fmt(a.pValue, 3)}</td><td class="num">${a.counts.both}</td><td class="num">${a.counts.skillOnly}</td><td class="num">${a.counts.ablationOnly}</td><td class="num">${a.counts.neither}</td></tr>`;
  });
  const lead = html`Plan checks with the family installed against the same prompt without it. Pairs: the i-th skill trial with the i-th ablation trial; McNemar's exact test on the pairs that disagree. The whisker is the difference with its interval, on −1 … +1 around 0.`;
  return section(
    'ablation',
    'Ablation',
    lead,
    html`<div class="table-wrap"><table><thead><tr><th scope="col">Case</th><th scope="col" class="num">Pairs</th><th scope="col" class="num">With skill</th><th scope="col" class="num">Without</th><th scope="col" class="num">Difference</th><th scope="col">${percent(conf)} interval</th><th scope="col" class="num">p</th><th scope="col" class="num" title="pairs where both trials passed">Both</th><th scope="col" class="num" title="pairs where only the skill trial passed">Skill only</th><th scope="col" class="num" title="pairs where only the ablation trial passed">Ablation only</th><th scope="col" class="num" title="pairs where neither passed">Neither</th></tr></thead><tbody>${rows}</tbody></table></div>`,
  );
}

/**
 * What the run cost as the agent CLI reported it, per verdict and per case (with its verdict), beside the trials' time,
 * and what the prompt cache served (the CACHE line, also when the CLI reports no cost).
 */
function costSection(results: Results): Html | '' {
  const cost = costBreakdown(results);
  const cache = cacheText({ ...results.run, trials: cost.total.trials });
  const settled = settledText(results.settled, results.outcomes.length);
  const cacheNote = html`${cache ? html`<p class="cache-line">${cache}</p>` : ''}${settled ? html`<p class="cache-line">${settled}</p>` : ''}`;
  if (cost.total.costUsd === undefined) return cache || settled ? section('cost', 'Cost', 'The CLI reported no cost.', cacheNote) : '';
  const secs = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
  const numbers = (l: CostLine) =>
    html`<td class="num">${l.trials}</td><td class="num">${usd(l.costUsd)}</td><td class="num">${secs(l.wallMs)}</td>`;
  // The last three columns hold numbers.
  const table = (names: string[], rows: Html[]) =>
    html`<div class="table-wrap"><table><thead><tr>${names.map((n, i) => html`<th scope="col"${i >= names.length - 3 ? html` class="num"` : ''}>${n}</th>`)}</tr></thead><tbody>${rows}</tbody></table></div>`;
  const byVerdict = cost.byVerdict.map((v) => html`<tr><th scope="row">${verdictBadge(v.verdict)}</th>${numbers(v)}</tr>`);
  const byCase = cost.byCase.map(
    (k) =>
      html`<tr><th scope="row"><span class="case-id">${k.caseId}</span></th><td>${k.verdict ? verdictBadge(k.verdict) : '—'}</td>${numbers(k)}</tr>`,
  );
  const note = costNote(results.run);
  const simulated = note ? html` · <strong>${note}</strong>` : '';
  const lead = html`${usd(cost.total.costUsd)} for ${cost.total.trials} trials${judgeCostText(results.judge)}, ${secs(cost.total.wallMs)} of trial time (each trial's own wall time, summed).${simulated}`;
  return section(
    'cost',
    'Cost',
    lead,
    html`${cacheNote}${table(['Verdict', 'Trials', 'Cost', 'Trial time'], byVerdict)}${table(['Case', 'Verdict', 'Trials', 'Cost', 'Trial time'], byCase)}`,
  );
}

/** What a trial spends per case and arm, skill − ablation with its interval, and a "worth its tokens" line per skill. */
function perArmSection(results: Results): Html | '' {
  const costs = results.armCosts;
  if (!hasPerArm(costs)) return '';
  const { title, lines, header } = perArmView(costs);
  const rows = perArmRows(costs).map(([label, ...cells]) =>
    cells.length === 0
      ? html`<tr><th scope="rowgroup" colspan="${header.length}"><span class="case-id">${label}</span></th></tr>`
      : html`<tr${label!.trim() === DIFFERENCE_ROW ? html` class="difference"` : ''}><th scope="row">${label!.trim()}</th>${cells.map((cell) => html`<td class="num">${cell}</td>`)}</tr>`,
  );
  return section(
    'per-arm',
    'Per arm',
    `${title[0]!.toUpperCase()}${title.slice(1)}.`,
    html`<ul class="worth">${lines.map((l) => html`<li>${l}</li>`)}</ul><div class="table-wrap"><table><thead><tr>${header.map((h, i) => html`<th scope="col"${i >= 1 ? html` class="num"` : ''}>${h}</th>`)}</tr></thead><tbody>${rows}</tbody></table></div><p class="note">${PER_ARM_NOTE}</p>`,
  );
}

/** The model judge: who judged, whether it earned trust (each miss named), and how often its samples split per case. */
function judgeSection({ results, manifest }: ReportInput): Html | '' {
  const j = results.judge;
  if (!j) return '';
  const gate = judgeGates(manifest);
  const calibration = j.calibrated
    ? html`<p class="calibration">${calibrationText(j, gate)}</p>`
    : html`<p class="banner warn calibration" role="status">${calibrationText(j, gate)}</p>`;
  const misses = j.calibration.missed.length
    ? html`<ul class="checks">${j.calibration.missed.map((m) => html`<li class="bad"><span class="mark">✗</span>${calibrationMissText(m)}</li>`)}</ul>`
    : '';
  const rows = j.stability.map((s) => {
    const unstable = unstableText(s, j, gate);
    return html`<tr data-case="${s.caseId}"><th scope="row"><span class="case-id">${s.caseId}</span></th><td title="${rateTitle('samples that split', s.share, results.summary.confidence)}">${disagreementText(s)}</td><td>${unstable ? html`<strong>${unstable}</strong>` : 'stable'}</td></tr>`;
  });
  const stability = rows.length
    ? html`<div class="table-wrap"><table><thead><tr><th scope="col">Case</th><th scope="col">Disagreement</th><th scope="col">Stability</th></tr></thead><tbody>${rows}</tbody></table></div>`
    : '';
  return section(
    'judge',
    'Judge',
    `${judgeWhoText(j)} · ${judgeRequestsText(j)}.`,
    html`${calibration}${misses}${stability}<p class="note">${stabilityNote(j)}.</p>`,
  );
}

export function runPage(input: ReportInput): string {
  const { results, manifest } = input;
  const skillRows = results.summary.cases.filter((r) => r.arm === 'skill');
  const skillRow = new Map(skillRows.map((s) => [s.caseId, s]));
  const prompts = new Map(manifest.cases.defs.flatMap((c) => (c.prompt ? [[c.id, c.prompt] as const] : [])));
  const parts: [string, string, Html | ''][] = [
    ['cases', 'Cases', casesSection(input, skillRow, prompts)],
    ['confusion', 'Routing', confusionSection(results)],
    ['passk', 'pass@k', passKSection(skillRows)],
    ['sprt', 'Sequential paths', sprtSection(results, manifest)],
    ['ablation', 'Ablation', ablationSection(results)],
    ['judge', 'Judge', judgeSection(input)],
    ['cost', 'Cost', costSection(results)],
    ['per-arm', 'Per arm', perArmSection(results)],
    ['trials', 'Trials', trialsSection(input)],
  ];
  const shown = parts.filter(([, , body]) => body !== '');
  const body = html`${header(
    input,
    shown.map(([id, title]) => ({ id, title })),
  )}${shown.map(([, , b]) => b)}<footer>skillprobe ${results.harnessVersion} · graded ${results.gradedAt} · run folder <code>${input.runDir}</code></footer>`;
  return standalonePage(`skillprobe ${results.runId}${results.run.simulated ? ' (simulated)' : ''}`, body);
}
