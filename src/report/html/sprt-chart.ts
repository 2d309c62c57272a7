import { alwaysDecides, type SequentialDesign } from '../../stats/sequential-design.js';
import { boundaries, llrAt, llrWalk } from '../../stats/sprt.js';
import { fmt } from '../format.js';
import { linear, svg } from './charts.js';
import { html, type Html } from './markup.js';
import { signed } from './parts.js';
import type { SprtParams, StoredDesign } from '../../run/schema.js';

export interface LlrStep {
  /** The trial's number within its case and arm. */
  trial: number;
  passed: boolean;
  /** Λ after this trial. */
  llr: number;
}

/** Λ after each scored trial, in trial order: the walk the sequential test made. */
export function llrPath(scored: readonly { n: number; passed: boolean }[], p: Pick<SprtParams, 'threshold' | 'delta'>): LlrStep[] {
  const walk = llrWalk(scored.map((o) => o.passed), p);
  return scored.map((o, i) => ({ trial: o.n, passed: o.passed, llr: walk[i]! }));
}

/** The design a case ran under, as the chart draws it: Wald's flat Λ boundaries, or the optimal design's per stage. */
export interface ChartDesign {
  kind: StoredDesign['kind'];
  /** As run: capped at the case's maxTrials. */
  design: SequentialDesign;
}

export interface StageBoundary {
  /** Scored trials. */
  n: number;
  /** Λ at or above which the case PASSes after n trials; at or below `reject` it FAILs. */
  accept: number;
  reject: number;
}

/**
 * A design's boundaries in Λ, one per stage from minTrials to its last: each midway between the Λ of the last pass
 * count that goes on and of the first that decides (after n trials Λ takes only n + 1 values, so any line between
 * those two splits the walk exactly as the design does). Where a design decides every case by its last stage,
 * nothing goes on there and the two boundaries meet.
 */
export function stageBoundaries(d: SequentialDesign, p: Pick<SprtParams, 'threshold' | 'delta'>): StageBoundary[] {
  const mid = (n: number, k: number) => (llrAt(n, k, p) + llrAt(n, k + 1, p)) / 2;
  const rows: StageBoundary[] = [];
  for (let n = Math.max(1, d.minTrials); n <= d.maxTrials; n++) rows.push({ n, accept: mid(n, d.acceptFrom[n]! - 1), reject: mid(n, d.rejectUpTo[n]!) });
  return rows;
}

const c = (x: number) => x.toFixed(1);

/**
 * The walk against its accept (PASS) and reject (FAIL) boundaries, up to the design's last stage (marked on the
 * trials axis); no decision is taken before minTrials. Wald's boundaries are flat lines in Λ; the optimal design's
 * are steps, one per stage, that close in until they meet where it has decided every case.
 */
