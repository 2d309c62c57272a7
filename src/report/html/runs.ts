import { fmt } from '../format.js';
import { runCells, trendCells, trendNotes, type RunSummary, type TrendPoint } from '../runs.js';
import { html, type Html } from './markup.js';
import { section, verdictBadge } from './parts.js';

/**
 * Runs and a case's trend as html, in the words of ../runs.ts (which `history` prints as text): the view's list and
 * case page, and the html report's runs of several agents.
 */

export interface RunsTableOptions {
  /** Where a run's id links to (none: the id alone). */
  link?: (s: RunSummary) => string | undefined;
  /** A pair of radio buttons (`base`, `candidate`) on each run that `compare` can take. */
  pick?: (s: RunSummary) => boolean;
}

/** The runs as a table: who ran each, its context and status, what came out, its trials and cost. */
export function runsTable(rows: readonly RunSummary[], o: RunsTableOptions = {}): Html {
  const body = rows.map((r) => {
    const c = runCells(r);
    const to = o.link?.(r);
    const id = html`<code>${r.runId}</code>`;
    const pick = o.pick
      ? html`<td>${o.pick(r) ? html`<input type="radio" name="base" value="${r.runId}" aria-label="base ${r.runId}"> <input type="radio" name="candidate" value="${r.runId}" aria-label="candidate ${r.runId}">` : ''}</td>`
      : '';
    const verdicts = r.results || r.record ? c.verdicts : html`<span class="problem">${r.problem ?? ''}</span>`;
    return html`<tr data-run="${r.runId}">${pick}<th scope="row">${to ? html`<a href="${to}">${id}</a>` : id}</th><td>${c.who}</td><td>${c.context}</td><td>${c.status}</td><td>${verdicts}</td><td class="num">${c.trials}</td><td class="num">${c.cost}</td></tr>`;
  });
  const head = html`${o.pick ? html`<th>base · cand.</th>` : ''}<th>run</th><th>agent · model</th><th>context</th><th>status</th><th>verdicts</th><th class="num">trials</th><th class="num">cost</th>`;
  return html`<div class="table-wrap"><table class="runs"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`;
}

const CHART = { w: 720, h: 220, left: 40, right: 16, top: 16, bottom: 28 };

/** The trend as a chart: each run's rate and interval, oldest on the left; a dashed line where something changed. */
function trendChart(points: readonly TrendPoint[]): Html {
  const { w, h, left, right, top, bottom } = CHART;
  const step = points.length > 1 ? (w - left - right) / (points.length - 1) : 0;
  const x = (i: number) => left + (points.length > 1 ? i * step : (w - left - right) / 2);
  const y = (p: number) => top + (1 - p) * (h - top - bottom);
  const grid = [0, 0.25, 0.5, 0.75, 1].map(
    (p) =>
      html`<line class="grid" x1="${left}" x2="${w - right}" y1="${y(p)}" y2="${y(p)}"></line><text class="label" x="${left - 6}" y="${y(p) + 3}" text-anchor="end">${fmt(p)}</text>`,
  );
  const marks = points.map((p, i) => {
    const tone = p.line.verdict.verdict.toLowerCase();
    const change = p.changed.length
      ? html`<line class="changed" x1="${x(i) - step / 2}" x2="${x(i) - step / 2}" y1="${top}" y2="${h - bottom}"></line><text class="changed" x="${x(i) - step / 2 + 3}" y="${top + 9}">${p.changed.map((c) => c.what).join(', ')}</text>`
      : '';
    const rate = p.rate
      ? html`<g class="tone-${tone}"><title>${p.runId}: ${trendCells(p).rate}</title><line class="ci" x1="${x(i)}" x2="${x(i)}" y1="${y(p.rate.lo)}" y2="${y(p.rate.hi)}"></line><circle class="est" cx="${x(i)}" cy="${y(p.rate.p)}" r="4"></circle></g>`
      : '';
    return html`${change}${rate}`;
  });
  return html`<svg class="chart trend" viewBox="0 0 ${w} ${h}" role="img" aria-label="rate per run with its interval"><line class="axis" x1="${left}" x2="${w - right}" y1="${h - bottom}" y2="${h - bottom}"></line>${grid}${marks}</svg>`;
}

/** A case's trend: the chart (oldest first), then each run's verdict, rate and what changed before it, and the marks' notes. */
export function trendSections(points: readonly TrendPoint[], link: (runId: string) => string): Html {
  const rows = points.map((p) => {
    const c = trendCells(p);
    return html`<tr data-run="${p.runId}"><th scope="row"><a href="${link(p.runId)}"><code>${p.runId}</code></a></th><td>${p.startedAt}</td><td>${verdictBadge(c.verdict)}</td><td>${c.rate}</td><td class="num">${c.passes}</td><td class="num">${c.cost}</td><td class="changes">${c.changed.join('; ')}</td></tr>`;
  });
  const notes = trendNotes(points).map((n) => html`<p class="note">${n}</p>`);
  return html`${section('trend', 'Rate per run', 'skill arm, oldest first; a dashed line marks a change of model, CLI, skills, profile or context', trendChart(points))}
${section('runs', 'Runs', '', html`<div class="table-wrap"><table class="trend"><thead><tr><th>run</th><th>started</th><th>verdict</th><th>rate [CI]</th><th class="num">passes</th><th class="num">cost</th><th>changed since the run before</th></tr></thead><tbody>${rows}</tbody></table></div>${notes}`)}`;
}
