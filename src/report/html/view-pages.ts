import type { LabelAgreement } from '../rejudge.js';
import { agreementText } from '../rejudge.js';
import { caseTrend, type NestedRun, type RunSummary } from '../runs.js';
import { html, type Html } from './markup.js';
import { pageDocument } from './page.js';
import { prose, section } from './parts.js';
import { runsTable, trendSections } from './runs.js';

/**
 * The pages `skillprobe view` serves: the runs, a run (its html report framed, live while it runs), a case across
 * runs, a trial beside its raw stream, and the labels of a judged trial. Pure: each takes what was read and returns
 * the page.
 */

/** Scripts from this server only (the live run's poll), frames of its own pages, forms posted back to it. */
export const VIEW_CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; frame-src 'self'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'self'";

/** The one script: a live run's frame reloaded when its stamp changes (a trial landed, the status moved). */
export const VIEW_SCRIPT = `'use strict';
const frame = document.querySelector('iframe[data-stamp-url]');
if (frame) {
  let stamp = frame.dataset.stamp;
  const note = document.querySelector('[data-live]');
  setInterval(async () => {
    const r = await fetch(frame.dataset.stampUrl, { cache: 'no-store' }).catch(() => undefined);
    if (!r || !r.ok) return;
    const now = await r.text();
    if (now === stamp) return;
    stamp = now;
    const y = frame.contentWindow ? frame.contentWindow.scrollY : 0;
    frame.addEventListener('load', () => frame.contentWindow && frame.contentWindow.scrollTo(0, y), { once: true });
    frame.src = frame.src;
    if (note) note.textContent = 'updated ' + new Date().toLocaleTimeString() + ' (' + now.split(' ')[0] + ' trials)';
  }, 1000);
}
`;

export const VIEW_SCRIPT_PATH = '/view.js';

const VIEW_STYLE = `
nav.view { display: flex; gap: 18px; align-items: baseline; margin: 0 0 14px; font-size: 13px; }
nav.view b { font-size: 15px; }
iframe.report { width: 100%; height: calc(100vh - 150px); min-height: 480px; border: 1px solid var(--line); border-radius: 8px; background: var(--card); }
form.filter { display: flex; gap: 8px; margin: 0 0 12px; }
form.filter input[type=search] { flex: 1; padding: 5px 8px; font: inherit; }
.split { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 14px; align-items: start; }
pre.raw { white-space: pre-wrap; word-break: break-all; font-size: 11.5px; background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; max-height: 80vh; overflow: auto; }
.pager { display: flex; gap: 14px; font-size: 13px; margin: 6px 0; }
.problem { color: var(--fail); }
table.runs th code, table.trend th code { white-space: nowrap; }
fieldset.label { border: 1px solid var(--line); border-radius: 6px; margin: 8px 0; padding: 6px 12px; }
fieldset.label input[type=text] { width: 60%; }
`;

/** A served page: the report's look, the view's navigation above it, the live script where a frame asks for it. */
export function viewPage(title: string, body: Html): string {
  const nav = html`<nav class="view"><b>skillprobe view</b><a href="/">runs</a></nav>`;
  return pageDocument(title, html`${nav}${body}`, VIEW_CSP, [VIEW_SCRIPT_PATH], VIEW_STYLE);
}

/** A link to one of the view's pages with its query. */
export const href = (path: string, query: Record<string, string | number | undefined> = {}) => {
  const q = new URLSearchParams(
    Object.entries(query).flatMap(([k, v]): [string, string][] => (v === undefined ? [] : [[k, String(v)]])),
  ).toString();
  return q ? `${path}?${q}` : path;
};

export interface RunsListing {
  rows: RunSummary[];
  query: string;
  page: number;
  pages: number;
  /** Runs matching the query, over every page. */
  matching: number;
}

/** Where a run of the list links to: a tune's or a mutate's page, else the run's. */
const runLink = (r: RunSummary) =>
  r.run?.kinds.includes('tune')
    ? href('/tune', { id: r.runId })
    : r.run?.kinds.includes('mutate')
      ? href('/mutate', { id: r.runId })
      : href('/run', { id: r.runId });