export function sprtChart(steps: readonly LlrStep[], p: SprtParams, chart: ChartDesign, decidedAt: number | undefined, title: string): Html {
  const [width, height] = [350, 170];
  const m = { l: 34, r: 78, t: 10, b: 28 };
  const d = chart.design;
  const wald = chart.kind === 'wald';
  const b = boundaries(p);
  const stages = wald ? [] : stageBoundaries(d, p);
  const finite = [...steps.map((s) => s.llr), ...(wald ? [b.accept, b.reject] : stages.flatMap((s) => [s.accept, s.reject]))].filter(Number.isFinite);
  const lo = Math.min(0, ...finite) * 1.15;
  const hi = Math.max(lo + 1, Math.max(0, ...finite) * 1.15);
  const last = Math.max(steps.length, p.minTrials, d.maxTrials, 1);
  const x = linear(0, last, m.l, width - m.r);
  const y = linear(lo, hi, height - m.b, m.t);
  const [right, bottom] = [width - m.r, height - m.b];
  // A fail at p0 = 1 is −∞: drawn on the floor, its title says so; a boundary out of reach sits on the edge.
  const yOf = (v: number) => (Number.isFinite(v) ? y(v) : v > 0 ? m.t : bottom);
  const end = x(d.maxTrials);
  const decides = !wald && alwaysDecides(d);

  let zones: Html;
  let lines: Html;
  if (wald) {
    zones = html`<rect class="zone-accept" x="${m.l}" y="${m.t}" width="${c(end - m.l)}" height="${c(y(b.accept) - m.t)}"/><rect class="zone-reject" x="${m.l}" y="${c(y(b.reject))}" width="${c(end - m.l)}" height="${c(bottom - y(b.reject))}"/>`;
    const boundary = (v: number, cls: string, name: string) =>
      html`<line class="${cls}" x1="${m.l}" x2="${c(end)}" y1="${c(y(v))}" y2="${c(y(v))}"><title>${name} boundary: Λ = ${fmt(v, 3)}</title></line><text class="label ${cls}" x="${right + 4}" y="${c(y(v) + 3.5)}">${name} ${signed(v)}</text>`;
    lines = html`${boundary(b.accept, 'accept', 'PASS')}${boundary(b.reject, 'reject', 'FAIL')}`;
  } else {
    // Stage n's boundary spans n ± ½ (the last stage stops at its own trial), so a dot and its stage line up.
    const points = (key: 'accept' | 'reject') =>
      stages.flatMap((s) => [`${c(x(s.n - 0.5))},${c(yOf(s[key]))}`, `${c(x(s.n === d.maxTrials ? s.n : s.n + 0.5))},${c(yOf(s[key]))}`]);
    const [accept, reject] = [points('accept'), points('reject')];
    const start = c(x((stages[0]?.n ?? 1) - 0.5));
    zones = html`<polygon class="zone-accept" points="${[`${start},${m.t}`, ...accept, `${c(end)},${m.t}`].join(' ')}"/><polygon class="zone-reject" points="${[`${start},${bottom}`, ...reject, `${c(end)},${bottom}`].join(' ')}"/>`;
    const lastStage = stages.at(-1);
    const meet = decides ? `; it meets the FAIL boundary at ${d.maxTrials} trials, where every case is decided` : '';
    const label = (cls: string, name: string, at: number) => html`<text class="label ${cls}" x="${right + 4}" y="${c(at)}">${name}</text>`;
    lines = html`<polyline class="boundary accept" points="${accept.join(' ')}"><title>PASS boundary, per stage: after n scored trials the case passes with at least the design's number of passes for n${meet}</title></polyline><polyline class="boundary reject" points="${reject.join(' ')}"><title>FAIL boundary, per stage: after n scored trials the case fails with at most the design's number of passes for n</title></polyline>${
      lastStage ? html`${label('accept', 'PASS', (m.t + yOf(lastStage.accept)) / 2 + 3.5)}${label('reject', 'FAIL', (yOf(lastStage.reject) + bottom) / 2 + 3.5)}` : ''
    }`;
  }
  const zero = html`<line class="zero" x1="${m.l}" x2="${right}" y1="${c(y(0))}" y2="${c(y(0))}"/><text class="label" x="${m.l - 5}" y="${c(y(0) + 3.5)}" text-anchor="end">0</text>`;
  const minTrials =
    p.minTrials > 1
      ? html`<line class="min-trials" x1="${c(x(p.minTrials))}" x2="${c(x(p.minTrials))}" y1="${m.t}" y2="${bottom}"><title>no decision before ${p.minTrials} scored trials (minTrials)</title></line>`
      : '';
  // The design's last stage on the axis: where it has decided every case, or (Wald's, or cut by maxTrials) where
  // a case still between the boundaries ends INCONCLUSIVE.
  const endTitle = decides ? `the design decides every case by ${d.maxTrials} scored trials` : `last stage: a case still undecided after ${d.maxTrials} scored trials is INCONCLUSIVE`;
  const designMax = html`<line class="tick design-max" x1="${c(end)}" x2="${c(end)}" y1="${bottom}" y2="${bottom + 4}"><title>${endTitle}</title></line>`;
  // Tick labels, most important first; one too close to a label already placed is left out.
  const placed: number[] = [];
  const xTicks = [0, d.maxTrials, last, ...(decidedAt !== undefined ? [decidedAt] : [])].flatMap((k) => {
    if (placed.some((at) => Math.abs(x(at) - x(k)) < 14)) return [];
    placed.push(k);
    const cls = k === d.maxTrials ? 'label design-max' : 'label';
    return [html`<text class="${cls}" x="${c(x(k))}" y="${bottom + 13}" text-anchor="middle">${k}${k === d.maxTrials ? html`<title>${endTitle}</title>` : ''}</text>`];
  });
  const axisTitles = html`<text class="label" x="${c((m.l + right) / 2)}" y="${height - 2}" text-anchor="middle">scored trials</text><text class="label" x="${m.l - 5}" y="${m.t + 8}" text-anchor="end">Λ</text>`;
  const line = [`${c(x(0))},${c(y(0))}`, ...steps.map((s, i) => `${c(x(i + 1))},${c(yOf(s.llr))}`)].join(' ');
  // Dots shrink when many trials share the width, so neighbours stay apart.
  const r = Math.min(3, Math.max(1.6, (x(1) - x(0)) / 2.4));
  const dots = steps.map(
    (s, i) =>
      html`<circle class="${s.passed ? 'step-pass' : 'step-fail'}${decidedAt === i + 1 ? ' decided' : ''}" cx="${c(x(i + 1))}" cy="${c(yOf(s.llr))}" r="${decidedAt === i + 1 ? 4.5 : r.toFixed(1)}"><title>scored trial ${i + 1} (#${s.trial}): ${s.passed ? 'pass' : 'fail'}, Λ = ${signed(s.llr)}${decidedAt === i + 1 ? ' · decided here' : ''}</title></circle>`,
  );
  return svg(width, height, title, `chart sprt design-${chart.kind}`, [zones, zero, lines, minTrials, designMax, ...xTicks, axisTitles, html`<polyline class="path" points="${line}"/>`, ...dots]);
}
