import { fmt, interval, usd } from '../format.js';
import { pValueText } from '../../util/text.js';
import { differenceWhisker, type Tone } from './charts.js';
import { html, type Html } from './markup.js';
import { standalonePage } from './page.js';
import { METHOD_NAME, movedText, simulatedRunsText, SUITE_METHOD, suiteRateRows } from '../wording.js';
import { prose, rateWithCounts, rateTitle, section, signed, simulatedBanner } from './parts.js';
import { decisionMode } from '../../stats/decision-modes/registry.js';
import { CHANGES, type Change, type ComparedRun, type Comparison, type RateDifference } from '../../verdict/comparison.js';

const CHANGE_TONE: Record<Change, Tone> = { REGRESSED: 'fail', IMPROVED: 'pass', UNCHANGED: 'neutral', UNDECIDED: 'inconclusive' };

const changeBadge = (c: Change) => html`<span class="verdict tone-${CHANGE_TONE[c]}">${c}</span>`;
const differenceTitle = (what: string, d: RateDifference, margin: number) =>
  `${what}: candidate − base = ${fmt(d.diff, 3)}, interval ${interval(d, 3)}; unchanged within ±${margin}`;

function runCard(role: string, r: ComparedRun): Html {
  const reported = r.model.reported && r.model.reported !== r.model.requested ? ` (reported ${r.model.reported})` : '';
  return html`<div class="run-card"><h3>${role} ${r.simulated ? html`<span class="verdict tone-error" title="a model simulator answered">SIMULATED</span>` : ''}</h3>
<ul class="facts-list"><li>run <b><code>${r.runId}</code></b></li><li>folder <code>${r.dir}</code></li><li>agent <b>${r.agent.id} ${r.agent.cliVersion ?? '(version unknown)'}</b></li><li>model <b>${r.model.requested}</b>${reported}</li><li>${decisionMode(r.decisionMode).label}</li><li>${r.trials} trials</li>${r.costUsd !== undefined ? html`<li>cost <b>${usd(r.costUsd)}</b></li>` : ''}<li>started ${r.startedAt}</li></ul></div>`;
}

function header(c: Comparison): Html {
  const tiles = CHANGES.map((k) => {
    const n = c.cases.filter((x) => x.change === k).length;
    return html`<div class="tile tone-${CHANGE_TONE[k]}${n ? '' : ' zero'}" data-change="${k}"><span class="count">${n}</span><span class="name">${k}</span></div>`;
  });
  const cross = [
    c.crossAgent &&
      `different agents: ${c.base.agent.id} ${c.base.agent.cliVersion ?? ''} → ${c.candidate.agent.id} ${c.candidate.agent.cliVersion ?? ''}`,
    c.crossModel && `different models: ${c.base.model.requested} → ${c.candidate.model.requested}`,
  ].filter((x): x is string => Boolean(x));
  const crossBanner = cross.length
    ? html`<p class="banner warn" role="status"><strong>CROSS-${c.crossAgent ? 'AGENT' : 'MODEL'}</strong> · ${cross.join('; ')}. Every difference below mixes this change with the skills' own.</p>`
    : '';
  const simulated = simulatedRunsText(c);
  const simBanner = simulated ? simulatedBanner(simulated) : '';
  return html`<header class="top">
<div class="title-row"><h1>skillprobe comparison <code>${c.base.runId}</code> → <code>${c.candidate.runId}</code></h1><span class="status">suite ${changeBadge(c.suite.change)} · exit code ${c.exitCode}</span></div>
<div class="run-cards">${runCard('Base', c.base)}${runCard('Candidate', c.candidate)}</div>
${crossBanner}${simBanner}
<div class="strip" role="group" aria-label="changes">${tiles}</div>
<p class="note">A difference whose interval lies inside ±${c.margin} is UNCHANGED; REGRESSED and IMPROVED need an adjusted p-value (Benjamini–Hochberg) at most α = ${c.alpha}.</p>
</header>`;
}

function casesSection(c: Comparison): Html {
  const rows = c.cases.map((x) => {
    const title = differenceTitle(`${x.caseId} (${x.arm} arm)`, x.difference, c.margin);
    const decide = x.trialsToDecide !== undefined ? html`<div>about ${x.trialsToDecide} trials per run would decide it</div>` : '';
    return html`<tr data-case="${x.caseId}" data-arm="${x.arm}"><th scope="row"><span class="case-id">${x.caseId}</span></th><td>${x.arm}</td><td class="num" title="${rateTitle('base', x.base)}">${rateWithCounts(x.base)}</td><td class="num" title="${rateTitle('candidate', x.candidate)}">${rateWithCounts(x.candidate)}</td><td class="num">${signed(x.difference.diff)}</td><td>${differenceWhisker(x.difference, c.margin, title, CHANGE_TONE[x.change])}</td><td class="num" title="unadjusted p = ${fmt(x.pValue, 4)}">${pValueText(x.pAdjusted)}</td><td>${changeBadge(x.change)}</td><td class="why">${prose(x.reason)}<div class="muted">${METHOD_NAME[x.method]}</div>${decide}</td></tr>`;
  });
  const only = [
    c.onlyIn.base.length ? html`<p class="note">Only in the base run (not compared): ${c.onlyIn.base.join(', ')}</p>` : '',
    c.onlyIn.candidate.length ? html`<p class="note">Only in the candidate run (not compared): ${c.onlyIn.candidate.join(', ')}</p>` : '',
  ];
  const lead = html`Pass rates of both runs per case and arm. The whisker is the difference (candidate − base) with its interval, on −1 … +1 around 0; the grey band is ±${c.margin}, the smallest change worth detecting.`;
  return section(
    'changes',
    'Cases',
    lead,
    html`<div class="table-wrap"><table><thead><tr><th scope="col">Case</th><th scope="col">Arm</th><th scope="col" class="num">Base</th><th scope="col" class="num">Candidate</th><th scope="col" class="num">Difference</th><th scope="col">Interval (−1 … +1)</th><th scope="col" class="num">p adj.</th><th scope="col">Change</th><th scope="col">Why</th></tr></thead><tbody>${rows}</tbody></table></div>${only}`,
  );
}