/** The runs, newest first, filterable, each a link; two picked for `compare`. */
export function runsPage(l: RunsListing): string {
  const table = runsTable(l.rows, { link: runLink, pick: (r) => r.run !== undefined && r.record === undefined });
  const pager = l.pages > 1 ? pagerLinks('/', { q: l.query || undefined }, l.page, l.pages) : '';
  const body = html`<h1>Runs</h1>
<form class="filter" method="get" action="/"><input type="search" name="q" value="${l.query}" placeholder="filter: agent, model, status, kind (canary, judged, tune, mutate, interrupted…)" aria-label="filter runs"><button>filter</button></form>
<form class="filter" method="get" action="/case"><input type="search" name="id" placeholder="a case id: its rate across the runs" aria-label="case id"><button>case trend</button></form>
<form method="get" action="/compare">
<p class="note">${l.matching} runs${l.query ? ' match' : ''}; pick a base (left) and a candidate (right) to compare them. <button>compare</button></p>
${table}
</form>${pager}`;
  return viewPage('skillprobe view · runs', body);
}

function pagerLinks(path: string, query: Record<string, string | undefined>, page: number, pages: number): Html {
  return html`<p class="pager">${page > 1 ? html`<a href="${href(path, { ...query, page: page - 1 })}" rel="prev">← newer</a>` : ''}<span>page ${page} of ${pages}</span>${page < pages ? html`<a href="${href(path, { ...query, page: page + 1 })}" rel="next">older →</a>` : ''}</p>`;
}

export interface RunShell {
  runId: string;
  title: string;
  /** The framed report's address. */
  report: string;
  /** While the run is going: the address of its stamp, polled, and the stamp now. */
  live?: { stampUrl: string; stamp: string };
  /** Links under the frame: its cases' trends, its trials. */
  cases: string[];
  trials: { caseId: string; arm: string; n: number; word: string; judged: boolean }[];
}

/** A run: its html report in a frame (reloaded as trials land while it runs), its cases and trials as links. */
export function runShellPage(s: RunShell): string {
  const trialLinks = s.trials.map(
    (t) =>
      html`<li><a href="${href('/trial', { id: s.runId, case: t.caseId, arm: t.arm, n: t.n })}">${t.caseId} · ${t.arm} · #${t.n}</a> ${t.word}${t.judged ? ' · judged: label it' : ''}</li>`,
  );
  const caseLinks = s.cases.map((c) => html`<li><a href="${href('/case', { id: c })}"><code>${c}</code></a></li>`);
  const frame = s.live
    ? html`<iframe class="report" title="report" src="${s.report}" data-stamp-url="${s.live.stampUrl}" data-stamp="${s.live.stamp}"></iframe>`
    : html`<iframe class="report" title="report" src="${s.report}"></iframe>`;
  const body = html`<h1>${s.title}</h1>
<p class="note">${s.live ? html`<b>running</b> · this page follows it: <span data-live>waiting for trials</span>` : prose('the report as `skillprobe report` writes it')} · <a href="${s.report}">open the report alone</a></p>
${frame}
${section('cases', 'Each case across the runs', 'its rate in every run that measured it, beside what changed', html`<ul>${caseLinks}</ul>`)}
${section('trials', 'Trials', 'each trial as a timeline beside its raw stream; a judged trial takes your labels', html`<details><summary>${s.trials.length} trials</summary><ul>${trialLinks}</ul></details>`)}`;
  return viewPage(`skillprobe view · ${s.runId}`, body);
}

/** A framed page of a report (a comparison, a tune, a mutate), with a title above it and, for a tune or a mutate, its runs. */
export function framedPage(title: string, report: string, runs?: RecordRuns): string {
  return viewPage(
    `skillprobe view · ${title}`,
    html`<h1>${title}</h1><p class="note"><a href="${report}">open the report alone</a></p><iframe class="report" title="report" src="${report}"></iframe>${runs ? recordRuns(runs) : ''}`,
  );
}

/** The runs a tune or a mutate made, each a run folder inside its own; a mutant's with a compare against the unmutated. */
export interface RecordRuns {
  id: string;
  runs: NestedRun[];
  /** The unmutated run, as an id of this view, when the view holds it. */
  base?: string;
}

function recordRuns(r: RecordRuns): Html {
  const items = r.runs.map((run) => {
    const id = `${r.id}/${run.dir}`;
    const compare =
      r.base !== undefined && id !== r.base
        ? html` · <a href="${href('/compare', { base: r.base, candidate: id })}">against the unmutated</a>`
        : '';
    return html`<li><a href="${href('/run', { id })}">${run.what}</a> <code>${run.dir}</code>${compare}</li>`;
  });
  return section(
    'record-runs',
    'Its runs',
    'each a run folder of its own, with its report and trials; they stay out of the list and of a case’s trend, which their changed skills would mislead',
    items.length ? html`<ul>${items}</ul>` : html`<p class="note">none yet</p>`,
  );
}

/** A case across the runs that measured it: the chart, then each run's verdict, rate and what changed before it. */
export function casePage(caseId: string, rows: readonly RunSummary[]): string {
  const points = caseTrend(rows, caseId);
  const body = points.length
    ? html`<h1>Case <code>${caseId}</code> across ${points.length} runs</h1>
${trendSections(points, (id) => href('/run', { id }))}`
    : html`<h1>Case <code>${caseId}</code></h1><p class="problem">no graded run has a case of this id</p>`;
  return viewPage(`skillprobe view · ${caseId}`, body);
}

export interface TrialView {
  runId: string;
  title: string;
  /** The trial's evidence and timeline (the html report's drill-down of it), its events paged. */
  evidence: Html;
  events: { from: number; to: number; total: number; pageSize: number };
  raw: { text: string; offset: number; end: number; size: number };
  labels?: TrialLabels;
  query: { id: string; case: string; arm: string; n: number };
}

export interface TrialLabels {
  /** The run's id as its run.json has it: what the labels file names. */
  run: string;
  items: { item: string; verdict: string; label?: 'yes' | 'no'; note?: string }[];
  by: string;
  agreement: LabelAgreement;
  file: string;
  problem?: string;
}

function labelsForm(t: TrialView, l: TrialLabels): Html {
  const items = l.items.map(
    (i, k) =>
      html`<fieldset class="label" data-item="${k}"><legend>${i.item} · the judge said <b>${i.verdict}</b></legend><label><input type="radio" name="label${k}" value="yes"${i.label === 'yes' ? html` checked` : ''}> yes</label> <label><input type="radio" name="label${k}" value="no"${i.label === 'no' ? html` checked` : ''}> no</label> <input type="text" name="note${k}" value="${i.note ?? ''}" placeholder="note (optional)" aria-label="note"></fieldset>`,
  );
  return section(
    'labels',
    'Your labels',
    html`Is each item true of this trial? Your answers go to <code>${l.file}</code>, which <code>skillprobe rejudge RUN --labels ${l.file}</code> reads.`,
    html`${l.problem ? html`<p class="problem">${l.problem}</p>` : ''}<p class="agreement" data-agreement>${agreementText(l.agreement)}</p>
<form method="post" action="/labels"><input type="hidden" name="id" value="${t.query.id}"><input type="hidden" name="case" value="${t.query.case}"><input type="hidden" name="arm" value="${t.query.arm}"><input type="hidden" name="n" value="${t.query.n}">${items}<p><label>by <input type="text" name="by" value="${l.by}" aria-label="labelled by"></label> <button>save labels</button></p></form>`,
  );
}

/** A trial: its evidence and timeline beside its raw stream, both paged; a judged trial's labels below. */
export function trialPage(t: TrialView): string {
  const q = t.query;
  const ev = t.events;
  const eventPager =
    ev.total > ev.pageSize
      ? html`<p class="pager">events ${ev.from + 1}–${ev.to} of ${ev.total}${ev.from > 0 ? html` <a href="${href('/trial', { ...q, from: Math.max(0, ev.from - ev.pageSize) })}">← earlier</a>` : ''}${ev.to < ev.total ? html` <a href="${href('/trial', { ...q, from: ev.to })}">later →</a>` : ''}</p>`
      : '';
  const r = t.raw;
  const rawPager = html`<p class="pager">bytes ${r.offset}–${r.end} of ${r.size}${r.offset > 0 ? html` <a href="${href('/trial', { ...q, offset: 0 })}">↞ start</a>` : ''}${r.end < r.size ? html` <a href="${href('/trial', { ...q, offset: r.end })}" rel="next">next page →</a>` : ''}</p>`;
  const body = html`<h1>${t.title}</h1>
<p class="note"><a href="${href('/run', { id: t.runId })}">the run</a> · <a href="${href('/case', { id: q.case })}">this case across runs</a></p>
<div class="split"><div class="timeline">${eventPager}${t.evidence}</div><div><h4>Raw stream</h4>${rawPager}<pre class="raw">${r.text}</pre></div></div>
${t.labels ? labelsForm(t, t.labels) : ''}`;
  return viewPage(`skillprobe view · ${t.title}`, body);
}

/** What went wrong with a request, in one line, with the way back. */
export function problemPage(title: string, message: string): string {
  return viewPage(`skillprobe view · ${title}`, html`<h1>${title}</h1><p class="problem" data-problem>${message}</p>`);
}