function suiteSection(c: Comparison): Html {
  const s = c.suite;
  const rows = suiteRateRows(s).map(
    ([name, change, cases]) => html`<tr><th scope="row">${name}</th><td class="num">${change}</td><td class="num">${cases}</td></tr>`,
  );
  return section(
    'suite',
    'The whole suite',
    SUITE_METHOD,
    html`<p>${changeBadge(s.change)} ${prose(s.reason)}</p><div class="table-wrap"><table><thead><tr><th scope="col">Rate</th><th scope="col" class="num">Change [interval]</th><th scope="col" class="num">Over</th></tr></thead><tbody>${rows}</tbody></table></div><p class="note">${movedText(s)}</p>`,
  );
}

function routingSection(c: Comparison): Html {
  if (c.routing.length === 0) return section('routing', 'Routing changes', '', html`<p class="note">No confusion-matrix cell moved.</p>`);
  const rows = c.routing.map((r) => {
    const title = differenceTitle(`${r.caseId} routed to ${r.column}`, r.difference, c.margin);
    // Routing rows are columns other than the expected skill: one gaining a case's trials is a routing loss.
    const tone: Tone = r.pAdjusted > c.alpha ? 'neutral' : r.difference.diff > 0 ? 'fail' : 'pass';
    return html`<tr><th scope="row"><span class="case-id">${r.caseId}</span></th><td><code>${r.expect}</code></td><td><code>${r.column}</code></td><td class="num">${rateWithCounts(r.base)}</td><td class="num">${rateWithCounts(r.candidate)}</td><td class="num">${signed(r.difference.diff)}</td><td>${differenceWhisker(r.difference, c.margin, title, tone)}</td><td class="num" title="unadjusted p = ${fmt(r.pValue, 4)}">${pValueText(r.pAdjusted)}</td></tr>`;
  });
  return section(
    'routing',
    'Routing changes',
    'Confusion-matrix cells that moved: the share of a case’s trials that fired a given column.',
    html`<div class="table-wrap"><table><thead><tr><th scope="col">Case</th><th scope="col">Expects</th><th scope="col">Fired</th><th scope="col" class="num">Base</th><th scope="col" class="num">Candidate</th><th scope="col" class="num">Difference</th><th scope="col">Interval (−1 … +1)</th><th scope="col" class="num">p adj.</th></tr></thead><tbody>${rows}</tbody></table></div>`,
  );
}

function driftSection(c: Comparison): Html {
  const facts = c.drift.facts.map(
    (f) =>
      html`<tr${f.differs ? html` class="differs"` : ''}><th scope="row">${f.name}</th><td><code>${f.base}</code></td><td><code>${f.candidate}</code></td><td>${f.differs ? html`<strong>differs</strong>` : html`<span class="muted">same</span>`}</td></tr>`,
  );
  const skills = c.drift.skills.map(
    (s) =>
      html`<tr${s.state !== 'same' ? html` class="differs"` : ''}><th scope="row"><code>${s.name}</code></th><td><code>${s.base ?? '—'}</code></td><td><code>${s.candidate ?? '—'}</code></td><td>${s.state === 'same' ? html`<span class="muted">same</span>` : html`<strong>${s.state}</strong>`}</td></tr>`,
  );
  const table = (head: string, rows: Html[]) =>
    html`<div class="table-wrap"><table class="drift"><thead><tr><th scope="col">${head}</th><th scope="col">Base</th><th scope="col">Candidate</th><th scope="col"></th></tr></thead><tbody>${rows}</tbody></table></div>`;
  return section(
    'drift',
    'What else changed',
    'Everything besides the model’s behaviour that differs between the runs: read it before believing a change.',
    html`${table('Fact', facts)}${skills.length ? html`<h4>Skills</h4>${table('Skill', skills)}` : ''}`,
  );
}

export function comparePage(c: Comparison): string {
  const body = html`${header(c)}${suiteSection(c)}${casesSection(c)}${routingSection(c)}${driftSection(c)}<footer>skillprobe comparison · base <code>${c.base.dir}</code> · candidate <code>${c.candidate.dir}</code></footer>`;
  return standalonePage(`skillprobe ${c.base.runId} → ${c.candidate.runId}`, body);
}
